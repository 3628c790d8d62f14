// `mcp-task dashboard` (alias `ui`): every saved task at a glance, live. Ink is loaded only here.
import type { Command } from "commander";
import type { Context } from "../context.js";
import type { Run } from "./run.js";
import { UsageError } from "../errors.js";

export function registerDashboard(program: Command, ctx: Context, run: Run): void {
  program
    .command("dashboard")
    .alias("ui")
    .summary("a live, full-screen view of every saved task: follow, answer, cancel, start calls")
    .action(() =>
      run(async () => {
        if (!ctx.io.terminal) {
          throw new UsageError(
            "the dashboard needs a terminal (stdin and stdout a TTY, not CI)",
            "use mcp-task list, or mcp-task watch <id>",
          );
        }
        const { runDashboard } = await import("../ui/index.js");
        return runDashboard(ctx, ctx.io.terminal);
      }),
    );
}
