// `mcp-task server use <name>`: make a saved server the default.
import type { Command } from "commander";
import type { Context } from "../../context.js";
import type { Leaf } from "../command.js";
import { UsageError } from "../../errors.js";
import { sanitizeLine } from "../../sanitize.js";

export const serverUse: Leaf<{ name: string }, [string]> = {
  examples: ["mcp-task server use everything"],
  declare: (parent: Command) => parent.command("use").summary("make a saved server the default").argument("<name>"),
  parse: ([name]) => ({ name }),
  run: (options, ctx) => runUseServer(options, ctx),
};

export async function runUseServer(options: { name: string }, ctx: Context): Promise<number> {
  const settings = await ctx.loadSettings();
  if (!settings.server(options.name))
    throw new UsageError(`unknown server: ${sanitizeLine(options.name)}`, "see them with: mcp-task server list");
  settings.setDefaultServer(options.name);
  return 0;
}
