// `mcp-task list --watch`: the saved tasks, then each change as it happens (a task added, its status or message
// changed, a task removed), read from the store every LIST_WATCH_INTERVAL_MS until Ctrl-C. Each change is told once:
// the store is compared with what was last told, whichever process wrote it (a command, a broker, the dashboard).
import type { Context } from "../../context.js";
import { ExitCode } from "../../errors.js";
import { LIST_WATCH_INTERVAL_MS } from "../../limits.js";
import type { HandleView } from "../../model.js";
import { createPrinter } from "../../output/printer.js";
import { safeJson } from "../../sanitize.js";
import { viewOfSummary } from "../../tasks/views.js";
import { rowLine, shownStatus } from "../../output/list-line.js";
import { serverFilter, statusWanted, type ListOptions } from "./list-view.js";
import { Skipped } from "./skipped.js";

/** `task`: one of the tasks there at the start; then each change. */
type Change = "task" | "added" | "changed" | "removed";

/**
 * What a change is measured by: what a person or a script would act on (the status as shown, the message, being
 * gone). Not the update time: a handle is written more than once for one change (the status, then its outcome).
 */
const fingerprint = (row: HandleView) => `${shownStatus(row)}|${row.statusMessage ?? ""}|${row.gone ?? ""}`;

export async function runListWatch(options: ListOptions, ctx: Context): Promise<number> {
  const printer = createPrinter(ctx.io, false);
  const tell = (change: Change, row: HandleView, now: number) =>
    options.json
      ? ctx.io.stdout.write(`${safeJson({ type: "change", change, task: { ...row, status: shownStatus(row) } })}\n`)
      : ctx.io.stdout.write(`${change.padEnd(8)} ${rowLine(row, now)}\n`);
  let told = new Map<string, { row: HandleView; print: string }>();
  let server: string | undefined;
  for (let first = true; !ctx.interrupt.aborted; first = false) {
    const now = ctx.clock.now();
    const skipped = new Skipped();
    const all = (await ctx.tracker.store.summaries(skipped.add)).map((summary) => viewOfSummary(summary, now));
    // A server no saved task names, not saved and no URL: exit 2 at once, as without --watch.
    if (first) server = await serverFilter(options.server, all, ctx);
    const rows = all
      .filter((row) => server === undefined || row.server === server)
      .filter((row) => !options.status || statusWanted(row, options.status, now));
    const seen = new Map(rows.map((row) => [row.taskId, { row, print: fingerprint(row) }]));
    for (const [id, now_] of seen) {
      const before = told.get(id);
      if (!before) tell(first ? ("task" as Change) : "added", now_.row, now);
      else if (before.print !== now_.print) tell("changed", now_.row, now);
    }
    for (const [id, before] of told) if (!seen.has(id)) tell("removed", before.row, now);
    told = seen;
    if (first) skipped.report(printer, ctx.tracker.store.dir);
    await ctx.clock.sleep(LIST_WATCH_INTERVAL_MS, ctx.interrupt);
  }
  // Ctrl-C is how a watch ends.
  return ExitCode.ok;
}
