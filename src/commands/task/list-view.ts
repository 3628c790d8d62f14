// What `list` is asked for, and how it shows a task: one line, its status as shown (`gone`, `expired`, else its own).
import type { Context } from "../../context.js";
import type { HandleView } from "../../model.js";
import { sanitizeLine } from "../../sanitize.js";
import { age } from "../../tasks/views.js";
import { ttlEnd } from "../../tasks/expiry.js";
import type { ServerDescriptor } from "../../protocol/server.js";
import { resolveServer } from "../resolve-server.js";
import { VIEW_FIELD } from "../../store/raw-listing.js";

export interface ListOptions {
  server?: string;
  /** Only these statuses (a task status, `expired` or `gone`). */
  status?: string[];
  remote: boolean;
  /** Go on after the list: a line (or JSON line) for each change, until Ctrl-C. */
  watch: boolean;
  json: boolean;
  /** Every task on a terminal too (else the newest LIST_PAGE_ROWS there). */
  all: boolean;
}

// A line's columns, for rowLine and putRowLine alike (their lines are the same bytes).
const ID_COLUMNS = 36;
const STATUS_COLUMNS = 14;
const AGE_COLUMNS = 4;
/** The most of a status message a line shows. */
const MESSAGE_CHARS = 60;

/** One task as a line of the list. */
export function rowLine(row: HandleView & { remoteOnly?: boolean }, now: number): string {
  const message = row.statusMessage ? `  ${sanitizeLine(row.statusMessage).slice(0, MESSAGE_CHARS)}` : "";
  return `${sanitizeLine(row.taskId).padEnd(ID_COLUMNS)}  ${shownStatus(row).padEnd(STATUS_COLUMNS)} ${age(row.createdAt, now).padStart(AGE_COLUMNS)}  ${sanitizeLine(row.tool)} @ ${sanitizeLine(row.server)}${row.remoteOnly ? " (server only)" : ""}${message}`;
}

/**
 * rowLine of a finished row found in the index's bytes (plainViewFields' `at`: printable ASCII without escapes, which
 * sanitizeLine leaves as they are), written into `out` at `o` with its newline, byte for byte what rowLine writes:
 * no string per field (100,000 rows of `list` into a pipe). Returns where the next line goes; `out` must have room
 * for the view's length and LINE_SPARE_BYTES more.
 */
export function putRowLine(out: Buffer, o: number, bytes: Buffer, at: Int32Array, ageText: string): number {
  const F = VIEW_FIELD;
  o = put(out, o, bytes, at[F.taskId], at[F.taskId + 1], ID_COLUMNS);
  out[o++] = SPACE;
  out[o++] = SPACE;
  // shownStatus: a finished row's expired is false; an empty `gone` is none.
  o =
    at[F.gone] < at[F.gone + 1]
      ? putText(out, o, "gone", STATUS_COLUMNS)
      : put(out, o, bytes, at[F.status], at[F.status + 1], STATUS_COLUMNS);
  out[o++] = SPACE;
  for (let pad = AGE_COLUMNS - ageText.length; pad > 0; pad--) out[o++] = SPACE;
  o = putText(out, o, ageText, 0);
  out[o++] = SPACE;
  out[o++] = SPACE;
  o = put(out, o, bytes, at[F.tool], at[F.tool + 1], 0);
  o = putText(out, o, " @ ", 0);
  o = put(out, o, bytes, at[F.server], at[F.server + 1], 0);
  const message = at[F.statusMessage];
  if (message < at[F.statusMessage + 1]) {
    out[o++] = SPACE;
    out[o++] = SPACE;
    o = put(out, o, bytes, message, Math.min(at[F.statusMessage + 1], message + MESSAGE_CHARS), 0);
  }
  out[o++] = 0x0a;
  return o;
}

/** What a line of putRowLine adds to its view's bytes, at most (padding, the age, the separators). */
export const LINE_SPARE_BYTES = 80;
const SPACE = 0x20;

/** Bytes `from`..`to` of `bytes` at `o`, padded with spaces to `width`. */
function put(out: Buffer, o: number, bytes: Buffer, from: number, to: number, width: number): number {
  for (let i = from; i < to; i++) out[o++] = bytes[i];
  for (let pad = width - (to - from); pad > 0; pad--) out[o++] = SPACE;
  return o;
}

/** ASCII text at `o`, padded with spaces to `width`. */
function putText(out: Buffer, o: number, text: string, width: number): number {
  for (let i = 0; i < text.length; i++) out[o++] = text.charCodeAt(i);
  for (let pad = width - text.length; pad > 0; pad--) out[o++] = SPACE;
  return o;
}

/** The status a row shows: `gone` (the server lost it), `expired` (past its ttl, not known finished), else its own. */
export function shownStatus(row: HandleView): string {
  return row.gone ? "gone" : row.expired ? "expired" : row.status;
}

/**
 * Whether `list --status wanted` keeps a row: its status as shown is wanted; and `expired` means past its ttl, so a
 * gone task whose ttl had passed is one too (a gone task with no ttl, or one not yet run out, is only `gone`).
 */
export function statusWanted(row: HandleView, wanted: readonly string[], now: number): boolean {
  if (wanted.includes(shownStatus(row))) return true;
  if (!row.gone || !wanted.includes("expired")) return false;
  const end = ttlEnd({ createdAt: row.createdAt, taskCreatedAt: null, ttlMs: row.ttlMs });
  return end !== undefined && now > end;
}

/**
 * The server `-s` picks for a list: one a saved task names (as `get -s` takes it, a `--stdio` command line too), a
 * saved server or a URL; any other name is exit 2, with or without --watch.
 */
export async function serverFilter(
  wanted: string | undefined,
  rows: HandleView[],
  ctx: Context,
): Promise<string | undefined> {
  if (wanted === undefined || rows.some((row) => row.server === wanted)) return wanted;
  return (await resolveServer({ server: wanted }, ctx)).name;
}

/**
 * The server `list --remote -s` asks: a saved server, a URL, else the server of a saved task that names it so (a
 * `--stdio` command line as `list` shows it), with that task's own descriptor (its broker is found by it).
 */
export async function remoteServer(
  wanted: string | undefined,
  rows: HandleView[],
  ctx: Context,
): Promise<{ name: string; descriptor: ServerDescriptor }> {
  const settings = await ctx.loadSettings();
  const named = wanted !== undefined && !/^https?:\/\//i.test(wanted) && !settings.server(wanted);
  const row = named ? rows.find((r) => r.server === wanted) : undefined;
  if (!row) return resolveServer({ server: wanted }, ctx);
  const { handle } = await ctx.tracker.store.find(row.taskId, row.server);
  return { name: handle.server.name, descriptor: handle.server.descriptor };
}
