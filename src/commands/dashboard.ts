// `mcp-task dashboard` (alias `ui`): every saved task at a glance, live. Ink is loaded only here.
import type { Command } from "commander";
import type { Context } from "../context.js";
import type { Leaf } from "./command.js";
import { UsageError } from "../errors.js";

export const dashboard: Leaf<Record<string, never>, []> = {
  examples: ["mcp-task dashboard"],
  declare: (parent: Command) =>
    parent
      .command("dashboard")
      .alias("ui")
      .summary("a live, full-screen view of every saved task: follow, answer, cancel, start calls"),
  parse: () => ({}),
  run: (_options, ctx) => runDashboard(ctx),
};

async function runDashboard(ctx: Context): Promise<number> {
  if (!ctx.io.terminal) {
    throw new UsageError(
      "the dashboard needs a terminal (stdin and stdout a TTY, not CI)",
      "use mcp-task list, or mcp-task watch <id>",
    );
  }
  if (ctx.trace === "-")
    throw new UsageError(
      "the dashboard draws on the terminal: a trace cannot go to stderr",
      "trace to a file: mcp-task dashboard --trace=wire.ndjson",
    );
  ctx.longRun?.();
  // It shows the tasks of every server (their messages, results): each saved server's secrets are redacted from it.
  await ctx.secrets.learnSaved();
  const { runDashboard } = await import("../ui/index.js");
  return runDashboard(ctx, ctx.io.terminal);
}
