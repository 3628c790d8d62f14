// The demo server's V1 face: MCP 2025-11-25 core tasks (experimental in that revision).
//
// The SDK 2.4 has no runtime for these: its typed surface leaves tasks/* out ("2025-11-25 wire vocabulary with no
// SDK runtime"), and it keeps no task store. What it does have is a 2025-era `Server` whose dispatch accepts
// tasks/get, tasks/result, tasks/list and tasks/cancel when they are registered with explicit schemas, which
// answers `initialize`, and which can send `elicitation/create` to the client on the stream of the request being
// handled. The task wire is built on that, by hand:
//
//   initialize          capabilities.tasks = {list, cancel, requests: {tools: {call}}}
//   tools/list          each tool with execution.taskSupport (forbidden / optional / required)
//   tools/call          with params.task: {task: Task} at once; without it: a plain result, or -32601 for a
//                       task-required tool
//   tasks/get           the Task {taskId, status, statusMessage, createdAt, lastUpdatedAt, ttl, pollInterval}
//   tasks/result        blocks until the task is terminal and returns exactly what the call would have returned
//                       (a failed task: its JSON-RPC error). While the task is input_required it sends the task's
//                       questions as elicitation/create requests tagged _meta["io.modelcontextprotocol/related-task"]
//                       on its own stream, and hands the answers to the task
//   tasks/list          every live task, paginated (opaque cursor)
//   tasks/cancel        the cancelled Task; -32602 for a terminal one
//   notifications/tasks/status   on every change, to the session that created the task
//
// This file: the request handlers, shared by every connection. Over HTTP each client gets a session
// (v1-sessions.ts); the front, stdio or HTTP: v1.ts.

import { ProtocolError, RELATED_TASK_META_KEY, Server } from "@modelcontextprotocol/server";
import type { JSONRPCRequest, Result, ServerContext } from "@modelcontextprotocol/server";
import type { TaskRuntime } from "./runtime.js";
import { isTerminal, shortId, type JsonObject, type TaskRecord } from "./task.js";
import type { DemoStore } from "./store.js";
import type { ToolDef } from "./tools/tool.js";
import { ListParams, TaskIdParams, isObject, v1Task } from "./shapes.js";

const METHOD_NOT_FOUND = -32601;
const INVALID_PARAMS = -32602;
const INTERNAL_ERROR = -32603;
/** The 2025-era revisions this face speaks (the SDK's list; no 2026-07-28, so no server/discover). */
export const LEGACY_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26"];
const PAGE_SIZE = 20;
export const MAX_TTL_MS = 24 * 3_600_000;
const MIN_TTL_MS = 10_000;
/** How long a question waits for a person on one tasks/result stream before it is asked again. */
const QUESTION_TIMEOUT_MS = 30 * 60_000;
/** After a failed delivery, the wait before asking again on the same stream. */
const REDELIVERY_DELAY_MS = 5_000;

export interface V1Setup {
  runtime: TaskRuntime;
  tools: ToolDef[];
  store: DemoStore;
  serverInfo: { name: string; version: string };
  instructions: string;
  log: (line: string) => void;
  /** Sees every inbound JSON-RPC message of an HTTP POST body before it is served (tests: counting, faults). */
  onInbound?: (message: unknown) => void;
}

/** tools/call goes unwrapped: the SDK would validate a CreateTaskResult as a CallToolResult (and add `content: []`). */
class V1Server extends Server {
  protected override _wrapHandler(
    method: string,
    handler: (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>,
  ): (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result> {
    return method === "tools/call" ? handler : super._wrapHandler(method, handler);
  }
}

/** Everything the V1 servers of one demo server share. */
export class V1Face {
  private readonly byName: Map<string, ToolDef>;
  /** Per task: wakes the tasks/result calls waiting for it. */
  private readonly waiters = new Map<string, Set<() => void>>();
  /** Connected servers and the session they serve (undefined on stdio: it gets every task's updates). */
  private readonly connected = new Map<Server, string | undefined>();
  private readonly unsubscribe: () => void;
  private closed = false;

  constructor(private readonly setup: V1Setup) {
    this.byName = new Map(setup.tools.filter((tool) => !tool.v2Call).map((tool) => [tool.name, tool]));
    this.unsubscribe = setup.runtime.onChange((task) => {
      this.wake(task.taskId);
      this.notify(task);
    });
  }

  close(): void {
    this.closed = true;
    this.unsubscribe();
    for (const set of this.waiters.values()) for (const wake of set) wake();
  }

  private wake(taskId: string): void {
    for (const wake of this.waiters.get(taskId) ?? []) wake();
  }

  /** Resolves on the task's next change, after `timeoutMs`, or when `signal` aborts. */
  private nextChange(taskId: string, signal: AbortSignal, timeoutMs?: number): Promise<void> {
    return new Promise((resolve) => {
      const set = this.waiters.get(taskId) ?? new Set();
      this.waiters.set(taskId, set);
      let timer: NodeJS.Timeout | undefined;
      const done = () => {
        set.delete(done);
        if (set.size === 0) this.waiters.delete(taskId);
        if (timer) clearTimeout(timer);
        signal.removeEventListener("abort", done);
        resolve();
      };
      set.add(done);
      signal.addEventListener("abort", done, { once: true });
      if (timeoutMs !== undefined) timer = setTimeout(done, timeoutMs);
    });
  }

  private notify(task: TaskRecord): void {
    for (const [server, session] of this.connected) {
      if (session !== undefined && task.owner !== session) continue;
      server.notification({ method: "notifications/tasks/status", params: v1Task(task) } as never).catch(() => {});
    }
  }

  private findTask(taskId: string): TaskRecord {
    const task = this.setup.runtime.get(taskId);
    if (!task) throw new ProtocolError(INVALID_PARAMS, "Task not found (unknown or expired taskId)");
    return task;
  }

  /** A 2025-era server for one connection (stdio) or one HTTP session. */
  createServer(session: string | undefined): Server {
    const { runtime, tools, log } = this.setup;
    const server = new V1Server(this.setup.serverInfo, {
      supportedProtocolVersions: LEGACY_VERSIONS,
      capabilities: { tools: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } } as never,
      instructions: this.setup.instructions,
    });
    this.connected.set(server, session);
    server.onclose = () => this.connected.delete(server);

    server.setRequestHandler(
      "tools/list",
      async () =>
        ({
          tools: tools
            .filter((t) => !t.v2Call)
            .map((t) => ({
              name: t.name,
              ...(t.title !== undefined && { title: t.title }),
              description: t.description,
              inputSchema: t.inputSchema,
              ...(t.outputSchema !== undefined && { outputSchema: t.outputSchema }),
              execution: { taskSupport: t.task ? t.task.support : "forbidden" },
            })),
        }) as never,
    );

    server.setRequestHandler(
      "tools/call",
      async (request, ctx) => this.callTool(server, session, (request.params ?? {}) as JsonObject, ctx) as never,
    );

    server.setRequestHandler("tasks/get", { params: TaskIdParams }, async (params) =>
      v1Task(this.findTask(params.taskId)),
    );

    server.setRequestHandler("tasks/result", { params: TaskIdParams }, async (params, ctx) =>
      this.result(server, params.taskId, ctx),
    );

    server.setRequestHandler("tasks/list", { params: ListParams }, async (params) => {
      const all = runtime.all();
      let start = 0;
      if (params.cursor !== undefined) {
        const decoded = /^o:(\d{1,9})$/.exec(Buffer.from(params.cursor, "base64url").toString("utf8"));
        if (!decoded) throw new ProtocolError(INVALID_PARAMS, "Invalid cursor");
        start = Number(decoded[1]);
      }
      const page = all.slice(start, start + PAGE_SIZE);
      const next =
        start + PAGE_SIZE < all.length ? Buffer.from(`o:${start + PAGE_SIZE}`).toString("base64url") : undefined;
      return { tasks: page.map(v1Task), ...(next !== undefined && { nextCursor: next }) };
    });

    server.setRequestHandler("tasks/cancel", { params: TaskIdParams }, async (params) => {
      const task = this.findTask(params.taskId);
      if (isTerminal(task.status))
        throw new ProtocolError(INVALID_PARAMS, `Cannot cancel task: it is already ${task.status}`);
      runtime.cancel(task);
      log(`task ${shortId(task.taskId)} cancelled by the client`);
      return v1Task(task);
    });

    return server;
  }

  /** tools/call: an immediate result, a task (with params.task), or a task-optional tool run to its end (without). */
  private async callTool(
    server: Server,
    session: string | undefined,
    params: JsonObject,
    ctx: ServerContext,
  ): Promise<JsonObject> {
    const { runtime } = this.setup;
    const name = params.name;
    if (typeof name !== "string") throw new ProtocolError(INVALID_PARAMS, "Invalid params: name is required");
    const tool = this.byName.get(name);
    if (!tool) throw new ProtocolError(INVALID_PARAMS, `Unknown tool: ${name}`);
    const args = params.arguments ?? {};
    if (!isObject(args)) throw new ProtocolError(INVALID_PARAMS, "Invalid arguments: arguments must be an object");
    const taskParams = params.task;
    // A task request for a tool that forbids tasks gets the plain result (clients must handle both shapes).
    if (tool.immediate) return tool.immediate(args);
    const spec = tool.task!;
    if (!isObject(taskParams)) {
      if (spec.support === "required")
        throw new ProtocolError(
          METHOD_NOT_FOUND,
          `${name} can only run as a task: call it with params.task (taskSupport: required)`,
        );
      // Task-optional, called without a task: run it all the same and answer with its result.
      const task = runtime.create(name, spec.data(args), { ...(session !== undefined && { owner: session }) });
      return await this.result(server, task.taskId, ctx);
    }
    const data = spec.data(args);
    const ttl =
      typeof taskParams.ttl === "number" && Number.isFinite(taskParams.ttl)
        ? Math.min(MAX_TTL_MS, Math.max(MIN_TTL_MS, Math.round(taskParams.ttl)))
        : undefined;
    const task = runtime.create(name, data, { ttlMs: ttl, ...(session !== undefined && { owner: session }) });
    return { task: v1Task(task) };
  }

  /**
   * tasks/result: waits for the end of the task, delivering its questions on this request's stream meanwhile.
   * Each question is sent once per tasks/result request (again only after its delivery failed); an answer to a
   * question that was answered elsewhere meanwhile is ignored.
   */
  private async result(server: Server, taskId: string, ctx: ServerContext): Promise<JsonObject> {
    const signals = [ctx.mcpReq.signal];
    // HTTP: the client hanging up aborts the node request behind this one (see http.ts).
    const httpSignal = (ctx as { http?: { req?: Request } }).http?.req?.signal;
    if (httpSignal) signals.push(httpSignal);
    const gone = AbortSignal.any(signals);
    const delivered = new Map<string, "asking" | number>();
    let warned = false;
    for (;;) {
      if (gone.aborted) throw new ProtocolError(INTERNAL_ERROR, "tasks/result abandoned by the client");
      // Shutting down: no answer at all (an error would read as the task's own failure); the stream ends with
      // the server, and the client asks a restarted server again.
      if (this.closed) return new Promise<never>(() => {});
      const task = this.findTask(taskId);
      const related = { [RELATED_TASK_META_KEY]: { taskId } };
      if (task.status === "completed" || (task.status === "failed" && task.result)) {
        const result = task.result ?? { content: [] };
        return { ...result, _meta: { ...(isObject(result._meta) ? result._meta : {}), ...related } };
      }
      if (task.status === "failed") {
        const error = task.error ?? { code: INTERNAL_ERROR, message: "Internal error" };
        throw new ProtocolError(error.code, error.message, error.data);
      }
      if (task.status === "cancelled") throw new ProtocolError(INTERNAL_ERROR, "Task was cancelled: it has no result");
      let retryIn: number | undefined;
      if (task.status === "input_required") {
        const canAsk = server.getClientCapabilities()?.elicitation !== undefined;
        if (!canAsk && !warned) {
          warned = true;
          this.setup.log(
            `task ${shortId(taskId)} waits for input, but this client did not declare elicitation: it cannot be asked`,
          );
        }
        for (const [key, request] of Object.entries(task.pending)) {
          if (!canAsk) break;
          const state = delivered.get(key);
          if (state === "asking") continue;
          if (typeof state === "number" && Date.now() < state) {
            retryIn = Math.min(retryIn ?? Infinity, state - Date.now());
            continue;
          }
          delivered.set(key, "asking");
          ctx.mcpReq
            .send(
              { method: "elicitation/create", params: { ...request.params, _meta: related } },
              { timeout: QUESTION_TIMEOUT_MS, signal: gone },
            )
            .then((response) => {
              const { accepted } = this.setup.runtime.update(task, { [key]: response });
              if (accepted.length === 0)
                this.setup.log(`task ${shortId(taskId)}: answer to ${key} ignored (no longer asked)`);
            })
            .catch((error: Error) => {
              if (!gone.aborted)
                this.setup.log(`task ${shortId(taskId)}: question ${key} not answered: ${error.message}`);
              delivered.set(key, Date.now() + REDELIVERY_DELAY_MS);
              this.wake(taskId);
            });
        }
      }
      await this.nextChange(taskId, gone, retryIn);
    }
  }
}
