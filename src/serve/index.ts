// `mcp-task serve`'s MCP server, on the process's stdin and stdout (an agent spawns it): the official SDK's
// low-level Server (v1 line), so that the upstream tools' schemas pass through as sent. Loaded only by `serve`.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ElicitResultSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { Context } from "../context.js";
import { cutText, describeError, InputRequiredError } from "../errors.js";
import type { InputRequest, InputResponse, ToolInfo } from "../protocol/wire.js";
import { sanitize, sanitizeLine } from "../sanitize.js";
import { isUrlRequest, viewUrl } from "../tasks/url-elicitation.js";
import type { ServeOptions } from "./options.js";
import { BridgeTasks, type QuestionMode, type Served } from "./tasks.js";
import { listing } from "./tools.js";
import { callTool, type Bridge } from "./calls.js";
import { ContextStdio } from "./stdio.js";

/** How long a question forwarded to the agent's user may wait for the answer (a person may take a while). */
const ELICIT_TIMEOUT_MS = 60 * 60_000;

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
  let current: ReturnType<typeof listing> | undefined;

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
  const bridge: Bridge = { tasks, options, mode, list: async () => current ?? (await list()), relist: list };
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => callTool(bridge, request.params, extra));

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
