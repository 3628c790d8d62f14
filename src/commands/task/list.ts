// `mcp-task list`: saved handles, optionally merged with the server's tasks/list.
import { Option, type Command } from "commander";
import type { Context } from "../../context.js";
import type { Leaf } from "../command.js";
import { NoBrokerError, UsageError } from "../../errors.js";
import { createPrinter } from "../../output/printer.js";
import { roomAfter } from "../../store/safe-fs.js";
import { escapeJsonUnsafe, safeJson, sanitizeLine } from "../../sanitize.js";
import { LIST_PAGE_ROWS } from "../../limits.js";
import { sortNewestFirst } from "../../store/summaries.js";
import {
  newestFirstOrder,
  plainViewFields,
  rawView,
  VIEW_FIELD,
  type RawListing,
  type RawRows,
} from "../../store/raw-listing.js";
import { TASK_STATUSES, type TaskStatus } from "../../protocol/wire.js";
import { age, viewOfSummary } from "../../tasks/views.js";
import { asksLive, withLiveStatus } from "../../tasks/refresh.js";
import { resolveServer } from "../resolve-server.js";
import { JSON_DOCUMENT, jsonFlag, jsonOption, serverOption, withOptions } from "../options.js";
import { Skipped } from "./skipped.js";
import { runListWatch } from "./list-watch.js";
import { remoteRows, type RemoteRow } from "./list-remote.js";
import {
  LINE_SPARE_BYTES,
  putRowLine,
  remoteServer,
  rowLine,
  serverFilter,
  statusWanted,
  type ListOptions,
} from "./list-view.js";

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
 * `list --json` from rows the index holds as JSON (finished tasks: JSON.stringify's text of the same view that
 * printer.document would write), the others encoded here: one document, without an object per row.
 */
function printRawListing(raw: RawListing | undefined, now: number, ctx: Context): boolean {
  if (!raw) return false;
  const { bytes, rows, others, plain } = raw;
  const encode = plain ? safeJson : JSON.stringify;
  const encoded = others.map((summary) => encode(viewOfSummary(summary, now)));
  const order = newestFirstOrder(raw);
  if (!plain) {
    // Characters to escape may be anywhere: the rows as text, escaped as one.
    const text = (code: number) =>
      code < 0 ? encoded[-code - 1] : bytes.toString("utf8", rows.from[code], rows.to[code]);
    ctx.io.stdout.write(`[${escapeJsonUnsafe(Array.from(order, text).join(","))}]\n`);
    return true;
  }
  ctx.io.stdout.write(joinRows(bytes, rows, order, encoded));
  return true;
}

/**
 * `[row,row,...]\n` as bytes, the rows in `order` (see newestFirstOrder: n < 0 is encoded[-n-1]): the rows cut from
 * the log's bytes are moved within its memory (copyWithin: no allocation per row; 100,000 rows ~17 ms against ~40
 * for a copy into a new buffer, and ~50 for the rows as strings joined): in place when no row is to be written past
 * where it stands (the log compacted newest first, as the list is printed), or when the rows are printed in the
 * reverse of the log's order (a log appended to as tasks are saved: see reversedInPlace); else into the room after
 * the log (see readOwnFile); else they are copied into a new buffer. Either way the listing's bytes are spent.
 */
export function joinRows(bytes: Buffer, rows: RawRows, order: Int32Array, encoded: string[]): Buffer {
  // Where each row goes: in place only if none is to be written before the bytes it is cut from are read.
  const { from, to } = rows;
  let size = 1; // "["
  let inPlace = true;
  for (let i = 0; i < order.length; i++) {
    const code = order[i];
    if (i > 0) size++; // ","
    if (code < 0) size += Buffer.byteLength(encoded[-code - 1]);
    else {
      if (from[code] < size) inPlace = false;
      size += to[code] - from[code];
    }
  }
  size += 2; // "]\n"
  if (!inPlace && size <= bytes.length && reversedInPlace(bytes, rows, order, encoded, size))
    return bytes.subarray(0, size);
  // `memory` holds both the log and the output, which starts at `start` in it.
  const start = inPlace && size <= bytes.length ? 0 : roomAfter(bytes) >= size ? bytes.length : -1;
  const memory = start === -1 ? undefined : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length + start);
  const out = memory ? memory.subarray(start, start + size) : Buffer.allocUnsafe(size);
  let at = out.write("[");
  for (let i = 0; i < order.length; i++) {
    const code = order[i];
    if (i > 0) out[at++] = 0x2c; // ","
    if (code < 0) at += out.write(encoded[-code - 1], at);
    else if (memory) {
      memory.copyWithin(start + at, from[code], to[code]);
      at += to[code] - from[code];
    } else at += bytes.copy(out, at, from[code], to[code]);
  }
  out.write("]\n", at);
  return out;
}

/**
 * joinRows for a log appended to as tasks are saved (oldest first), printed newest first: its rows in the reverse of
 * the log's order (tasks created in the same millisecond kept in the log's order among themselves), with encoded
 * ones anywhere among them. Written within the log's own bytes, which the read has already brought into memory: the
 * room after them (see roomAfter) is memory touched for the first time, and on a machine where that costs ~12 µs a
 * page, writing 27 MB of output there cost ~80 ms of list --json at 100,000 rows. Only whole rows are moved, with
 * copyWithin (a loop over their bytes to turn them around cost more than the page faults at 10,000 rows):
 * - the rows are packed against the end of the log's bytes, in the log's order, each followed by a comma (each one
 *   moves right, and no row is written over one not yet moved: checked first);
 * - the output is written from the front: each run of rows (the last run packed is printed first) is copied whole,
 *   and each encoded row written; when the next one does not fit before the rows still packed, those move right
 *   into the room the copied ones left.
 * The room at the front is the lines' other bytes (their stems and stamps: a quarter of the log): a run, or an
 * encoded row, that would not fit in it, or any other order, is left to joinRows (false, nothing written).
 */
function reversedInPlace(bytes: Buffer, rows: RawRows, order: Int32Array, encoded: string[], size: number): boolean {
  const { count, from, to } = rows;
  // The rows in order must be runs of the log's order, each run just before the one printed after it: for example
  // 7 8 9, 4 5 6, 3, 0 1 2. `joined[k]`: row k+1 is printed just after row k (same run: an encoded row between them
  // ends the run, and such an order is then refused).
  const joined = new Uint8Array(count);
  let runStart = -1;
  let previous = -1;
  let runEnd = count - 1; // where the next run must end
  let widest = 0; // the longest run, with its commas
  let run = 0;
  let encodedBytes = 0; // with their commas
  let between = false; // an encoded row since the last row
  for (let i = 0; i < order.length; i++) {
    const code = order[i];
    if (code < 0) {
      encodedBytes += Buffer.byteLength(encoded[-code - 1]) + 1;
      between = true;
      continue;
    }
    const follows = !between;
    between = false;
    if (runStart !== -1 && code === previous + 1 && follows) {
      joined[previous] = 1;
      previous = code;
      run += to[code] - from[code] + 1;
      continue;
    }
    if (runStart !== -1) {
      if (previous !== runEnd) return false;
      runEnd = runStart - 1;
    }
    runStart = previous = code;
    widest = Math.max(widest, run);
    run = to[code] - from[code] + 1;
  }
  widest = Math.max(widest, run);
  if (runStart !== -1 && (previous !== runEnd || runStart !== 0)) return false;
  // Packed against the end, each row moved right, and past the end of the row before it (the rows in the log's
  // order, none yet moved): checked for every row before any is moved.
  const end = bytes.length;
  let at = end;
  for (let k = count - 1; k >= 0; k--) {
    at -= to[k] - from[k] + 1;
    if (at < from[k] || (k > 0 && to[k - 1] > from[k])) return false;
  }
  // The room at the front, less "[", less every encoded row: what is left for a run however far the output has come.
  if (widest > at - 1 - encodedBytes) return false;
  let packed = end;
  for (let k = count - 1; k >= 0; k--) {
    const length = to[k] - from[k];
    packed -= length + 1;
    bytes.copyWithin(packed, from[k], to[k]);
    bytes[packed + length] = 0x2c; // ","
  }
  // The rows still packed are [unread, unreadEnd): runs are taken from its end.
  let unread = packed;
  let unreadEnd = end;
  let out = 0;
  bytes[out++] = 0x5b; // "["
  const room = (needed: number) => {
    if (out + needed <= unread) return;
    bytes.copyWithin(end - (unreadEnd - unread), unread, unreadEnd);
    unread = end - (unreadEnd - unread);
    unreadEnd = end;
  };
  for (let i = 0; i < order.length; i++) {
    const code = order[i];
    if (code < 0) {
      const text = encoded[-code - 1];
      room(Buffer.byteLength(text) + 1);
      out += bytes.write(text, out);
      bytes[out++] = 0x2c; // ","
      continue;
    }
    let span = to[code] - from[code] + 1;
    for (let k = code; joined[k]; k++, i++) span += to[k + 1] - from[k + 1] + 1;
    room(span);
    bytes.copyWithin(out, unreadEnd - span, unreadEnd);
    out += span;
    unreadEnd -= span;
  }
  // The last comma is the closing bracket.
  bytes[out - 1] = 0x5d; // "]"
  bytes[out] = 0x0a;
  // joinRows counted the same bytes: never otherwise, but a miscount would print a cut or padded document.
  if (out + 1 !== size) throw new Error(`list --json: ${out + 1} bytes written where ${size} were counted`);
  return true;
}

/** The line under a page that leaves tasks out: how many, and how to see them. */
function more(total: number, page: number): string[] {
  if (total <= page) return [];
  return [`… and ${total - page} more (newest ${page} of ${total} shown; --all or --json for every task)`];
}

/**
 * Every row as text (`list` into a pipe, or `--all`), from the index's rows, written into one buffer as they are
 * made: a finished task's row, when it is a plain view (see plainViewFields), from the log's bytes without parsing;
 * any other's view parsed and checked as its line is made, and let go. No summary or string per row held (at
 * 100,000 rows they cost more in collections than in parsing). False where the index does not allow it, or a row is
 * not a view (then the path that reads every summary, and heals the index).
 */
function printEvery(raw: RawListing | undefined, now: number, ctx: Context): boolean {
  if (!raw) return false;
  const { bytes, plain, rows, others } = raw;
  const order = newestFirstOrder(raw);
  const at = new Int32Array(VIEW_FIELD.size);
  let out = Buffer.allocUnsafe(order.length * 128 + 1024);
  let o = 0;
  const room = (n: number) => {
    if (o + n <= out.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(out.length * 2, o + n));
    out.copy(bigger, 0, 0, o);
    out = bigger;
  };
  for (let i = 0; i < order.length; i++) {
    const code = order[i];
    if (plain && code >= 0 && plainViewFields(bytes, rows.from[code], rows.to[code], at)) {
      room(rows.to[code] - rows.from[code] + LINE_SPARE_BYTES);
      const created = bytes.toString("latin1", at[VIEW_FIELD.createdAt], at[VIEW_FIELD.createdAt + 1]);
      o = putRowLine(out, o, bytes, at, age(created, now));
      continue;
    }
    const view = code < 0 ? viewOfSummary(others[-code - 1], now) : rawView(bytes, rows.from[code], rows.to[code]);
    if (!view) return false;
    const line = `${rowLine(view, now)}\n`;
    room(Buffer.byteLength(line));
    o += out.write(line, o);
  }
  ctx.io.stdout.write(out.subarray(0, o));
  return true;
}

/** A terminal's page from the index (store.newest: only the rows shown are parsed); false where it cannot. */
function printNewest(page: number, now: number, ctx: Context, skipped: Skipped): boolean {
  const found = ctx.tracker.store.newest(page, { onBad: skipped.add });
  if (!found) return false;
  const lines = found.newest.map((summary) => rowLine(viewOfSummary(summary, now), now));
  createPrinter(ctx.io, false).document(null, () => [...lines, ...more(found.total, page)].join("\n"));
  return true;
}
