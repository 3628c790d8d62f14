// `mcp-task server remove <name>`: forget a saved server.
import type { Command } from "commander";
import type { Context } from "../../context.js";
import type { Leaf } from "../command.js";
import { UsageError } from "../../errors.js";
import { sanitizeLine } from "../../sanitize.js";

export const serverRemove: Leaf<{ name: string }, [string]> = {
  declare: (parent: Command) => parent.command("remove").summary("forget a saved server").argument("<name>"),
  parse: ([name]) => ({ name }),
  run: (options, ctx) => runRemoveServer(options, ctx),
};

export async function runRemoveServer(options: { name: string }, ctx: Context): Promise<number> {
  const settings = await ctx.loadSettings();
  if (!settings.removeServer(options.name))
    throw new UsageError(`unknown server: ${sanitizeLine(options.name)}`, "see them with: mcp-task server list");
  return 0;
}
