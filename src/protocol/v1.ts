// The 2025-11-25 core tasks ("V1") wire adapter.
//
// Traps handled here (../shared/PROTOCOL.md): a call is task-augmented only when the server has
// `tasks.requests.tools.call` AND the tool's `taskSupport` allows it; `input_required` is resolved only by opening
// `tasks/result`, on whose stream the server sends ordinary `elicitation/create` requests; `tasks/result` blocks
// until the task is terminal and then carries exactly what the call would have returned.
import type { Client } from "@modelcontextprotocol/client";
import {
  ProtocolViolation,
  RpcError,
  ServerError,
  SessionLostError,
  TaskNotFoundError,
  UsageError,
} from "../errors.js";
import { sanitizeLine, shellWord } from "../sanitize.js";
import { completedOrThrow, sameTaskOrThrow } from "./checks.js";
import { snapshotFromV1, toolResultOrThrow } from "./parse.js";
import { closeConnection, toServerError, type RawChannel } from "./rpc.js";
import { checkToolSchemas, formOverLimit, overLimitStandIn } from "./schema-bounds.js";
import type {
  CallOptions,
  CallOutcome,
  CallToolResult,
  InputHandler,
  InputRequest,
  ResumeToken,
  ServiceInputOptions,
  Snapshot,
  TaskError,
  InputResponse,
  TaskPage,
  ToolInfo,
  UncertainDelivery,
  Wire,
} from "./wire.js";

const RELATED_TASK = "io.modelcontextprotocol/related-task";
const INVALID_PARAMS = -32602;

type Outcome = { result: CallToolResult } | { error: TaskError };

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
  serverPid?: number;
  private tools?: Map<string, ToolInfo>;
  /** Per task: the open tasks/result round its questions come with; `cut` once it ended without the task's outcome. */
  private readonly rounds = new Map<string, { cut: boolean }>();
  /** Answers to a task's questions handed to the SDK and not yet sent, by the server's request id. */
  private readonly answering = new Map<unknown, { taskId: string; request: InputRequest; response: InputResponse }>();
  /** Open `tasks/result` requests, one per task. */
  private readonly resultRequests = new Map<string, Promise<Outcome | undefined>>();
  private readonly outcomes = new Map<string, Outcome>();
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
    // A question whose form is past the bounds never reaches the SDK (its parse of a form of 400,000 fields cost 8
    // CPU-seconds; one 20,000 levels deep it refused on its own, unseen): it goes to the input handler like any
    // other question (the engine refuses it: exit 4, naming the bound), and is answered from here when the handler
    // answers; a question kept unanswered (by a broker, for a later command) stays unanswered.
    rpc.screenRequest = (method, params, id) => {
      const over = method === "elicitation/create" ? formOverLimit(params.requestedSchema) : undefined;
      if (!over) return undefined;
      // The form itself does not travel further (a broker could not even write it to its socket): a small stand-in
      // that says why it was refused does, and the engine refuses it with that reason.
      this.ask(method, { ...params, requestedSchema: overLimitStandIn(over) }, id).then(
        (result) => rpc.reply(id, { result }),
        () => rpc.reply(id, { error: { code: -32602, message: `mcp-task will not show or fill this form: ${over}` } }),
      );
      return "held";
    };
    // The request's signal aborts when the server withdraws its question (notifications/cancelled: it gave up waiting).
    client.setRequestHandler(
      "elicitation/create",
      async (request, ctx) =>
        this.ask(request.method, request.params as Record<string, unknown>, ctx.mcpReq.id, ctx.mcpReq.signal) as never,
    );
    client.setRequestHandler(
      "sampling/createMessage",
      async (request, ctx) =>
        this.ask(request.method, request.params as Record<string, unknown>, ctx.mcpReq.id, ctx.mcpReq.signal) as never,
    );
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
    this.watchAnswers();
  }

  /**
   * The SDK sends our answer as the response to the server's elicitation request, and only logs a failed send.
   * Such an answer may not have reached the server: tell `onUncertainDelivery` (a server that did not take it asks
   * again on its next tasks/result).
   */
  private watchAnswers(): void {
    const transport = this.client.transport;
    if (!transport) return;
    const send = transport.send.bind(transport);
    transport.send = (message, options) => {
      const id = (message as { id?: unknown }).id;
      const answer = "method" in message ? undefined : this.answering.get(id);
      if (!answer) return send(message, options);
      this.answering.delete(id);
      return send(message, options).catch((error: unknown) => {
        this.onUncertainDelivery?.({
          taskId: answer.taskId,
          answers: [{ request: answer.request, response: answer.response }],
          stableKeys: false,
          error: toServerError(error, "sending the answer"),
        });
        throw error;
      });
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
    options: { signal?: AbortSignal; timeoutMs?: number } = {},
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

  /** Routes a server-to-client request to the input handler, tagged with its task when it has one. */
  private async ask(
    method: string,
    params: Record<string, unknown>,
    id: unknown,
    signal?: AbortSignal,
  ): Promise<Record<string, unknown>> {
    const meta = (params._meta ?? {}) as Record<string, { taskId?: unknown } | undefined>;
    const taskId = typeof meta[RELATED_TASK]?.taskId === "string" ? (meta[RELATED_TASK]!.taskId as string) : null;
    const input: InputRequest = { key: `v1:${String(id ?? Math.random())}`, method, params };
    if (!this.inputHandler) throw new RpcError("mcp-task has no answer for this request", -32603);
    const round = taskId !== null ? this.rounds.get(taskId) : undefined;
    signal?.addEventListener("abort", () => this.onQuestionWithdrawn?.(taskId, input), { once: true });
    const response = await this.inputHandler(input, taskId, signal);
    if (method === "sampling/createMessage") {
      // mcp-task has no model; a declined sampling request is reported to the server as an error.
      throw new RpcError("sampling declined: mcp-task is not connected to a model", -1);
    }
    if (taskId !== null && round?.cut) {
      // The round the question came with ended before the answer was ready: the server that asked may be gone (a
      // restarted one does not know this request), so the answer is in doubt. It is sent all the same.
      const error = new ServerError(
        "the tasks/result stream that brought the question ended before the answer was sent",
      );
      this.onUncertainDelivery?.({ taskId, answers: [{ request: input, response }], stableKeys: false, error });
    } else if (taskId !== null && id !== undefined) this.answering.set(id, { taskId, request: input, response });
    return response.action === "accept" ? { action: "accept", content: response.content } : { action: response.action };
  }

  async listTools(): Promise<ToolInfo[]> {
    // Sent raw: on a resumed session the SDK has not seen initialize and would refuse (no tools capability known).
    const tools: ToolInfo[] = [];
    for (let cursor: string | undefined, page = 0; page < 100; page++) {
      const reply = await this.request("tools/list", cursor ? { cursor } : {});
      if (!Array.isArray(reply.tools))
        throw new ProtocolViolation("the server sent a tools/list result without a tools array");
      for (const tool of reply.tools as Array<Record<string, unknown>>) {
        if (typeof tool?.name !== "string") continue;
        checkToolSchemas(tool); // before anything walks them (schema-bounds.ts)
        const support = (tool.execution as { taskSupport?: string } | undefined)?.taskSupport;
        tools.push({
          name: tool.name,
          title: typeof tool.title === "string" ? tool.title : undefined,
          description: typeof tool.description === "string" ? tool.description : undefined,
          inputSchema: (tool.inputSchema as Record<string, unknown>) ?? { type: "object" },
          outputSchema: tool.outputSchema as Record<string, unknown> | undefined,
          taskSupport: support === "optional" || support === "required" ? support : "forbidden",
        });
      }
      if (typeof reply.nextCursor !== "string" || !(cursor = reply.nextCursor)) break;
    }
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
    const reply = await this.request("tools/call", params, { signal: options.signal });
    if (reply.task !== undefined) {
      if (!asTask) throw new ProtocolViolation("the server answered a plain tools/call with a task");
      const snapshot = snapshotFromV1(reply.task, "task");
      this.knownIn.set(snapshot.taskId, this.epoch);
      return { kind: "task", snapshot };
    }
    // A server may answer a task request with a plain result.
    return { kind: "result", result: toolResultOrThrow(reply, "tools/call result") };
  }

  async getTask(taskId: string, signal?: AbortSignal): Promise<Snapshot> {
    const reply = await this.taskRequest("tasks/get", taskId, signal);
    // Checked before anything else: a reply about another task would be followed as if it were this one.
    const snapshot = sameTaskOrThrow(snapshotFromV1(reply, "tasks/get result"), taskId, "tasks/get");
    if (snapshot.status === "completed" || snapshot.status === "failed") {
      const outcome = this.outcomes.get(taskId) ?? (await this.finishedOutcome(taskId, snapshot.status, signal));
      if (outcome && "result" in outcome) snapshot.result = outcome.result;
      if (outcome && "error" in outcome) snapshot.error = outcome.error;
    }
    // tasks/result of a completed task is its result: a JSON-RPC error there is the server contradicting itself.
    return completedOrThrow(snapshot);
  }

  /**
   * The outcome of a task tasks/get says has ended: tasks/result should answer at once, so it gets the request
   * timeout here (while the task runs, tasks/result rightly waits without one).
   */
  private async finishedOutcome(taskId: string, status: string, signal?: AbortSignal): Promise<Outcome | undefined> {
    const limit = this.rpc.requestTimeoutMs;
    if (!limit) return this.fetchOutcome(taskId, signal);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const error = new ServerError(
          `the server did not answer tasks/result within ${Math.round(limit / 100) / 10} s although the task is ${status} (MCP_TASK_REQUEST_TIMEOUT)`,
        );
        error.transient = true;
        reject(error);
      }, limit);
    });
    try {
      return await Promise.race([this.fetchOutcome(taskId, signal), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  async serviceInput(snapshot: Snapshot, _options: ServiceInputOptions): Promise<string[]> {
    // The questions arrive as elicitation requests once tasks/result is open; they reach inputHandler.
    if (!this.resultRequests.has(snapshot.taskId)) void this.fetchOutcome(snapshot.taskId);
    return [];
  }

  /** Opens (or joins) the task's `tasks/result` request; resolves once the task is terminal. */
  private fetchOutcome(taskId: string, signal?: AbortSignal): Promise<Outcome | undefined> {
    let pending = this.resultRequests.get(taskId);
    if (!pending) {
      const round = { cut: false };
      this.rounds.set(taskId, round);
      // No timeout: tasks/result rightly blocks until the task ends.
      pending = this.request("tasks/result", { taskId }, { timeoutMs: 0 }).then(
        (reply) => {
          const outcome = { result: toolResultOrThrow(reply, "tasks/result") };
          this.outcomes.set(taskId, outcome);
          return outcome;
        },
        (error: unknown) => {
          if (this.resultRequests.get(taskId) === pending) this.resultRequests.delete(taskId);
          round.cut = true;
          if (error instanceof RpcError && error.rpcCode !== INVALID_PARAMS) {
            // A failed task's tasks/result is the JSON-RPC error the call would have returned.
            const outcome = { error: { code: error.rpcCode, message: error.message, data: error.data } };
            this.outcomes.set(taskId, outcome);
            return outcome;
          }
          throw error;
        },
      );
      pending.catch(() => {});
      this.resultRequests.set(taskId, pending);
    }
    if (!signal) return pending;
    return Promise.race([
      pending,
      new Promise<never>((_, reject) => signal.addEventListener("abort", () => reject(signal.reason), { once: true })),
    ]);
  }

  async cancelTask(taskId: string): Promise<Snapshot | undefined> {
    // A server that does not offer tasks/cancel (capabilities.tasks.cancel) cannot be asked; one that says it
    // offers it and answers "method not found" is told the same way.
    const cannot = () =>
      new UsageError(
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
    if (!Array.isArray(reply.tasks))
      throw new ProtocolViolation("the server sent a tasks/list result without a tasks array");
    const tasks: Snapshot[] = [];
    // One malformed entry must not hide the others.
    for (const entry of reply.tasks) {
      try {
        tasks.push(snapshotFromV1(entry, "tasks/list entry"));
      } catch {
        /* skipped: reported by the count difference */
      }
    }
    return { tasks, nextCursor: typeof reply.nextCursor === "string" ? reply.nextCursor : undefined };
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
