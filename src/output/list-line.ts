// A task as a line of `list` (and of `list --watch`): its cells defined once, in ROW, and written by two writers that
// follow that one table: rowLine from a view (strings), putRowLine from a finished row's bytes in the index (no
// string per field: 100,000 rows of `list` into a pipe).
//
// The fast path serves only what the general path proves it may. The general path is rowLine of a view parsed and
// checked (rawView, or a summary's view): each field through sanitizeLine, padded and cut by characters. putRowLine
// serves only a row plainViewFields (src/store/raw-view.ts) took: every string printable ASCII without an escape, so
// sanitizeLine leaves it as it is and a character is a byte (a pad or a cut counts the same); `expired` false, so
// the status shown is `gone` or the row's own; never a row only the server lists. Any other row goes to rowLine.
import type { HandleView } from "../model.js";
import { sanitizeLine } from "../sanitize.js";
import { VIEW_FIELD } from "../store/raw-view.js";
import { age } from "../tasks/views.js";

// What a cell shows.
const TASK_ID = 0;
const STATUS = 1;
const AGE = 2;
const TOOL = 3;
const SERVER = 4;
const REMOTE_ONLY = 5;
const MESSAGE = 6;

/**
 * A line's cells, in order: the text before each, what it shows, and its width (padded with spaces at its end to
 * `width`, at its start to `-width`; 0: as long as it is); `most`: cut to that many characters (0: not cut). A cell
 * with nothing to show (no status message; a task not only the server's) is left out with the text before it.
 */
const ROW: ReadonlyArray<{ before: string; shows: number; width: number; most: number }> = [
  { before: "", shows: TASK_ID, width: 36, most: 0 },
  { before: "  ", shows: STATUS, width: 14, most: 0 },
  { before: " ", shows: AGE, width: -4, most: 0 },
  { before: "  ", shows: TOOL, width: 0, most: 0 },
  { before: " @ ", shows: SERVER, width: 0, most: 0 },
  { before: "", shows: REMOTE_ONLY, width: 0, most: 0 },
  /** The most of a status message a line shows. */
  { before: "  ", shows: MESSAGE, width: 0, most: 60 },
];

/** One task as a line of the list. */
export function rowLine(row: HandleView & { remoteOnly?: boolean }, now: number): string {
  let line = "";
  for (const { before, shows, width, most } of ROW) {
    const text = cellText(row, shows, now);
    if (text === undefined) continue;
    const cut = most > 0 ? text.slice(0, most) : text;
    line += before + (width > 0 ? cut.padEnd(width) : width < 0 ? cut.padStart(-width) : cut);
  }
  return line;
}

/** What the cell `shows` holds for `row`, made terminal-safe; undefined: nothing (the cell is left out). */
function cellText(row: HandleView & { remoteOnly?: boolean }, shows: number, now: number): string | undefined {
  switch (shows) {
    case TASK_ID:
      return sanitizeLine(row.taskId);
    case STATUS:
      return shownStatus(row);
    case AGE:
      return age(row.createdAt, now);
    case TOOL:
      return sanitizeLine(row.tool);
    case SERVER:
      return sanitizeLine(row.server);
    case REMOTE_ONLY:
      return row.remoteOnly ? " (server only)" : undefined;
    default:
      return row.statusMessage ? sanitizeLine(row.statusMessage) : undefined;
  }
}

/** The status a row shows: `gone` (the server lost it), `expired` (past its ttl, not known finished), else its own. */
export function shownStatus(row: HandleView): string {
  return row.gone ? "gone" : row.expired ? "expired" : row.status;
}

// ROW as columns of small integers, for putRowLine: each cell's text before it (ASCII), the slot of plainViewFields'
// `at` its bytes are at (-1: not from the bytes), its width and its cut.
const CELLS = ROW.length;
const SHOWS = Int8Array.from(ROW, (cell) => cell.shows);
const BEFORE = ROW.map((cell) => cell.before);
const WIDTH = Int8Array.from(ROW, (cell) => cell.width);
const MOST = Int8Array.from(ROW, (cell) => cell.most);
const SLOT_OF: Readonly<Record<number, number>> = {
  [TASK_ID]: VIEW_FIELD.taskId,
  [STATUS]: VIEW_FIELD.status,
  [TOOL]: VIEW_FIELD.tool,
  [SERVER]: VIEW_FIELD.server,
  [MESSAGE]: VIEW_FIELD.statusMessage,
};
const SLOT = Int8Array.from(ROW, (cell) => SLOT_OF[cell.shows] ?? -1);

/**
 * rowLine of a finished row found in the index's bytes (plainViewFields' `at`), written into `out` at `o` with its
 * newline, byte for byte what rowLine writes. Returns where the next line goes; `out` must have room for the view's
 * length and LINE_SPARE_BYTES more.
 */
export function putRowLine(out: Buffer, o: number, bytes: Buffer, at: Int32Array, ageText: string): number {
  // shownStatus: a finished row's expired is false; an empty `gone` is none.
  const gone = at[VIEW_FIELD.gone] < at[VIEW_FIELD.gone + 1];
  for (let c = 0; c < CELLS; c++) {
    const shows = SHOWS[c];
    if (shows === REMOTE_ONLY) continue;
    const text = shows === AGE ? ageText : shows === STATUS && gone ? "gone" : undefined;
    if (text !== undefined) {
      o = putText(out, putText(out, o, BEFORE[c], 0), text, WIDTH[c]);
      continue;
    }
    const from = at[SLOT[c]];
    let to = at[SLOT[c] + 1];
    if (shows === MESSAGE && !(from < to)) continue; // none (null: -1, -1) or empty
    if (MOST[c] > 0 && to > from + MOST[c]) to = from + MOST[c];
    o = put(out, putText(out, o, BEFORE[c], 0), bytes, from, to, WIDTH[c]);
  }
  out[o++] = 0x0a;
  return o;
}

/** What a line of putRowLine adds to its view's bytes, at most (padding, the age, the separators). */
export const LINE_SPARE_BYTES = 80;
const SPACE = 0x20;

/** Bytes `from`..`to` of `bytes` at `o`, padded with spaces to `width` (at the start if it is negative). */
function put(out: Buffer, o: number, bytes: Buffer, from: number, to: number, width: number): number {
  for (let pad = -width - (to - from); pad > 0; pad--) out[o++] = SPACE;
  for (let i = from; i < to; i++) out[o++] = bytes[i];
  for (let pad = width - (to - from); pad > 0; pad--) out[o++] = SPACE;
  return o;
}

/** ASCII text at `o`, padded with spaces to `width` (at the start if it is negative). */
function putText(out: Buffer, o: number, text: string, width: number): number {
  for (let pad = -width - text.length; pad > 0; pad--) out[o++] = SPACE;
  for (let i = 0; i < text.length; i++) out[o++] = text.charCodeAt(i);
  for (let pad = width - text.length; pad > 0; pad--) out[o++] = SPACE;
  return o;
}
