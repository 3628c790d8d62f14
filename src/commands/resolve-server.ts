// Which server a command talks to: `--stdio`, `-s <name|url>`, the default server, MCP_TASK_SERVER.
import type { Context } from "../context.js";
import { UsageError } from "../errors.js";
import { httpDescriptor, parseCommandLine, type ServerDescriptor } from "../protocol/server.js";
import type { ServerFlags } from "./options.js";

export interface ResolvedServer {
  name: string;
  descriptor: ServerDescriptor;
}

/** `--stdio`, `-s <name|url>`, else the default server, else MCP_TASK_SERVER. */
export async function resolveServer(options: ServerFlags, ctx: Context): Promise<ResolvedServer> {
  if (options.stdio !== undefined) {
    if (options.server !== undefined) throw new UsageError("give either --server or --stdio, not both");
    const { command, args } = parseCommandLine(options.stdio);
    return { name: [command, ...args].join(" "), descriptor: { transport: "stdio", command, args } };
  }
  const settings = await ctx.loadSettings();
  const wanted = options.server ?? settings.defaultServer() ?? ctx.env.MCP_TASK_SERVER;
  if (!wanted) {
    throw new UsageError(
      "no server given",
      'pass -s <name|url> or --stdio "<command>", or set a default with: mcp-task server use <name>',
    );
  }
  if (/^https?:\/\//i.test(wanted)) return { name: wanted, descriptor: httpDescriptor(wanted) };
  const saved = settings.server(wanted);
  if (!saved) {
    const known = Object.keys(settings.servers());
    throw new UsageError(
      `unknown server: ${wanted}`,
      known.length ? `known servers: ${known.join(", ")}` : "add one with: mcp-task server add <name> --url <url>",
    );
  }
  return { name: wanted, descriptor: saved };
}
