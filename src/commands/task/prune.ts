// `mcp-task prune`: drop the handles of finished, expired or lost tasks (and temp files left over).
import { Option, type Command } from "commander";
import type { Context } from "../../context.js";
import type { Leaf } from "../command.js";
import { parseDuration } from "../../duration.js";
import { createPrinter } from "../../output/printer.js";
import { summaryExpired } from "../../tasks/expiry.js";
import { withOptions } from "../options.js";
import { Skipped } from "./skipped.js";
import { printDropped } from "./forget.js";

export interface PruneOptions {
  /** Only handles last updated longer ago than this. */
  olderThanMs?: number;
  /** List what would be dropped, dropping nothing. */
  dryRun?: true;
}

export const prune: Leaf<PruneOptions, []> = {
  examples: ["mcp-task prune --older-than 7d"],
  declare: (parent: Command) =>
    withOptions(
      parent.command("prune").summary("drop the handles of finished, expired or lost tasks"),
      new Option("--older-than <duration>", "only those last updated longer ago than this"),
      new Option("--dry-run", "list what would be dropped, and drop nothing"),
    ),
  parse: (_args, flags) => ({
    olderThanMs: flags.olderThan !== undefined ? parseDuration(flags.olderThan as string, "--older-than") : undefined,
    ...(flags.dryRun ? { dryRun: true as const } : {}),
  }),
  run: (options, ctx) => runPrune(options, ctx),
  settings: false,
};

export async function runPrune(options: PruneOptions, ctx: Context): Promise<number> {
  const cutoff = options.olderThanMs !== undefined ? ctx.clock.now() - options.olderThanMs : Infinity;
  const skipped = new Skipped();
  // Decided on each handle's file, not on the index alone (see HandleStore.removeWhere).
  const dropped = await ctx.tracker.store.removeWhere(
    (summary) => (summary.final || summaryExpired(summary, ctx.clock.now())) && Date.parse(summary.updatedAt) < cutoff,
    skipped.add,
    { dryRun: options.dryRun },
  );
  printDropped(ctx, dropped);
  const printer = createPrinter(ctx.io, false);
  if (options.dryRun) printer.note(`would drop ${dropped.length} handle(s) (--dry-run: none dropped)`);
  else {
    const temps = await ctx.tracker.store.sweepTemps(ctx.clock.now());
    printer.note(`dropped ${dropped.length} handle(s)${temps ? ` and ${temps} left-over temp file(s)` : ""}`);
  }
  skipped.report(printer, ctx.tracker.store.dir);
  return 0;
}
