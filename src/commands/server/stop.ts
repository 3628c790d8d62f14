// `mcp-task server stop <name>`: stop a server's broker (and so the stdio server; its running tasks end).
import type { Command } from "commander";
import type { Context } from "../../context.js";
import type { Leaf } from "../command.js";
import { UsageError } from "../../errors.js";
import { createPrinter } from "../../output/printer.js";
import { sanitizeLine } from "../../sanitize.js";

export const serverStop: Leaf<{ name: string }, [string]> = {
  declare: (parent: Command) =>
    parent
      .command("stop")
      .summary("stop a server's broker (and so the stdio server; its running tasks end)")
      .argument("<name>", "saved server name, or the command line shown by server ps"),
  parse: ([name]) => ({ name }),
  run: (options, ctx) => runStop(options, ctx),
};

export async function runStop(options: { name: string }, ctx: Context): Promise<number> {
  const { listBrokers, stopBroker } = await import("../../broker/client.js");
  const matches = (await listBrokers(ctx.home)).filter((b) => b.name === options.name);
  if (matches.length === 0)
    throw new UsageError(`no broker runs for ${sanitizeLine(options.name)}`, "see them with: mcp-task server ps");
  let stopped = 0;
  for (const broker of matches) if (await stopBroker(ctx.home, broker.key)) stopped++;
  if (stopped === 0)
    throw new UsageError(`no broker of ${sanitizeLine(options.name)} answered`, "see them with: mcp-task server ps");
  createPrinter(ctx.io, false).note(`stopped ${stopped} broker(s) of ${sanitizeLine(options.name)}`);
  return 0;
}
