// The index's log as entries, one a line, found in its bytes without parsing a finished task's line (see
// raw-listing.ts): where each line and its stem lie, where a finished task's view and its createdAt start, and which
// line is each stem's latest.
//
// Its fast path serves only what the general path proves it may. The general path is JSON.parse and decode of each
// line (readSummaries). A line is left unparsed only if it lies within the bytes the stamping reader decoded and
// checked (`checked`: see SummaryIndex.raw) and holds no escape: then its stem is its first string, up to the next
// quote, and a finished task's view is the text from `{"taskId":` to the line's last bracket, as decode would find
// them. A line after those bytes, or with an escape in it, is parsed; a format this reader does not know ends it.
import type { HandleSummary } from "../model.js";
import { decode } from "./index-line.js";
import { BACKSLASH, BRACE, COMMA, NEWLINE, QUOTE, holds, sameBytes, startsAt } from "./json-bytes.js";

// Each line of the log is an entry of ENTRY integers in one typed array (no object per line): its kind, where the
// line starts and ends, then by kind: ROW (a finished task's row, found in its line) the stem's closing quote,
// where the view starts, where its createdAt starts; LINE (a summary to parse if it is its stem's latest) the
// stem's closing quote; PARSED (a line that had to be parsed: a removal, a line with an escape, or one after the
// stamp's bytes) its place in `parsed`.
export const ENTRY = 6;
export const ROW = 0;
export const LINE = 1;
export const PARSED = 2;

const VIEW_START_TEXT = '{"taskId":';
const VIEW_START = Buffer.from(VIEW_START_TEXT);

/** A parsed line's value: its stem (as UTF-8 bytes, compared with the stems left in the log) and summary, if any. */
export interface Parsed {
  stem: string;
  stemBytes: Buffer;
  summary?: HandleSummary;
}

/** A log's entries: `lines` of them in `entries` (see ENTRY), the parsed lines' values, and whether one is a removal. */
export interface LogEntries {
  entries: Int32Array;
  lines: number;
  parsed: Parsed[];
  removals: boolean;
}

/**
 * The entries of the log's lines (a directory stamp's line skipped); undefined if a line is not one the stamping
 * reader would have written (never so, unless forged), or the log is of format 2 (readSummaries compacts it in
 * format 3).
 */
export function logEntries(bytes: Buffer, checked: number): LogEntries | undefined {
  let entries = new Int32Array(ENTRY * Math.max(1024, Math.ceil(bytes.length / 200)));
  let size = 0; // of entries, in use
  const add = (kind: number, from: number, end: number, a: number, b: number, c: number) => {
    if (size === entries.length) {
      const more = new Int32Array(entries.length * 2);
      more.set(entries);
      entries = more;
    }
    entries[size++] = kind;
    entries[size++] = from;
    entries[size++] = end;
    entries[size++] = a;
    entries[size++] = b;
    entries[size++] = c;
  };
  const parsed: Parsed[] = [];
  let removals = false;
  const escapes = bytes.includes(BACKSLASH); // most logs have none: then no line is searched for one
  try {
    for (let at = 0; at < bytes.length;) {
      let end = bytes.indexOf(NEWLINE, at);
      if (end === -1) end = bytes.length;
      const from = at;
      at = end + 1;
      if (end === from) continue;
      // A summary without an escape in it: its stem is its first string, up to the next quote. Lines after the
      // stamp's bytes (see SummaryIndex.raw) are parsed.
      if (from < checked && startsAt(bytes, from, '[3,"') && !(escapes && holds(bytes, BACKSLASH, from, end))) {
        const quote = bytes.indexOf(QUOTE, from + 4);
        const view = finishedView(bytes, quote, end);
        const created = view === -1 ? -1 : createdStart(bytes, view, end - 1);
        if (created === -1) add(LINE, from, end, quote, 0, 0);
        else add(ROW, from, end, quote, view, created);
        continue;
      }
      if (bytes[from + 1] === 0x32) return undefined; // format 2: readSummaries compacts the log in format 3
      const line = decode(JSON.parse(bytes.toString("utf8", from, end)));
      if (!line) return undefined; // not as the stamping reader checked it: never so, unless forged
      if ("dirMtime" in line) continue;
      if ("removed" in line) removals = true;
      add(PARSED, from, end, parsed.length, 0, 0);
      parsed.push({
        stem: line.stem,
        stemBytes: Buffer.from(line.stem),
        summary: "removed" in line ? undefined : line,
      });
    }
  } catch {
    return undefined;
  }
  return { entries, lines: size / ENTRY, parsed, removals };
}

/** The stem of entry `k`. */
export function stemOf(bytes: Buffer, log: LogEntries, k: number): string {
  const { entries, parsed } = log;
  return entries[k * ENTRY] === PARSED
    ? parsed[entries[k * ENTRY + 3]].stem
    : bytes.toString("utf8", entries[k * ENTRY + 1] + 4, entries[k * ENTRY + 3]);
}

/**
 * Where a finished task's view starts in its line (ending at `end`, the stem's closing quote at `quote`):
 * [3,"stem",mtime,true,…,{view}]. The view runs from `{"taskId":` (a quote inside a string is escaped, so that text
 * is the view's start) to the line's last bracket. -1 for an unfinished task's line.
 */
function finishedView(bytes: Buffer, quote: number, end: number): number {
  if (!startsAt(bytes, bytes.indexOf(COMMA, quote + 2) + 1, "true,")) return -1;
  // The line's first "{" (a byte's search, ~3x cheaper than the text's) is the view's, unless a string before it
  // holds one: then the view's start is searched for as text.
  let from = bytes.indexOf(BRACE, quote);
  if (from === -1 || !startsAt(bytes, from, VIEW_START_TEXT)) from = bytes.indexOf(VIEW_START, quote);
  return from === -1 || from > end ? -1 : from;
}

/**
 * Where the createdAt text of the view `from`..`to` starts: after `,"createdAt":"` (likewise unique); else -1. Found
 * by its "A" (no key before it has one, and most values none): a byte's search costs ~5x less than the text's.
 */
function createdStart(bytes: Buffer, from: number, to: number): number {
  for (let at = bytes.indexOf(CAPITAL_A, from); at !== -1 && at < to; at = bytes.indexOf(CAPITAL_A, at + 1)) {
    if (startsAt(bytes, at - 9, CREATED_AT_TEXT)) return at - 9 + CREATED_AT_TEXT.length;
  }
  return -1;
}
const CREATED_AT_TEXT = ',"createdAt":"'; // its "A" 9 bytes in
const CAPITAL_A = 0x41;

/**
 * The entries that are each stem's latest line (a removal drops it), in the order of each stem's first line. The
 * stems are compared as bytes in an open-addressing table keyed by their FNV-1a hash: hand-written, as no library
 * keys a table by byte ranges of a buffer without making each a string (200,000 lines: ~30 ms; as strings in a
 * Map, ~60 ms and 200,000 strings to collect).
 */
export function latestEntries(bytes: Buffer, log: LogEntries): Int32Array {
  const { entries, lines, parsed } = log;
  let size = 16;
  while (size < 2 * lines) size *= 2;
  const mask = size - 1;
  const table = new Int32Array(size); // a stem's slot + 1; 0: empty
  const seen = new Int32Array(lines); // each slot's last entry (its stem's bytes)
  const kept = new Int32Array(lines); // each slot's latest entry, -1 once removed
  let slots = 0;
  let removed = 0;
  const stemIn = (k: number) => (entries[k * ENTRY] === PARSED ? parsed[entries[k * ENTRY + 3]].stemBytes : bytes);
  const stemFrom = (k: number) => (entries[k * ENTRY] === PARSED ? 0 : entries[k * ENTRY + 1] + 4);
  const stemTo = (k: number) =>
    entries[k * ENTRY] === PARSED ? parsed[entries[k * ENTRY + 3]].stemBytes.length : entries[k * ENTRY + 3];
  for (let k = 0; k < lines; k++) {
    const buffer = stemIn(k);
    const from = stemFrom(k);
    const to = stemTo(k);
    const value = entries[k * ENTRY] === PARSED && !parsed[entries[k * ENTRY + 3]].summary ? -1 : k;
    let hash = 0x811c9dc5;
    for (let i = from; i < to; i++) hash = Math.imul(hash ^ buffer[i], 0x01000193);
    for (let s = hash & mask; ; s = (s + 1) & mask) {
      const slot = table[s] - 1;
      if (slot === -1) {
        table[s] = slots + 1;
        seen[slots] = k;
        kept[slots++] = value;
        if (value === -1) removed++;
        break;
      }
      const other = seen[slot];
      if (sameBytes(buffer, from, to, stemIn(other), stemFrom(other), stemTo(other))) {
        seen[slot] = k;
        if ((kept[slot] === -1) !== (value === -1)) removed += value === -1 ? 1 : -1;
        kept[slot] = value;
        break;
      }
    }
  }
  const latest = new Int32Array(slots - removed);
  let at = 0;
  for (let slot = 0; slot < slots; slot++) if (kept[slot] !== -1) latest[at++] = kept[slot];
  return latest;
}
