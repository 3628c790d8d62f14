// `mcp-task serve --print-config <client>`: the entry an agent's configuration takes to run this bridge, in that
// client's format. The command line is mcp-task as this process runs (node and its script, absolute): an agent
// started from a desktop does not see the shell's PATH. MCP_TASK_HOME goes with it when set, so that the agent's
// bridge and the person's dashboard share one home.
import type { ServeOptions } from "./options.js";

/** The configuration entry for `options.printConfig`, as JSON text. */
export function clientConfig(
  options: ServeOptions,
  ctx: { self: readonly string[]; env: Record<string, string | undefined> },
): string {
  const [command, ...lead] = ctx.self;
  const args = [
    ...lead,
    "serve",
    ...options.servers.flatMap((name) => ["-s", name]),
    ...(options.waitMs !== 25_000 ? ["--wait", `${options.waitMs}ms`] : []),
    ...(options.agentAnswers ? ["--agent-answers"] : []),
  ];
  const env = ctx.env.MCP_TASK_HOME ? { env: { MCP_TASK_HOME: ctx.env.MCP_TASK_HOME } } : {};
  const entry = { command, args, ...env };
  const name = "mcp-task";
  switch (options.printConfig) {
    case "vscode": // .vscode/mcp.json
      return JSON.stringify({ servers: { [name]: { type: "stdio", ...entry } } }, null, 2);
    case "claude-code": // .mcp.json in the project
      return JSON.stringify({ mcpServers: { [name]: { type: "stdio", ...entry } } }, null, 2);
    default: // claude_desktop_config.json; .cursor/mcp.json
      return JSON.stringify({ mcpServers: { [name]: entry } }, null, 2);
  }
}
