// `mcp-task list` (saved handles, optionally merged with the server's tasks/list), `forget` and `prune`.
import type { Command } from "commander";
import type { Context } from "../context.js";
import type { Run } from "./run.js";
import { UsageError } from "../errors.js";
import { createPrinter } from "../output/printer.js";
import { sanitizeLine } from "../output/sanitize.js";
import { TASK_STATUSES, type TaskStatus } from "../protocol/wire.js";
import { summaryExpired } from "../tasks/tracker.js";
import { age, viewOfSummary, type HandleView } from "../tasks/views.js";
import { parseDuration, PICK_SERVER, resolveServer } from "./common.js";

export function registerList(program: Command, ctx: Context, run: Run): void {
  program
    .command("list")
    .summary("list saved tasks (and, with --remote, the server's own list)")
    .option("-s, --server <name|url>", "only tasks of this server")
    .option("--status <s,...>", `only these statuses (${TASK_STATUSES.join(", ")}, expired, gone)`)
    .option("--remote", "add the server's tasks/list (2025-11-25 servers that offer it)")
    .option("--json", "one JSON document")
    .action((flags: { server?: string; status?: string; remote?: boolean; json?: boolean }) =>
      run(() => runList(flags, ctx), { settings: false }),
    );
  program
    .command("forget")
    .summary("drop saved task handles (the tasks themselves are not touched)")
    .argument("<id...>", "task ids or unique prefixes")
    .option(...PICK_SERVER)
    .action((ids: string[], flags: { server?: string }) =>
      run(
        async () => {
          for (const id of ids) {
            const { stem } = await ctx.tracker.store.find(id, flags.server);
            await ctx.tracker.store.remove(stem);
          }
          return 0;
        },
        { settings: false },
      ),
    );
  program
    .command("prune")
    .summary("drop the handles of finished, expired or lost tasks")
    .option("--older-than <duration>", "only those last updated longer ago than this")
    .action((flags: { olderThan?: string }) =>
      run(
        async () => {
          const cutoff =
            flags.olderThan !== undefined ? ctx.clock.now() - parseDuration(flags.olderThan, "--older-than") : Infinity;
          const skipped = new Skipped();
          // Decided on each handle's file, not on the index alone (see HandleStore.removeWhere).
          const dropped = await ctx.tracker.store.removeWhere(
            (summary) =>
              (summary.final || summaryExpired(summary, ctx.clock.now())) && Date.parse(summary.updatedAt) < cutoff,
            skipped.add,
          );
          const temps = await ctx.tracker.store.sweepTemps(ctx.clock.now());
          const printer = createPrinter(ctx.io, false);
          printer.note(`dropped ${dropped} handle(s)${temps ? ` and ${temps} left-over temp file(s)` : ""}`);
          skipped.report(printer, ctx.tracker.store.dir);
          return 0;
        },
        { settings: false },
      ),
    );
}

async function runList(
  flags: { server?: string; status?: string; remote?: boolean; json?: boolean },
  ctx: Context,
): Promise<number> {
  const now = ctx.clock.now();
  const wanted = flags.status
    ?.split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  for (const status of wanted ?? []) {
    if (status !== "expired" && status !== "gone" && !TASK_STATUSES.includes(status as TaskStatus))
      throw new UsageError(`unknown status: ${status}`, `use ${TASK_STATUSES.join(", ")}, expired or gone`);
  }
  const server =
    flags.server !== undefined || flags.remote ? await resolveServer({ server: flags.server }, ctx) : undefined;
  const skipped = new Skipped();
  let rows: Array<HandleView & { remoteOnly?: boolean }> = (await ctx.tracker.store.summaries(skipped.add)).map(
    (summary) => viewOfSummary(summary, now),
  );
  if (server) rows = rows.filter((row) => row.server === server.name);
  if (flags.remote && server) {
    const wire = await ctx.connect(server.descriptor, server.name);
    try {
      const known = new Set(rows.map((row) => row.taskId));
      for (let cursor: string | undefined, pages = 0; pages < 100; pages++) {
        const page = await wire.listTasks(cursor);
        for (const task of page.tasks) {
          if (known.has(task.taskId)) continue;
          rows.push({
            taskId: task.taskId,
            server: server.name,
            tool: "?",
            generation: wire.generation,
            status: task.status,
            statusMessage: task.statusMessage ?? null,
            createdAt: task.createdAt ?? "",
            updatedAt: task.lastUpdatedAt ?? "",
            ttlMs: task.ttlMs ?? null,
            pollIntervalMs: task.pollIntervalMs ?? null,
            expired: false,
            gone: null,
            remoteOnly: true,
          });
        }
        if (!(cursor = page.nextCursor)) break;
      }
    } finally {
      await wire.close();
    }
  }
  // A task past its ttl or lost shows as `expired` or `gone`, whatever status it last had: filtered as shown.
  if (wanted)
    rows = rows.filter((row) => wanted.includes(shownStatus(row)) || (row.expired && wanted.includes("expired")));
  rows.sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0)); // ISO times: plain comparison, ~10x cheaper than localeCompare
  const printer = createPrinter(ctx.io, Boolean(flags.json));
  printer.document(rows, () =>
    rows
      .map((row) => {
        const status = shownStatus(row);
        const message = row.statusMessage ? `  ${sanitizeLine(row.statusMessage).slice(0, 60)}` : "";
        return `${sanitizeLine(row.taskId).padEnd(36)}  ${status.padEnd(14)} ${age(row.createdAt, now).padStart(4)}  ${sanitizeLine(row.tool)} @ ${sanitizeLine(row.server)}${row.remoteOnly ? " (server only)" : ""}${message}`;
      })
      .join("\n"),
  );
  // On stderr in --json mode too (whose printer keeps notes off stdout's one document): the user must hear of it.
  skipped.report(createPrinter(ctx.io, false), ctx.tracker.store.dir);
  return 0;
}

/** The status a row shows: `gone` (the server lost it), `expired` (past its ttl, not known finished), else its own. */
function shownStatus(row: HandleView): string {
  return row.gone ? "gone" : row.expired ? "expired" : row.status;
}

/** The handle files a listing skipped, reported in one line that names them (the first few) and says why. */
class Skipped {
  private readonly files: Array<{ file: string; reason: string }> = [];
  readonly add = (file: string, reason: string): void => void this.files.push({ file, reason });

  report(printer: { note(text: string): void }, dir: string): void {
    const n = this.files.length;
    if (n === 0) return;
    this.files.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0)); // the same line whatever the directory's order
    const named = this.files
      .slice(0, 3)
      .map(({ file, reason }) => `${sanitizeLine(file)} (${reason})`)
      .join(", ");
    printer.note(
      `skipped ${n === 1 ? "a file" : `${n} files`} in ${sanitizeLine(dir)} that ${n === 1 ? "is" : "are"} not a readable task handle: ${named}${n > 3 ? `, and ${n - 3} more` : ""}`,
    );
  }
}
