// The demo server's V2 face: MCP 2026-07-28 (no initialize, the per-request `_meta` envelope) with the
// "io.modelcontextprotocol/tasks" extension. The SDK 2.4 has no server-side support for the extension, but its
// 2026-07-28 dispatch answers `tasks/get` and `tasks/cancel` when they are registered with explicit schemas, takes
// `tasks/update` as a custom method, and validates the `Mcp-Name` header against params.taskId on HTTP.
//
//   tools/call      an immediate result, request-level input (fixtures only), or a task: the server alone decides;
//                   a client that did not declare the extension gets -32021 for a task-required tool
//   tasks/get       the task, with `inputRequests` (input_required), `result` (completed) or `error` (failed)
//   tasks/update    answers by input key; unknown or already answered keys are ignored
//   tasks/cancel    acknowledges; the task is `cancelled` from then on
//   subscriptions/listen {notifications:{taskIds}} -> notifications/tasks (listen.ts)

import { randomBytes } from "node:crypto";
import { ProtocolError, Server, createMcpHandler, createRequestStateCodec } from "@modelcontextprotocol/server";
import type {
  JSONRPCMessage,
  JSONRPCRequest,
  MessageExtraInfo,
  Result,
  ServerContext,
  Transport,
  TransportSendOptions,
} from "@modelcontextprotocol/server";
import { StdioServerTransport, serveStdio } from "@modelcontextprotocol/server/stdio";
import { MODERN_VERSION, TASKS_EXTENSION, declaresTasks, missingTasksExtension } from "./envelope.js";
import { startHttpFront } from "./http.js";
import { ListenHub, listenResponse } from "./listen.js";
import type { TaskRuntime } from "./runtime.js";
import type { JsonObject, TaskRecord } from "./task.js";
import { TaskIdParams, v2Detailed, v2Task } from "./shapes.js";
import type { DemoStore } from "./store.js";
import { runInline, type ToolDef, type V2CallEnv } from "./tools/tool.js";
import type { RunningFront } from "./http.js";

const INVALID_PARAMS = -32602;

export interface V2Setup {
  runtime: TaskRuntime;
  tools: ToolDef[];
  /** Keeps the requestState key across restarts; without a store the key is new on every start. */
  store?: DemoStore;
  serverInfo: { name: string; version: string };
  instructions: string;
  log: (line: string) => void;
  /** Sees every inbound JSON-RPC message (HTTP: each message of a POST body) before it is served. */
  onInbound?: (message: unknown) => void;
}

/**
 * `Server` wraps a tools/call handler to validate its result as a CallToolResult (it would add `content: []` to a
 * CreateTaskResult). This server returns CreateTaskResults and its own input_required results, so tools/call goes
 * unwrapped; the 2026 encoder still stamps `resultType: "complete"` on results that carry none.
 */
class TasksServer extends Server {
  protected override _wrapHandler(
    method: string,
    handler: (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>,
  ): (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result> {
    return method === "tools/call" ? handler : super._wrapHandler(method, handler);
  }
}

/** tools/call: an immediate result, the tool's own V2 call, or a task (inline without the tasks extension). */
function toolCaller(
  byName: Map<string, ToolDef>,
  runtime: V2Setup["runtime"],
  env: V2CallEnv,
): (params: JsonObject, ctx: ServerContext) => Promise<JsonObject> {
  return async (params, ctx) => {
    const name = params.name;
    if (typeof name !== "string") throw new ProtocolError(INVALID_PARAMS, "Invalid params: name is required");
    const tool = byName.get(name);
    if (!tool) throw new ProtocolError(INVALID_PARAMS, `Unknown tool: ${name}`);
    const rawArgs = params.arguments ?? {};
    if (rawArgs === null || typeof rawArgs !== "object" || Array.isArray(rawArgs))
      throw new ProtocolError(INVALID_PARAMS, "Invalid arguments: arguments must be an object");
    const args = rawArgs as JsonObject;
    if (tool.immediate) return tool.immediate(args);
    if (tool.v2Call) return tool.v2Call(args, ctx, env);
    const spec = tool.task!;
    const data = spec.data(args);
    if (declaresTasks(ctx)) return env.taskResult(runtime.create(name, data, spec.overrides?.(args)));
    if (spec.support === "required") throw missingTasksExtension(`${name} (a task-required tool)`);
    return runInline(tool.program!, name, data, ctx.mcpReq.signal, () => missingTasksExtension(name));
  };
}

function createFactory(setup: V2Setup): () => Server {
  const { runtime, tools, log } = setup;
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  // requestState is HMAC-protected with a key kept in the store: a pending round survives a restart.
  const newKey = () => randomBytes(32).toString("hex");
  const codec = createRequestStateCodec<JsonObject>({
    key: setup.store?.secret("request-state-key", newKey) ?? newKey(),
    ttlSeconds: 3600,
  });
  const env: V2CallEnv = {
    runtime,
    mintState: (state) => codec.mint(state),
    verifyState: (state, ctx) => codec.verify(state, ctx),
    taskResult: (task) => ({ resultType: "task", ...v2Task(task) }),
  };
  const findTask = (taskId: string): TaskRecord => {
    const task = runtime.get(taskId);
    if (!task) throw new ProtocolError(INVALID_PARAMS, "Task not found (unknown or expired taskId)");
    return task;
  };
  const requireTasks = (ctx: ServerContext, method: string) => {
    if (!declaresTasks(ctx)) throw missingTasksExtension(method);
  };

  const callTool = toolCaller(byName, runtime, env);

  return () => {
    const server = new TasksServer(setup.serverInfo, {
      capabilities: { tools: {}, extensions: { [TASKS_EXTENSION]: {} } },
      instructions: setup.instructions,
    });
    server.setRequestHandler(
      "tools/list",
      async () =>
        ({
          tools: tools.map((t) => ({
            name: t.name,
            ...(t.title !== undefined && { title: t.title }),
            description: t.description,
            inputSchema: t.inputSchema,
            ...(t.outputSchema !== undefined && { outputSchema: t.outputSchema }),
          })),
        }) as never,
    );
    server.setRequestHandler(
      "tools/call",
      async (request, ctx) => (await callTool((request.params ?? {}) as JsonObject, ctx)) as never,
    );
    server.setRequestHandler("tasks/get", { params: TaskIdParams }, async (params, ctx) => {
      requireTasks(ctx, "tasks/get");
      return v2Detailed(findTask(params.taskId));
    });
    server.setRequestHandler("tasks/update", { params: TaskIdParams }, async (params, ctx) => {
      requireTasks(ctx, "tasks/update");
      const task = findTask(params.taskId);
      // The SDK lifts `inputResponses` out of every request's params and keeps only bare response objects.
      const responses = ctx.mcpReq.inputResponses;
      const dropped = ctx.mcpReq.droppedInputResponseKeys ?? [];
      if (responses === undefined && dropped.length === 0)
        throw new ProtocolError(INVALID_PARAMS, "Invalid params: tasks/update requires inputResponses");
      const { accepted, ignored } = runtime.update(task, responses ?? {});
      if (ignored.length > 0 || dropped.length > 0)
        log(
          `tasks/update ${task.taskId.slice(0, 8)}: accepted [${accepted.join(", ")}], ignored [${[...ignored, ...dropped].join(", ")}]`,
        );
      return {};
    });
    server.setRequestHandler("tasks/cancel", { params: TaskIdParams }, async (params, ctx) => {
      requireTasks(ctx, "tasks/cancel");
      runtime.cancel(findTask(params.taskId));
      return {};
    });
    return server;
  };
}

/** Wraps the stdio transport so that task subscriptions are served before the SDK sees them. */
class ListeningStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;

  constructor(
    private readonly inner: StdioServerTransport,
    private readonly hub: ListenHub,
    private readonly onEnd: () => void,
    private readonly log: (line: string) => void,
    private readonly onInbound?: (message: unknown) => void,
  ) {}

  async start(): Promise<void> {
    this.inner.onclose = () => {
      this.onclose?.();
      this.onEnd();
    };
    this.inner.onerror = (error) => this.onerror?.(error);
    this.inner.onmessage = (message) => {
      this.onInbound?.(message);
      if (this.hub.wants(message)) {
        this.hub.open(message, (m) => {
          this.inner.send(m as JSONRPCMessage).catch((error: Error) => this.log(`stdio send: ${error.message}`));
        });
        return;
      }
      const m = message as { method?: unknown; params?: { requestId?: unknown } };
      if (m.method === "notifications/cancelled" && this.hub.cancelById(m.params?.requestId)) return;
      this.onmessage?.(message);
    };
    await this.inner.start();
  }

  send(message: JSONRPCMessage, _options?: TransportSendOptions): Promise<void> {
    return this.inner.send(message);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

export async function startV2(
  transport: { transport: "stdio" } | { transport: "http"; port: number; host: "127.0.0.1" },
  setup: V2Setup,
): Promise<RunningFront> {
  const factory = createFactory(setup);
  const hub = new ListenHub(setup.runtime, v2Detailed, setup.serverInfo, setup.log);
  const onerror = (error: Error) => setup.log(`sdk: ${error.message}`);

  if (transport.transport === "stdio") {
    let ended!: () => void;
    const closed = new Promise<void>((resolve) => (ended = resolve));
    const wrapped = new ListeningStdioTransport(
      new StdioServerTransport(),
      hub,
      () => ended(),
      setup.log,
      setup.onInbound,
    );
    const handle = serveStdio(factory, { legacy: "reject", transport: wrapped, onerror });
    return {
      closed,
      close: async () => {
        hub.closeAll();
        await handle.close().catch(() => {});
        ended();
      },
    };
  }

  const handler = createMcpHandler(factory, { legacy: "reject", onerror });
  const front = await startHttpFront(
    transport.port,
    transport.host,
    async (request, parsed) => {
      if (setup.onInbound)
        for (const message of Array.isArray(parsed) ? parsed : parsed !== undefined ? [parsed] : [])
          setup.onInbound(message);
      if (
        request.method === "POST" &&
        hub.wants(parsed) &&
        request.headers.get("mcp-protocol-version")?.trim() === MODERN_VERSION &&
        request.headers.get("mcp-method")?.trim() === "subscriptions/listen"
      )
        return listenResponse(hub, parsed, request.signal);
      return handler.fetch(request, parsed !== undefined ? { parsedBody: parsed } : undefined);
    },
    setup.log,
  );
  let stopped!: () => void;
  const closed = new Promise<void>((resolve) => (stopped = resolve));
  return {
    url: front.url,
    closed,
    close: async () => {
      stopped();
      hub.closeAll();
      await new Promise((resolve) => setTimeout(resolve, 50)); // let the last listen frames go out
      await handler.close();
      await front.close();
    },
  };
}
