// The 2025-11-25 core tasks ("V1") wire adapter: calls, task reads, cancel and list, and the HTTP session (renewed
// when the server forgot it). Its questions are v1-questions.ts, its tasks/result rounds v1-results.ts.
//
// Traps handled here (docs/protocol.md#v1-traps): a call is task-augmented only when the server has
// `tasks.requests.tools.call` AND the tool's `taskSupport` allows it; `input_required` is resolved only by opening
// `tasks/result`, on whose stream the server sends ordinary `elicitation/create` requests; `tasks/result` blocks
// until the task is terminal and then carries exactly what the call would have returned.
import type { Client } from "@modelcontextprotocol/client";
import {
  NotOfferedError,
  ProtocolViolation,
  RpcError,
  SessionLostError,
  TaskNotFoundError,
  UsageError,
} from "../errors.js";
import { sanitizeLine, shellWord } from "../sanitize.js";
import { completedOrThrow, sameTaskOrThrow } from "./checks.js";
import { snapshotFromV1, taskPageFromV1, toolResultOrThrow } from "./parse.js";
import { closeConnection, type RawChannel, type RawRequestOptions } from "./rpc.js";
import { V1Questions } from "./v1-questions.js";
import { V1Results } from "./v1-results.js";
import { listToolPages, toolFromV1 } from "./tools.js";
import type { CallOptions, CallOutcome, InputHandler, InputRequest, ResumeToken, ServiceInputOptions } from "./wire.js";
import type { Snapshot, TaskPage, ToolInfo, UncertainDelivery, Wire } from "./wire.js";

const INVALID_PARAMS = -32602;
/** One connection to a V1 server: the SDK client (handshake, the server's requests), our channel, its session. */
export interface V1Connection {
  client: Client;
  rpc: RawChannel;
  protocolVersion: string;
  sessionId?: () => string | undefined;
}

export class V1Wire implements Wire {
  readonly generation = "v1" as const;
  readonly handsQuestionsOnce = true;
  inputHandler?: InputHandler;
  onUncertainDelivery?: (delivery: UncertainDelivery) => void;
  onQuestionWithdrawn?: (taskId: string | null, request: InputRequest) => void;
  onElicitationComplete?: (elicitationId: string) => void; // told by v1-questions.ts
  serverPid?: number;
  private tools?: Map<string, ToolInfo>;
  /** The server's questions, asked on the tasks/result rounds (v1-questions.ts). */
  private readonly questions = new V1Questions(this);
  /** The tasks' outcomes, read with tasks/result (v1-results.ts). */
  private readonly results = new V1Results(
    (method, params, options) => this.request(method, params, options),
    (taskId, signal) => this.readTask(taskId, signal),
    this.questions,
    () => this.rpc.requestTimeoutMs,
  );
  private readonly listeners = new Set<(snapshot: Snapshot) => void>();
  onTaskMoved?: (taskId: string, token: ResumeToken) => Promise<void> | void;
  /** How many times the session was renewed (the server had forgotten it); 0: still the first one. */
  private epoch = 0;
  /** Per task: the epoch in which the server last knew it (it created it, or answered a read of it). */
  private readonly knownIn = new Map<string, number>();
  private renewing?: Promise<void>;
  private resolveClosed!: (error: Error) => void;
  private readonly closedPromise = new Promise<Error>((resolve) => (this.resolveClosed = resolve));

  constructor(
    private client: Client,
    private rpc: RawChannel,
    public protocolVersion: string,
    readonly serverName: string,
    /** The server's capabilities when the session was resumed (no initialize, so the SDK does not know them). */
    private readonly resumedCapabilities?: Record<string, unknown>,
    private sessionId?: () => string | undefined,
    /**
     * Opens a new session (a new initialize) on the same server, for when the server no longer knows this one (it
     * restarted): a server that keeps its tasks may still know a task there. Undefined where there are no sessions.
     */
    private readonly renew?: () => Promise<V1Connection>,
  ) {
    this.attach({ client, rpc, protocolVersion, sessionId });
  }

  /** Takes a connection into use: the server's requests and notifications reach this wire through it. */
  private attach(connection: V1Connection): void {
    const { client, rpc } = connection;
    this.client = client;
    this.rpc = rpc;
    this.protocolVersion = connection.protocolVersion;
    this.sessionId = connection.sessionId;
    void rpc.closed.then((error) => {
      // A connection replaced by a renewed session is closed on purpose: that is not the wire's end.
      if (this.rpc === rpc) this.resolveClosed(error);
    });
    this.questions.attach(client, rpc);
    client.fallbackNotificationHandler = async (notification) => {
      if (notification.method !== "notifications/tasks/status" || this.listeners.size === 0) return;
      let snapshot: Snapshot;
      try {
        snapshot = snapshotFromV1(notification.params, "task status notification");
      } catch {
        return; // A malformed notification is ignored: polling remains the source of truth.
      }
      for (const listener of this.listeners) listener(snapshot);
    };
  }

  private get capabilities(): Record<string, unknown> | undefined {
    return (this.client.getServerCapabilities() as Record<string, unknown> | undefined) ?? this.resumedCapabilities;
  }

  private get taskCaps(): Record<string, unknown> | undefined {
    return this.capabilities?.tasks as Record<string, unknown> | undefined;
  }

  get closed(): Promise<Error> {
    return this.closedPromise;
  }

  /**
   * Sends a request in the current session. When the server no longer knows the session, a new one is opened (one
   * renewal shared by every request that hit the lost session) and the request is sent again there, once.
   */
  private async request(
    method: string,
    params: Record<string, unknown>,
    options: RawRequestOptions = {},
  ): Promise<Record<string, unknown>> {
    for (let renewed = false; ; renewed = true) {
      const epoch = this.epoch;
      try {
        return await this.rpc.request(method, params, options);
      } catch (error) {
        if (!(error instanceof SessionLostError) || !this.renew || renewed) throw error;
        await this.renewSession(epoch);
      }
    }
  }

  /** Opens a new session after the one of `epoch` was lost (nothing to do when another request renewed it already). */
  private renewSession(epoch: number): Promise<void> {
    if (this.epoch !== epoch) return Promise.resolve();
    this.renewing ??= (async () => {
      const fresh = await this.renew!();
      const old = { client: this.client, rpc: this.rpc };
      this.attach(fresh);
      this.epoch++;
      // Requests still waiting in the lost session are asked again in the new one (see request()).
      old.rpc.failAll(new SessionLostError("the server no longer knows this session (it restarted?)"));
      await old.client.close().catch(() => {}); // never a session DELETE: there is no session left to delete
    })().finally(() => (this.renewing = undefined));
    return this.renewing;
  }

  resumeToken(): ResumeToken {
    return {
      generation: "v1",
      protocolVersion: this.protocolVersion,
      serverName: this.serverName,
      sessionId: this.sessionId?.(),
      capabilities: this.capabilities,
    };
  }

  get canListTasks(): boolean {
    return this.taskCaps?.list !== undefined;
  }

  async listTools(): Promise<ToolInfo[]> {
    // Sent raw (tools.ts): on a resumed session the SDK has not seen initialize and would refuse (no tools capability
    // known).
    const tools = await listToolPages((params) => this.request("tools/list", params), toolFromV1);
    this.tools = new Map(tools.map((tool) => [tool.name, tool]));
    return tools;
  }

  async callTool(name: string, args: Record<string, unknown>, options: CallOptions): Promise<CallOutcome> {
    if (!this.tools) await this.listTools();
    const tool = this.tools!.get(name);
    const serverTakesTasks =
      (this.taskCaps?.requests as { tools?: { call?: unknown } } | undefined)?.tools?.call !== undefined;
    const asTask =
      options.task === "auto" &&
      serverTakesTasks &&
      (tool?.taskSupport === "optional" || tool?.taskSupport === "required");
    const params: Record<string, unknown> = { name, arguments: args };
    if (asTask) params.task = options.ttlMs !== undefined ? { ttl: options.ttlMs } : {};
    // A task's progress token lasts the task's life (2025-11-25): its listener stays.
    const progress = options.onProgress && { onProgress: options.onProgress, keepProgress: asTask };
    const reply = await this.request("tools/call", params, { signal: options.signal, ...progress });
    if (reply.task !== undefined) {
      if (!asTask) throw new ProtocolViolation("the server answered a plain tools/call with a task");
      const snapshot = snapshotFromV1(reply.task, "task");
      this.knownIn.set(snapshot.taskId, this.epoch);
      return { kind: "task", snapshot };
    }
    // A server may answer a task request with a plain result.
    return { kind: "result", result: toolResultOrThrow(reply, "tools/call result") };
  }

  /** One tasks/get: the task's state, without its outcome. */
  private async readTask(taskId: string, signal?: AbortSignal): Promise<Snapshot> {
    const reply = await this.taskRequest("tasks/get", taskId, signal);
    // Checked before anything else: a reply about another task would be followed as if it were this one.
    return sameTaskOrThrow(snapshotFromV1(reply, "tasks/get result"), taskId, "tasks/get");
  }

  async getTask(taskId: string, signal?: AbortSignal): Promise<Snapshot> {
    const snapshot = await this.readTask(taskId, signal);
    if (snapshot.status === "completed" || snapshot.status === "failed") {
      const outcome = this.results.known(taskId) ?? (await this.results.finished(taskId, snapshot.status, signal));
      if (outcome && "result" in outcome) snapshot.result = outcome.result;
      if (outcome && "error" in outcome) snapshot.error = outcome.error;
    }
    // tasks/result of a completed task is its result: a JSON-RPC error there is the server contradicting itself.
    return completedOrThrow(snapshot);
  }

  /**
   * See Wire.awaitEnd: tasks/result, then tasks/get (its answer is the outcome only once the task has ended:
   * v1-results.ts). Rejects at once on a server seen to answer tasks/result before the end: follow it with getTask.
   */
  async awaitEnd(taskId: string, signal?: AbortSignal): Promise<Snapshot> {
    return this.results.follow(taskId, signal);
  }

  /** See Wire.probeResult: an early tasks/result whose questions are left unanswered. */
  probeResult(taskId: string): void {
    this.results.open(taskId, true);
  }

  /** See Wire.resultAnsweredEarly. */
  resultAnsweredEarly(): string | undefined {
    return this.results.saidEarly;
  }

  async serviceInput(snapshot: Snapshot, _options: ServiceInputOptions): Promise<string[]> {
    // The questions arrive as elicitation requests once tasks/result is open; they reach inputHandler.
    this.results.open(snapshot.taskId);
    return [];
  }

  async cancelTask(taskId: string): Promise<Snapshot | undefined> {
    // A server that does not offer tasks/cancel (capabilities.tasks.cancel) cannot be asked; one that says it
    // offers it and answers "method not found" is told the same way.
    const cannot = () =>
      new NotOfferedError(
        `${sanitizeLine(this.serverName)} does not support cancelling tasks (it offers no tasks/cancel); the task goes on`,
        `follow it with: mcp-task watch ${shellWord(taskId)}`,
      );
    if (this.taskCaps && this.taskCaps.cancel === undefined) throw cannot();
    try {
      return sameTaskOrThrow(
        snapshotFromV1(await this.taskRequest("tasks/cancel", taskId), "tasks/cancel result"),
        taskId,
        "tasks/cancel",
      );
    } catch (error) {
      // Cancelling a terminal task is -32602 too: tell it apart from an unknown one.
      if (error instanceof TaskNotFoundError) return this.getTask(taskId);
      if (error instanceof RpcError && error.rpcCode === -32601) throw cannot();
      throw error;
    }
  }

  async listTasks(cursor?: string): Promise<TaskPage> {
    if (!this.canListTasks)
      throw new UsageError(
        `${sanitizeLine(this.serverName)} does not list its tasks`,
        "list saved handles without --remote",
      );
    const reply = await this.request("tasks/list", cursor ? { cursor } : {});
    return taskPageFromV1(reply);
  }

  async watchNotifications(_taskIds: string[], listener: (snapshot: Snapshot) => void): Promise<() => void> {
    // V1 status notifications are unsolicited: nothing to subscribe to.
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private async taskRequest(method: string, taskId: string, signal?: AbortSignal): Promise<Record<string, unknown>> {
    let reply: Record<string, unknown>;
    try {
      reply = await this.request(method, { taskId }, { signal });
    } catch (error) {
      if (error instanceof RpcError && error.rpcCode === INVALID_PARAMS) {
        if (this.movedAway(taskId)) {
          // The session the task was reached in is gone, and the new one does not know the task.
          throw new TaskNotFoundError(
            `the server no longer knows this session (it restarted?), and with it task ${taskId}`,
            undefined,
            taskId,
          );
        }
        throw new TaskNotFoundError(
          `the server does not know task ${taskId} (expired, or created on another connection): ${sanitizeLine(error.message)}`,
          undefined,
          taskId,
        );
      }
      throw error;
    }
    if (this.movedAway(taskId)) {
      // The server kept the task across the loss of its session: later processes must come in the new session.
      this.knownIn.set(taskId, this.epoch);
      await this.onTaskMoved?.(taskId, this.resumeToken());
    }
    this.knownIn.set(taskId, this.epoch);
    return reply;
  }

  /** True when the session was renewed since the server last knew this task. */
  private movedAway(taskId: string): boolean {
    return this.epoch > 0 && this.knownIn.get(taskId) !== this.epoch;
  }

  async close(): Promise<void> {
    // Never a session DELETE: tasks may be wanted by a later process.
    await this.renewing?.catch(() => {}); // a session being opened is closed too
    await closeConnection(this.client, this.serverPid);
  }
}
