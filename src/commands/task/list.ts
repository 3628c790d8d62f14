// `mcp-task list`: saved handles, optionally merged with the server's tasks/list.
import { Option, type Command } from "commander";
import type { Context } from "../../context.js";
import type { Leaf } from "../command.js";
import { NoBrokerError, UsageError } from "../../errors.js";
import { createPrinter } from "../../output/printer.js";
import { everyLine, jsonListing } from "../../output/list-bytes.js";
import { rowLine } from "../../output/list-line.js";
import { sanitizeLine } from "../../sanitize.js";
import { LIST_PAGE_ROWS } from "../../limits.js";
import { sortNewestFirst } from "../../store/summaries.js";
import type { RawListing } from "../../store/raw-listing.js";
import { TASK_STATUSES, type TaskStatus } from "../../protocol/wire.js";
import { viewOfSummary } from "../../tasks/views.js";
import { asksLive, withLiveStatus } from "../../tasks/refresh.js";
import { JSON_DOCUMENT, jsonFlag, jsonOption, serverOption, withOptions } from "../options.js";
import { Skipped } from "./skipped.js";
import { runListWatch } from "./list-watch.js";
import { remoteRows, type RemoteRow } from "./list-remote.js";
import { remoteServer, serverFilter, statusWanted, type ListOptions } from "./list-view.js";

export const list: Leaf<ListOptions, []> = {
  examples: ["mcp-task list --status working,input_required", "mcp-task list -s everything --json"],
  declare: (parent: Command) =>
    withOptions(
      parent.command("list").summary("list saved tasks (and, with --remote, the server's own list)"),
      serverOption("only tasks of this server"),
      new Option("--status <s,...>", `only these statuses (${TASK_STATUSES.join(", ")}, expired, gone)`),
      new Option("--remote", "add the server's tasks/list (2025-11-25 servers that offer it)"),
      new Option("--watch", "then print each change (added, changed, removed) as it happens, until Ctrl-C"),
      new Option(
        "--all",
        `on a terminal too, every task (else its newest ${LIST_PAGE_ROWS} and the count of the rest)`,
      ),
      jsonOption(`${JSON_DOCUMENT}; with --watch, one JSON line per task, then per change`),
    ),
  parse: (_args, flags) => {
    const status = (flags.status as string | undefined)
      ?.split(",")
      .map((s) => s.trim())
      .filter(Boolean);
    for (const wanted of status ?? []) {
      if (wanted !== "expired" && wanted !== "gone" && !TASK_STATUSES.includes(wanted as TaskStatus))
        throw new UsageError(`unknown status: ${wanted}`, `use ${TASK_STATUSES.join(", ")}, expired or gone`);
    }
    if (flags.watch && flags.remote) throw new UsageError("--watch follows the saved tasks: it takes no --remote");
    return {
      server: flags.server as string | undefined,
      status,
      remote: Boolean(flags.remote),
      watch: Boolean(flags.watch),
      json: jsonFlag(flags),
      all: Boolean(flags.all),
    };
  },
  run: (options, ctx) => (options.watch ? runListWatch(options, ctx) : runList(options, ctx)),
  settings: false,
};

export async function runList(options: ListOptions, ctx: Context): Promise<number> {
  const now = ctx.clock.now();
  // A page on a terminal, unless --all: the newest rows, and how many more there are.
  const page = !options.json && !options.all && ctx.io.stdoutIsTTY ? LIST_PAGE_ROWS : Infinity;
  if (!options.status && options.server === undefined && !options.remote) {
    const skipped = new Skipped();
    const store = ctx.tracker.store;
    const done = options.json
      ? printRawListing(store.rawListing(skipped.add), now, ctx)
      : page === Infinity
        ? printEvery(store.rawListing(skipped.add, "parsed"), now, ctx)
        : printNewest(page, now, ctx, skipped);
    if (done) {
      skipped.report(createPrinter(ctx.io, false), store.dir);
      return 0;
    }
  }
  const wanted = options.status;
  if (options.server !== undefined || options.remote) await ctx.loadSettings();
  const skipped = new Skipped();
  let summaries = await ctx.tracker.store.summaries(skipped.add);
  let rows: RemoteRow[] = summaries.map((summary) => viewOfSummary(summary, now));
  const server = options.remote ? await remoteServer(options.server, rows, ctx) : undefined;
  const serverName = server ? server.name : await serverFilter(options.server, rows, ctx);
  // A filter on live status: the unfinished tasks are read again first (bounded), not taken from old handles.
  if (asksLive(wanted)) {
    const note = (text: string) => createPrinter(ctx.io, false).note(text);
    summaries = await withLiveStatus(summaries, serverName, ctx.tracker.store, ctx, note);
    rows = summaries.map((summary) => viewOfSummary(summary, ctx.clock.now()));
  }
  if (serverName !== undefined) rows = rows.filter((row) => row.server === serverName);
  // A stdio server's tasks are those of the process its broker runs (a fresh one would know none): none running, the
  // saved handles are all there is, and a note says why.
  const wire =
    options.remote && server
      ? await ctx.connect(server.descriptor, server.name, { held: true }).catch((error: unknown) => {
          if (!(error instanceof NoBrokerError)) throw error;
          const name = sanitizeLine(server.name);
          createPrinter(ctx.io, false).note(
            `no broker runs for ${name}, so no server holds its tasks: the saved ones only`,
          );
          return undefined;
        })
      : undefined;
  let cut: Error | undefined;
  if (wire && server) {
    try {
      const remote = await remoteRows(wire, server.name, new Set(rows.map((row) => row.taskId)));
      for (const row of remote.rows) rows.push(row);
      cut = remote.cut;
    } finally {
      await wire.close();
    }
  }
  // A task past its ttl or lost shows as `expired` or `gone`, whatever status it last had: filtered as shown.
  if (wanted) rows = rows.filter((row) => statusWanted(row, wanted, now));
  sortNewestFirst(rows);
  if (rows.length === 0 && !options.json) nothingMatched(options, ctx);
  const printer = createPrinter(ctx.io, options.json);
  printer.document(rows, () =>
    [...rows.slice(0, page).map((row) => rowLine(row, now)), ...more(rows.length, page)].join("\n"),
  );
  // On stderr in --json mode too (whose printer keeps notes off stdout's one document): the user must hear of it.
  skipped.report(createPrinter(ctx.io, false), ctx.tracker.store.dir);
  // The server's list read in part: said after what was read, as the command's error.
  if (cut) throw cut;
  return 0;
}

/**
 * A list with no row says so on stderr (text only: --json's document stays the empty list): with no filter, how to
 * start a task; with one, which filter matched nothing.
 */
function nothingMatched(options: Pick<ListOptions, "status" | "server" | "remote">, ctx: Context): void {
  const filters = [
    ...(options.status ? [`--status ${options.status.join(",")}`] : []),
    ...(options.server !== undefined ? [`-s ${sanitizeLine(options.server)}`] : []),
    ...(options.remote ? ["--remote"] : []),
  ];
  createPrinter(ctx.io, false).note(
    filters.length
      ? `no task matches ${filters.join(" ")}`
      : "no tasks saved yet: start one with mcp-task call <tool> -s <server>, or see one with mcp-task demo",
  );
}

/** `list --json` from the index's rows (see jsonListing); false where the index does not allow it. */
function printRawListing(raw: RawListing | undefined, now: number, ctx: Context): boolean {
  if (!raw) return false;
  ctx.io.stdout.write(jsonListing(raw, now));
  return true;
}

/** The line under a page that leaves tasks out: how many, and how to see them. */
function more(total: number, page: number): string[] {
  if (total <= page) return [];
  return [`… and ${total - page} more (newest ${page} of ${total} shown; --all or --json for every task)`];
}

/** Every row as text (`list` into a pipe, or `--all`) from the index's rows (see everyLine); false where it cannot. */
function printEvery(raw: RawListing | undefined, now: number, ctx: Context): boolean {
  const out = raw && everyLine(raw, now);
  if (!out) return false;
  ctx.io.stdout.write(out);
  return true;
}

/** A terminal's page from the index (store.newest: only the rows shown are parsed); false where it cannot. */
function printNewest(page: number, now: number, ctx: Context, skipped: Skipped): boolean {
  const found = ctx.tracker.store.newest(page, { onBad: skipped.add });
  if (!found) return false;
  if (found.total === 0) nothingMatched({ remote: false }, ctx);
  const lines = found.newest.map((summary) => rowLine(viewOfSummary(summary, now), now));
  createPrinter(ctx.io, false).document(null, () => [...lines, ...more(found.total, page)].join("\n"));
  return true;
}
