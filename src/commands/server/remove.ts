// `mcp-task server remove <name>`: forget a saved server, and its sign-in where no other saved server has its URL.
import type { Command } from "commander";
import type { Context } from "../../context.js";
import type { Leaf } from "../command.js";
import { UsageError } from "../../errors.js";
import { createPrinter } from "../../output/printer.js";
import { sanitizeLine } from "../../sanitize.js";

export const serverRemove: Leaf<{ name: string }, [string]> = {
  examples: ["mcp-task server remove everything"],
  declare: (parent: Command) => parent.command("remove").summary("forget a saved server").argument("<name>"),
  parse: ([name]) => ({ name }),
  run: (options, ctx) => runRemoveServer(options, ctx),
};

export async function runRemoveServer(options: { name: string }, ctx: Context): Promise<number> {
  const settings = await ctx.loadSettings();
  const descriptor = settings.server(options.name);
  if (!settings.removeServer(options.name))
    throw new UsageError(`unknown server: ${sanitizeLine(options.name)}`, "see them with: mcp-task server list");
  if (descriptor?.transport !== "http") return 0;
  // Its sign-in goes with it, unless another saved server has the same URL (the sign-in is the URL's).
  const { forgetUnusedSignIn } = await import("../../auth/forget.js");
  const out = await forgetUnusedSignIn(ctx.home, settings.servers(), descriptor.url);
  const printer = createPrinter(ctx.io, false);
  if (out.keptFor !== undefined)
    printer.note(
      `kept the sign-in for ${sanitizeLine(descriptor.url)}: server ${sanitizeLine(out.keptFor)} has the same URL`,
    );
  else if (out.forgot)
    printer.note(`forgot the sign-in of ${sanitizeLine(options.name)} (its tokens were not revoked)`);
  return 0;
}
