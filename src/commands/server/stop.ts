// `mcp-task server stop <name>`: stop a server's broker (and so the stdio server; its running tasks end). A broker
// holding questions (V1 hands each over once, to the broker that keeps the task's session) drops them as it stops:
// said first, and asked on a terminal (--force: not asked); without a terminal it stops with the warning. The
// broker marks those tasks' handles, so that a later respond or watch says at once why the question cannot come.
import { Option, type Command } from "commander";
import type { Context } from "../../context.js";
import type { Leaf } from "../command.js";
import { UsageError } from "../../errors.js";
import { createPrinter } from "../../output/printer.js";
import { sanitizeLine, shellValue, shellWord } from "../../sanitize.js";
import { confirm } from "../../ask/line-prompt.js";

export interface StopOptions {
  name: string;
  /** Stop without asking, even where questions held there would be dropped. */
  force: boolean;
}

export const serverStop: Leaf<StopOptions, [string]> = {
  examples: ["mcp-task server stop everything", "mcp-task server stop everything --force"],
  declare: (parent: Command) =>
    parent
      .command("stop")
      .summary("stop a server's broker (and so the stdio server; its running tasks end)")
      .argument("<name>", "saved server name, or the command line shown by server ps")
      .addOption(new Option("-f, --force", "stop without asking, even if it holds questions it would drop")),
  parse: ([name], flags) => ({ name, force: Boolean(flags.force) }),
  run: (options, ctx) => runStop(options, ctx),
};

export async function runStop(options: StopOptions, ctx: Context): Promise<number> {
  const { listBrokers, stopBroker } = await import("../../broker/client.js");
  const matches = (await listBrokers(ctx.home)).filter((b) => b.name === options.name);
  if (matches.length === 0)
    throw new UsageError(`no broker runs for ${sanitizeLine(options.name)}`, "see them with: mcp-task server ps");
  const printer = createPrinter(ctx.io, false);
  const held = [...new Set(matches.flatMap((broker) => broker.held ?? []))];
  if (held.length > 0) {
    const ids = held.map((id) => sanitizeLine(id)).join(", ");
    const dropping =
      `${sanitizeLine(options.name)} holds ${held.length === 1 ? "a question" : "questions"} for task(s) ${ids}: ` +
      "stopping it drops them (a 2025-11-25 server hands a question over once), and nobody can answer them after";
    if (ctx.io.interactive && !options.force && !(await confirm(ctx.io, `mcp-task: ${dropping}. Stop it?`)))
      throw new UsageError(
        `not stopped: ${dropping}`,
        `answer first with: mcp-task respond ${shellWord(held[0])}; or stop it anyway with: mcp-task server stop ${shellValue(options.name)} --force`,
      );
    if (!ctx.io.interactive || options.force)
      printer.note(
        `warning: ${dropping}; cancel ${held.length === 1 ? "it" : "each"} with: ${held.map((id) => `mcp-task cancel ${shellWord(id)}`).join("; ")}`,
      );
  }
  let stopped = 0;
  for (const broker of matches) if (await stopBroker(ctx.home, broker.key, ctx.clock)) stopped++;
  if (stopped === 0)
    throw new UsageError(`no broker of ${sanitizeLine(options.name)} answered`, "see them with: mcp-task server ps");
  printer.note(`stopped ${stopped} broker(s) of ${sanitizeLine(options.name)}`);
  return 0;
}
