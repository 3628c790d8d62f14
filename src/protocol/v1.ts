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
import { closeConnection, type RawChannel } from "./rpc.js";
import { V1Questions } from "./v1-questions.js";
import { V1Results } from "./v1-results.js";
import { V1Session } from "./v1-session.js";
import { listToolPages, toolFromV1 } from "./tools.js";
import { revisionOf } from "./revisions.js";
import { Subscribable } from "./wire-events.js";
import type { CallOptions, CallOutcome, ResumeToken, ServiceInputOptions } from "./wire.js";
import type { Snapshot, TaskPage, ToolInfo, Wire, WireCapabilities, WireProbes } from "./wire.js";

/** One connection to a V1 server: the SDK client (handshake, the server's requests), our channel, its session. */
export interface V1Connection {
  client: Client;
  rpc: RawChannel;
  protocolVersion: string;
  sessionId?: () => string | undefined;
}

export class V1Wire extends Subscribable implements Wire {
  serverPid?: number;
  private tools?: Map<string, ToolInfo>;
  /** The server's questions, asked on the tasks/result rounds (v1-questions.ts). */
  private readonly questions = new V1Questions(this.hub);
  /** The tasks' outcomes, read with tasks/result (v1-results.ts). */
  private readonly results = new V1Results(
    (method, params, options) => this.session.request(method, params, options),
    (taskId, signal) => this.readTask(taskId, signal),
    this.questions,
    () => this.rpc.requestTimeoutMs,
  );
  private readonly listeners = new Set<(snapshot: Snapshot) => void>();
  /** Requests in the current session, a new one opened when the server forgot it (v1-session.ts). */
  private readonly session: V1Session;
  private resolveClosed!: (error: Error) => void;
  private readonly closedPromise = new Promise<Error>((resolve) => (this.resolveClosed = resolve));

  constructor(
    private client: Client,
    private rpc: RawChannel,
    private protocolVersion: string,
    private readonly serverName: string,
    /** The server's capabilities when the session was resumed (no initialize, so the SDK does not know them). */
    private readonly resumedCapabilities?: Record<string, unknown>,
    private sessionId?: () => string | undefined,
    /**
     * Opens a new session (a new initialize) on the same server, for when the server no longer knows this one (it
     * restarted): a server that keeps its tasks may still know a task there. Undefined where there are no sessions.
     */
    renew?: () => Promise<V1Connection>,
  ) {
    super();
    const replace = renew && (() => this.renewSession(renew));
    this.session = new V1Session(
      () => this.rpc,
      replace,
      (id) => this.hub.settle("taskMoved", id, this.resumeToken()),
    );
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

  get capabilities(): WireCapabilities {
    return {
      generation: "v1",
      revision: revisionOf("v1"),
      protocolVersion: this.protocolVersion,
      serverName: this.serverName,
      canListTasks: this.canListTasks,
      handsQuestionsOnce: true,
      keepsAbandonedCalls: false,
      hearsElicitationComplete: true,
    };
  }

  private get serverCapabilities(): Record<string, unknown> | undefined {
    return (this.client.getServerCapabilities() as Record<string, unknown> | undefined) ?? this.resumedCapabilities;
  }

  private get taskCaps(): Record<string, unknown> | undefined {
    return this.serverCapabilities?.tasks as Record<string, unknown> | undefined;
  }

  get closed(): Promise<Error> {
    return this.closedPromise;
  }

  /** Takes a new session into use (the server forgot this one); resolves with how to retire the old one. */
  private async renewSession(renew: () => Promise<V1Connection>): Promise<() => Promise<void>> {
    const fresh = await renew();
    const old = { client: this.client, rpc: this.rpc };
    this.attach(fresh);
    return async () => {
      old.rpc.failAll(new SessionLostError("the server no longer knows this session (it restarted?)"));
      await old.client.close().catch(() => {}); // never a session DELETE: there is no session left to delete
    };
  }

  resumeToken(): ResumeToken {
    return {
      generation: "v1",
      protocolVersion: this.protocolVersion,
      serverName: this.serverName,
      sessionId: this.sessionId?.(),
      capabilities: this.serverCapabilities,
    };
  }

  private get canListTasks(): boolean {
    return this.taskCaps?.list !== undefined;
  }

  async listTools(): Promise<ToolInfo[]> {
    // Sent raw (tools.ts): on a resumed session the SDK has not seen initialize and would refuse (no tools capability
    // known).
    const tools = await listToolPages((params) => this.session.request("tools/list", params), toolFromV1);
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
    const reply = await this.session.request("tools/call", params, { signal: options.signal, ...progress });
    if (reply.task !== undefined) {
      if (!asTask) throw new ProtocolViolation("the server answered a plain tools/call with a task");
      const snapshot = snapshotFromV1(reply.task, "task");
      this.session.known(snapshot.taskId);
      return { kind: "task", snapshot };
    }
    // A server may answer a task request with a plain result.
    return { kind: "result", result: toolResultOrThrow(reply, "tools/call result") };
  }

  /** One tasks/get: the task's state, without its outcome. */
  private async readTask(taskId: string, signal?: AbortSignal): Promise<Snapshot> {
    const reply = await this.session.taskRequest("tasks/get", taskId, signal);
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

  /** See WireProbes: an early tasks/result whose questions are left unanswered, and what the server said to one. */
  readonly probes: WireProbes = {
    openResult: (taskId) => this.results.open(taskId, true),
    resultAnsweredEarly: () => this.results.saidEarly,
  };

  async serviceInput(snapshot: Snapshot, _options: ServiceInputOptions): Promise<string[]> {
    // The questions arrive as elicitation requests once tasks/result is open; they reach the input handler.
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
        snapshotFromV1(await this.session.taskRequest("tasks/cancel", taskId), "tasks/cancel result"),
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
    const reply = await this.session.request("tasks/list", cursor ? { cursor } : {});
    return taskPageFromV1(reply);
  }

  async watchNotifications(_taskIds: string[], listener: (snapshot: Snapshot) => void): Promise<() => void> {
    // V1 status notifications are unsolicited: nothing to subscribe to.
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    // Never a session DELETE: tasks may be wanted by a later process.
    await this.session.settled(); // a session being opened is closed too
    await closeConnection(this.client, this.serverPid);
  }
}
