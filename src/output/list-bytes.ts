// `list`'s output as bytes from a raw listing (src/store/raw-listing.ts): the `--json` document with finished tasks'
// rows copied from the index's bytes (joinRows), and every row as text (everyLine), without an object or a string per
// row (at 100,000 rows they cost more in collections than in parsing).
//
// Its fast paths serve only what the general path proves they may. The general path is every summary read
// (readSummaries), each made a view, sorted by sortNewestFirst, and printed by printer.document (JSON.stringify, or
// safeJson) or rowLine. A row is copied as it is only where the index proves it is that text: the stamp's checksum
// holds for the log's bytes (RawTrust "copied"), so each finished row is JSON.stringify's text of the view that
// path would print, and `plain` (no character safeJson escapes) proves safeJson would print it unchanged; otherwise
// the rows are escaped as text. Rows follow newestFirstOrder, the order sortNewestFirst gives. A text line is made
// from the bytes only for a row plainViewFields took (see putRowLine); every other row is parsed and checked first.
import type { RawListing, RawRows } from "../store/raw-listing.js";
import { newestFirstOrder } from "../store/listing-order.js";
import { plainViewFields, rawView, VIEW_FIELD } from "../store/raw-view.js";
import { roomAfter } from "../store/safe-fs.js";
import { escapeJsonUnsafe, safeJson } from "../sanitize.js";
import { age, viewOfSummary } from "../tasks/views.js";
import { LINE_SPARE_BYTES, putRowLine, rowLine } from "./list-line.js";

/**
 * `list --json` from rows the index holds as JSON (finished tasks: JSON.stringify's text of the same view that
 * printer.document would write), the others encoded here: one document, without an object per row.
 */
export function jsonListing(raw: RawListing, now: number): Buffer | string {
  const { bytes, rows, others, plain } = raw;
  const encode = plain ? safeJson : JSON.stringify;
  const encoded = others.map((summary) => encode(viewOfSummary(summary, now)));
  const order = newestFirstOrder(raw);
  if (!plain) {
    // Characters to escape may be anywhere: the rows as text, escaped as one.
    const text = (code: number) =>
      code < 0 ? encoded[-code - 1] : bytes.toString("utf8", rows.from[code], rows.to[code]);
    return `[${escapeJsonUnsafe(Array.from(order, text).join(","))}]\n`;
  }
  return joinRows(bytes, rows, order, encoded);
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
  const runs = reversedRuns(rows, order, encoded);
  if (!runs) return false;
  const { joined, widest, encodedBytes } = runs;
  const { count, from, to } = rows;
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

/**
 * The rows in order must be runs of the log's order, each run just before the one printed after it: for example
 * 7 8 9, 4 5 6, 3, 0 1 2. `joined[k]`: row k+1 is printed just after row k (same run: an encoded row between them
 * ends the run, and such an order is then refused). With them, the longest run's bytes and the encoded rows' (each
 * with its comma); undefined for any other order.
 */
function reversedRuns(
  rows: RawRows,
  order: Int32Array,
  encoded: string[],
): { joined: Uint8Array; widest: number; encodedBytes: number } | undefined {
  const { count, from, to } = rows;
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
      if (previous !== runEnd) return undefined;
      runEnd = runStart - 1;
    }
    runStart = previous = code;
    widest = Math.max(widest, run);
    run = to[code] - from[code] + 1;
  }
  widest = Math.max(widest, run);
  if (runStart !== -1 && (previous !== runEnd || runStart !== 0)) return undefined;
  return { joined, widest, encodedBytes };
}

/**
 * Every row as text (`list` into a pipe, or `--all`), from the index's rows, written into one buffer as they are
 * made: a finished task's row, when it is a plain view (see plainViewFields), from the log's bytes without parsing;
 * any other's view parsed and checked as its line is made, and let go. No summary or string per row held (at
 * 100,000 rows they cost more in collections than in parsing). Undefined where the index does not allow it, or a row is
 * not a view (then the path that reads every summary, and heals the index): undefined.
 */
export function everyLine(raw: RawListing, now: number): Buffer | undefined {
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
    if (!view) return undefined;
    const line = `${rowLine(view, now)}\n`;
    room(Buffer.byteLength(line));
    o += out.write(line, o);
  }
  return out.subarray(0, o);
}
