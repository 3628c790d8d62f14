// `mcp-task serve`'s MCP server, on the process's stdin and stdout (an agent spawns it): the official SDK's
// low-level Server (v1 line), so that the upstream tools' schemas pass through as sent. Loaded only by `serve`.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  CallToolRequestSchema,
  ElicitResultSchema,
  ListToolsRequestSchema,
  type JSONRPCMessage,
} from "@modelcontextprotocol/sdk/types.js";
import type { Context } from "../context.js";
import { cutText, describeError, InputRequiredError, UsageError } from "../errors.js";
import type { InputRequest, InputResponse, Progress, ToolInfo } from "../protocol/wire.js";
import { sanitize, sanitizeLine } from "../sanitize.js";
import { isUrlRequest, viewUrl } from "../tasks/url-elicitation.js";
import type { ServeOptions } from "./options.js";
import { errorResult, outcomeResult, pendingResult, questionView, statusView, type TaskToolNames } from "./replies.js";
import { BridgeTasks, type QuestionMode, type Served } from "./tasks.js";
import { listing, type Route } from "./tools.js";

/** How long a question forwarded to the agent's user may wait for the answer (a person may take a while). */
const ELICIT_TIMEOUT_MS = 60 * 60_000;
/** The most tasks task_list returns. */
const LISTED_TASKS = 50;

/** The MCP stdio framing over the context's streams (its stdout redacts the secrets this process knows). */
class ContextStdio implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private readonly buffer = new ReadBuffer();
  private closed = false;

  constructor(private readonly io: Context["io"]) {}

  async start(): Promise<void> {
    this.io.stdin.on("data", this.data);
    this.io.stdin.on("end", this.ended);
    this.io.stdin.on("close", this.ended);
    this.io.stdin.on("error", this.ended);
  }

  private readonly data = (chunk: Buffer) => {
    this.buffer.append(chunk);
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.buffer.readMessage();
      } catch (error) {
        this.onerror?.(error as Error);
        continue;
      }
      if (message === null) return;
      this.onmessage?.(message);
    }
  };

  private readonly ended = () => void this.close();

  async send(message: JSONRPCMessage): Promise<void> {
    if (!this.closed) this.io.stdout.write(serializeMessage(message));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.io.stdin.off("data", this.data);
    this.buffer.clear();
    this.onclose?.();
  }
}

/** Runs the bridge until the agent closes its end (or Ctrl-C); exit 0. */
export async function runBridge(options: ServeOptions, ctx: Context): Promise<number> {
  const settings = await ctx.loadSettings();
  const servers: Served[] = options.servers.map((name) => ({ name, descriptor: settings.server(name)! }));
  for (const server of servers) await ctx.secrets.learn(server.descriptor);
  const server = new Server(
    { name: "mcp-task", version: "0.1.0" },
    {
      capabilities: { tools: {} },
      instructions:
        "Tools of long-running servers, run as tasks by mcp-task: a call that does not end soon replies with its task id; come back for it with the task tools.",
    },
  );
  const mode = (): QuestionMode =>
    server.getClientCapabilities()?.elicitation ? "elicit" : options.agentAnswers ? "agent" : "person";
  const tasks = new BridgeTasks(
    ctx,
    servers,
    { mode, elicit: (request, signal) => elicit(server, request, signal) },
    options.agentAnswers,
  );
  let current: { routes: Map<string, Route>; names: TaskToolNames } | undefined;

  const list = async () => {
    const served = await Promise.all(
      servers.map(async (s) => {
        try {
          return { server: s, tools: await (await tasks.link(s)).engine.listTools() };
        } catch (error) {
          ctx.io.stderr.write(
            `mcp-task serve: ${s.name}: its tools cannot be listed: ${describeError(error).message}\n`,
          );
          return { server: s, tools: [] as ToolInfo[] };
        }
      }),
    );
    const listed = listing(served, options);
    current = listed;
    return listed;
  };

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: (await list()).tools }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { routes, names } = current ?? (await list());
    const route = routes.get(request.params.name) ?? (await list()).routes.get(request.params.name);
    if (!route) return errorResult(new UsageError(`no tool ${sanitizeLine(request.params.name)} here`));
    const token = request.params._meta?.progressToken;
    const progress =
      token === undefined
        ? undefined
        : (p: Progress) =>
            void extra
              .sendNotification({
                method: "notifications/progress",
                params: {
                  progressToken: token,
                  progress: p.progress,
                  ...(p.total !== undefined && { total: p.total }),
                  ...(p.message !== undefined && { message: cutText(sanitizeLine(p.message)) }),
                },
              })
              .catch(() => {});
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    const agentAnswers = options.agentAnswers;
    try {
      if (route.kind === "upstream") {
        const started = await tasks.call(route.server, route.tool, args, { signal: extra.signal, progress });
        if (started.kind === "result") return outcomeResult(started.outcome);
        const { task } = started;
        if (progress) task.listeners.add(progress);
        try {
          if (await tasks.waitFor(task, options.waitMs, extra.signal)) return outcomeResult(task.outcome!);
        } finally {
          if (progress) task.listeners.delete(progress);
        }
        return pendingResult(task, mode(), agentAnswers, names, options.waitMs);
      }
      if (route.which === "list") {
        const listed = await tasks.list(LISTED_TASKS);
        return {
          content: [{ type: "text", text: JSON.stringify(listed) }],
          structuredContent: { tasks: listed },
        };
      }
      const taskId = args.taskId;
      if (typeof taskId !== "string" || taskId === "") throw new UsageError("taskId: a task id is required");
      const task = await tasks.task(taskId);
      switch (route.which) {
        case "status": {
          const view = statusView(task, mode(), agentAnswers, names);
          return { content: [{ type: "text", text: JSON.stringify(view) }], structuredContent: view };
        }
        case "result": {
          const asked = typeof args.waitSeconds === "number" ? args.waitSeconds * 1000 : options.waitMs;
          const waitMs = Math.max(0, Math.min(asked, options.waitMs));
          if (progress) task.listeners.add(progress);
          try {
            if (await tasks.waitFor(task, waitMs, extra.signal)) return outcomeResult(task.outcome!);
          } finally {
            if (progress) task.listeners.delete(progress);
          }
          return pendingResult(task, mode(), agentAnswers, names, waitMs);
        }
        case "cancel": {
          const reported = await tasks.cancel(task);
          const view = {
            ...statusView(task, mode(), agentAnswers, names),
            ...(reported ? {} : { alreadyEnded: true }),
          };
          return { content: [{ type: "text", text: JSON.stringify(view) }], structuredContent: view };
        }
        case "answer": {
          const response = answerOf(args);
          const question = await tasks.answerQuestion(
            task,
            typeof args.key === "string" ? args.key : undefined,
            response,
          );
          const view = { taskId: task.taskId, answered: questionView(question), action: response.action };
          return { content: [{ type: "text", text: JSON.stringify(view) }], structuredContent: view };
        }
      }
    } catch (error) {
      return errorResult(error);
    }
  });

  const transport = new ContextStdio(ctx.io);
  await server.connect(transport);
  // The SDK's Server sets onclose on connect: chained, so that the end of the agent's stream ends the bridge.
  const theirs = transport.onclose;
  const done = new Promise<void>((resolve) => {
    transport.onclose = () => {
      theirs?.();
      resolve();
    };
    ctx.interrupt.addEventListener("abort", () => resolve(), { once: true });
  });
  await done;
  await tasks.close();
  await server.close().catch(() => {});
  return 0;
}

/** task_answer's arguments as an answer. */
function answerOf(args: Record<string, unknown>): InputResponse {
  if (args.action === "decline" || args.action === "cancel") return { action: args.action };
  if (args.action !== "accept") throw new UsageError("action: one of accept, decline, cancel");
  const content = args.content ?? {};
  if (typeof content !== "object" || content === null || Array.isArray(content))
    throw new UsageError("content: an object (the answer to the question's requestedSchema)");
  return { action: "accept", content: content as Record<string, unknown> };
}

/**
 * A task's question forwarded to the agent's client (it declared elicitation), made safe as everywhere: the message
 * sanitized and bounded, a URL only where src/secure-url.ts's rule lets it be opened. One the client cannot take
 * (a URL where it declared forms only, a request that is not an elicitation) is refused (InputRequiredError).
 */
async function elicit(server: Server, request: InputRequest, signal?: AbortSignal): Promise<InputResponse> {
  const declared = server.getClientCapabilities()?.elicitation as Record<string, unknown> | undefined;
  const message = typeof request.params.message === "string" ? cutText(sanitize(request.params.message)) : "";
  const options = { signal, timeout: ELICIT_TIMEOUT_MS };
  if (request.method !== "elicitation/create")
    throw new InputRequiredError(`the task asks for a ${sanitizeLine(request.method)}, which the agent cannot answer`);
  if (isUrlRequest(request)) {
    const view = viewUrl(request.params.url);
    if (!declared?.url || !view.openable)
      throw new InputRequiredError(
        declared?.url ? `the task's page is not opened: ${view.warnings.join("; ")}` : "the agent takes no web pages",
      );
    const params = {
      mode: "url" as const,
      message,
      url: view.href,
      elicitationId: String(request.params.elicitationId),
    };
    const result = await server.request({ method: "elicitation/create", params }, ElicitResultSchema, options);
    return result.action === "accept" ? { action: "accept", content: {} } : { action: result.action };
  }
  const params = { message, requestedSchema: request.params.requestedSchema as never };
  const result = await server.request({ method: "elicitation/create", params }, ElicitResultSchema, options);
  return result.action === "accept"
    ? { action: "accept", content: (result.content ?? {}) as Record<string, unknown> }
    : { action: result.action };
}
