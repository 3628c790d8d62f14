// Which server a command talks to: `--stdio`, `-s <name|url>`, the default server, MCP_TASK_SERVER.
import type { Context } from "../context.js";
import { UsageError } from "../errors.js";
import { shellValue } from "../sanitize.js";
import { httpDescriptor, parseCommandLine, type ServerDescriptor } from "../protocol/server.js";
import type { ServerFlags } from "./options.js";

export interface ResolvedServer {
  name: string;
  descriptor: ServerDescriptor;
  /**
   * The server option as it was given, for a hint's next command to repeat (`--stdio '<line>'`, `-s <name|url>`),
   * or "" when the server came from the default or MCP_TASK_SERVER (the next command finds it the same way).
   */
  option: string;
}

/**
 * A stdio command line typed here: it runs in the folder it was typed in (the same relative line in another folder
 * is another server: another broker, another verdict).
 */
export function typedStdio(line: string, ctx: Pick<Context, "cwd">): Extract<ServerDescriptor, { transport: "stdio" }> {
  const { command, args } = parseCommandLine(line);
  return { transport: "stdio", command, args, ...(ctx.cwd !== undefined ? { cwd: ctx.cwd } : {}) };
}

/** `--stdio`, `-s <name|url>`, else the default server, else MCP_TASK_SERVER. */
export async function resolveServer(options: ServerFlags, ctx: Context): Promise<ResolvedServer> {
  if (options.stdio !== undefined) {
    if (options.server !== undefined) throw new UsageError("give either --server or --stdio, not both");
    const descriptor = typedStdio(options.stdio, ctx);
    return {
      name: [descriptor.command, ...descriptor.args].join(" "),
      descriptor,
      option: `--stdio ${shellValue(options.stdio)}`,
    };
  }
  const settings = await ctx.loadSettings();
  const wanted = options.server ?? settings.defaultServer() ?? ctx.env.MCP_TASK_SERVER;
  if (!wanted) {
    throw new UsageError(
      "no server given",
      'pass -s <name|url> or --stdio "<command>", or set a default with: mcp-task server use <name>',
    );
  }
  const option = options.server !== undefined ? `-s ${shellValue(options.server)}` : "";
  if (/^https?:\/\//i.test(wanted)) return { name: wanted, descriptor: httpDescriptor(wanted), option };
  const saved = settings.server(wanted);
  if (!saved) {
    const known = Object.keys(settings.servers());
    throw new UsageError(
      `unknown server: ${wanted}`,
      known.length ? `known servers: ${known.join(", ")}` : "add one with: mcp-task server add <name> --url <url>",
    );
  }
  return { name: wanted, descriptor: saved, option };
}
