// `list` and the dashboard's first frame from a large stamped index without a summary per handle: finished tasks'
// rows are found in the log's bytes and kept there, as columns of offsets (no object or string per row: at 100,000
// rows they were a third of `list`'s time, most of it collections), the few other summaries parsed.
import { lstatSync, readdirSync } from "node:fs";
import type { HandleSummary, HandleView } from "../model.js";
import { DIR_STAMP_MARGIN_MS } from "../limits.js";
import { TASK_STATUSES } from "../protocol/wire.js";
import type { OnBad } from "./handle-file.js";
import { decode, decodeView } from "./index-line.js";
import { fromStamped } from "./summaries.js";
import type { RawTrust, SummaryIndex } from "./summary-index.js";

/**
 * A listing's finished rows in the log's bytes: where each row's line starts (the summary it holds, for a row shown
 * as one: see newestSummaries), where its view starts and ends (`to`: its closing brace + 1; JSON as `list --json`
 * prints it), and where its createdAt's text starts (it runs to the next quote).
 */
export interface RawRows {
  count: number;
  line: Int32Array;
  from: Int32Array;
  to: Int32Array;
  created: Int32Array;
}

export interface RawListing {
  /** The log's bytes the rows are in. */
  bytes: Buffer;
  rows: RawRows;
  others: HandleSummary[];
  /** No row holds a character safeJson escapes (the log is ASCII without DEL): they are printed as they are. */
  plain: boolean;
}

// Bytes of the log's punctuation. JSON's structure is ASCII, and no byte of a multi-byte UTF-8 character is: the
// log is searched as bytes whatever it holds.
const NEWLINE = 0x0a;
const QUOTE = 0x22;
const COMMA = 0x2c;
const BACKSLASH = 0x5c;
const BRACE = 0x7b;
const VIEW_START_TEXT = '{"taskId":';
const VIEW_START = Buffer.from(VIEW_START_TEXT);

/**
 * The rows of `list` from a large stamped log whose stamp stands (see SummaryIndex.raw): finished tasks' rows found
 * in its bytes and left there (100,000 of them: no JSON.parse, no string per row: list copies them from the bytes
 * to its output), the others' summaries (unfinished tasks checked as fromStamped does, and lines with an escape in
 * them, parsed). Undefined without such a stamp: then readSummaries. `trust`: see RawTrust (a caller that parses
 * the rows it uses takes them without the hash compared, or, provisionally, without a stamp).
 */
export function readRawListing(
  dir: string,
  index: SummaryIndex,
  trust: RawTrust,
  onBad?: OnBad,
): RawListing | undefined {
  try {
    return rawListingOf(dir, index, trust, onBad);
  } finally {
    index.release();
  }
}

// Each line of the log is an entry of ENTRY integers in one typed array (no object per line): its kind, where the
// line starts and ends, then by kind: ROW (a finished task's row, found in its line) the stem's closing quote,
// where the view starts, where its createdAt starts; LINE (a summary to parse if it is its stem's latest) the
// stem's closing quote; PARSED (a line that had to be parsed: a removal, a line with an escape, or one after the
// stamp's bytes) its place in `parsed`.
const ENTRY = 6;
const ROW = 0;
const LINE = 1;
const PARSED = 2;

/** A parsed line's value: its stem (as UTF-8 bytes, compared with the stems left in the log) and summary, if any. */
interface Parsed {
  stem: string;
  stemBytes: Buffer;
  summary?: HandleSummary;
}

function rawListingOf(dir: string, index: SummaryIndex, trust: RawTrust, onBad?: OnBad): RawListing | undefined {
  const dirMtime = lstatSync(dir).mtimeMs;
  const raw = index.raw(dirMtime, trust);
  if (!raw) return undefined;
  const { bytes, stamp, checked, listing } = raw;
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
  const lines = size / ENTRY;
  const stampable = listing && Date.now() - dirMtime > DIR_STAMP_MARGIN_MS;
  // A reader that parses its rows (their bytes not hash-checked: it may not stamp them) leaves that stamp to
  // readSummaries, once.
  if (stampable && trust !== "copied") return undefined;
  // The stamping reader found `count` handles in these very bytes: as many summary lines and no removal means each
  // stem has one line. Else (or with no stamp) the latest line of each stem counts.
  let latest: Int32Array;
  if (!listing && !removals && lines === stamp?.count) {
    latest = new Int32Array(lines);
    for (let k = 0; k < lines; k++) latest[k] = k;
  } else latest = latestEntries(bytes, entries, lines, parsed);
  const stemOf = (k: number) =>
    entries[k * ENTRY] === PARSED
      ? parsed[entries[k * ENTRY + 3]].stem
      : bytes.toString("utf8", entries[k * ENTRY + 1] + 4, entries[k * ENTRY + 3]);
  if (listing) {
    // Lines after the stamp: the directory's handle files must be the latest lines' stems, one for one, or every
    // line is read by readSummaries (which heals the index). The names cost one listing (10,000: ~9 ms), not a
    // parse of every line (~60 ms).
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return undefined;
    }
    const present = new Set<string>();
    for (const name of names) if (name.endsWith(".json") && !name.startsWith(".")) present.add(name);
    if (present.size !== latest.length) return undefined;
    for (let i = 0; i < latest.length; i++) if (!present.has(`${stemOf(latest[i])}.json`)) return undefined;
  } else if (stamp && latest.length !== stamp.count) return undefined;
  // Typed arrays are walked by index here and below: a for-of over one runs once per listing, in the interpreter,
  // which makes an iterator result per element (at 10,000 rows, 1.2 MB of a 5.8 MB listing's allocations).
  let count = 0;
  for (let i = 0; i < latest.length; i++) if (entries[latest[i] * ENTRY] === ROW) count++;
  const rows: RawRows = {
    count,
    line: new Int32Array(count),
    from: new Int32Array(count),
    to: new Int32Array(count),
    created: new Int32Array(count),
  };
  const others: HandleSummary[] = [];
  const unfinished: HandleSummary[] = [];
  let r = 0;
  for (let i = 0; i < latest.length; i++) {
    const e = latest[i] * ENTRY;
    const kind = entries[e];
    if (kind === ROW) {
      rows.line[r] = entries[e + 1];
      rows.from[r] = entries[e + 4];
      rows.to[r] = entries[e + 2] - 1; // the line's last bracket
      rows.created[r++] = entries[e + 5];
      continue;
    }
    const summary =
      kind === PARSED
        ? parsed[entries[e + 3]].summary
        : parseSummary(bytes.toString("utf8", entries[e + 1], entries[e + 2]));
    if (!summary) return undefined;
    (summary.final ? others : unfinished).push(summary);
  }
  // The directory listed and found as the lines say: a stamp of it, once its mtime is past the margin (see
  // fromListing), so that the next reader need not list it (written only where the log's bytes were hash-checked).
  const restamp = stampable ? { dirMtime, count: latest.length } : undefined;
  others.push(...fromStamped(index, dir, unfinished, restamp ?? (listing ? undefined : stamp), onBad, !!restamp));
  return { bytes, rows, others, plain: raw.plain };
}

/** Whether the bytes at `at` are the ASCII text `ascii`. */
function startsAt(bytes: Buffer, at: number, ascii: string): boolean {
  for (let i = 0; i < ascii.length; i++) if (bytes[at + i] !== ascii.charCodeAt(i)) return false;
  return true;
}

function holds(bytes: Buffer, byte: number, from: number, end: number): boolean {
  const at = bytes.indexOf(byte, from);
  return at !== -1 && at < end;
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
function latestEntries(bytes: Buffer, entries: Int32Array, lines: number, parsed: Parsed[]): Int32Array {
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

function sameBytes(a: Buffer, aFrom: number, aTo: number, b: Buffer, bFrom: number, bTo: number): boolean {
  if (aTo - aFrom !== bTo - bFrom) return false;
  for (let i = 0; i < aTo - aFrom; i++) if (a[aFrom + i] !== b[bFrom + i]) return false;
  return true;
}

function parseSummary(line: string): HandleSummary | undefined {
  try {
    const parsed = decode(JSON.parse(line));
    return parsed && !("removed" in parsed) && !("dirMtime" in parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** A raw row's view, parsed and checked (see RawTrust "parsed"); undefined if it is not one. */
export function rawView(bytes: Buffer, from: number, to: number): HandleView | undefined {
  try {
    return decodeView(JSON.parse(bytes.toString("utf8", from, to)));
  } catch {
    return undefined;
  }
}

/**
 * A listing's rows and others, newest first (by createdAt, compared as strings are; equal times in the log's order,
 * as a stable sort of the rows leaves them), as codes: n ≥ 0 is the row n, n < 0 the other -n-1.
 */
export function newestFirstOrder(raw: RawListing): Int32Array {
  const order = rowOrder(raw.bytes, raw.rows);
  const { others } = raw;
  if (others.length === 0) return order;
  const theirs = others.map((_, i) => -i - 1).sort((a, b) => compareCodes(raw, b, a));
  const out = new Int32Array(order.length + theirs.length);
  let i = 0;
  let o = 0;
  for (const code of theirs) {
    while (i < order.length && compareCodes(raw, code, order[i]) <= 0) out[o++] = order[i++];
    out[o++] = code;
  }
  out.set(order.subarray(i), o);
  return out;
}

/**
 * The rows newest first. A log is mostly in one order or the other (appended to as tasks are saved, oldest first;
 * compacted, newest first; a compacted one with tasks appended since, both): each stretch of it oldest first is
 * turned newest first (equal times kept in the log's order), and when the stretches then follow each other in order
 * (one pass) that is all; else V8's sort, stable, of the stretches (a merge of runs: about one comparison a row).
 * Times as `new Date().toISOString()` writes them are compared as numbers (see isoKeys), any other as text.
 */
function rowOrder(bytes: Buffer, rows: RawRows): Int32Array {
  const { count, created } = rows;
  const keys = isoKeys(bytes, created, count);
  const compare = keys
    ? (a: number, b: number) => keys.day[a] - keys.day[b] || keys.ms[a] - keys.ms[b]
    : (a: number, b: number) => compareCreated(bytes, created[a], created[b]);
  const order = new Int32Array(count);
  let sorted = true;
  for (let start = 0; start < count;) {
    let end = start + 1;
    let rising = false;
    for (; end < count; end++) {
      const c = compare(end - 1, end);
      if (c > 0) break;
      if (c < 0) rising = true;
    }
    if (!rising) for (let i = start; i < end; i++) order[i] = i;
    else {
      let o = start;
      for (let groupEnd = end; groupEnd > start;) {
        let group = groupEnd - 1;
        while (group > start && compare(group - 1, group) === 0) group--;
        for (let i = group; i < groupEnd; i++) order[o++] = i;
        groupEnd = group;
      }
    }
    if (start > 0 && compare(order[start - 1], order[start]) < 0) sorted = false;
    start = end;
  }
  if (!sorted) order.set(Array.from(order).sort((a, b) => compare(b, a)));
  return order;
}

/**
 * Each row's createdAt as two integers that sort as its text does, when every one is an ISO time as toISOString
 * writes it (YYYY-MM-DDTHH:mm:ss.sssZ): its digits YYYYMMDD and HHmmssSSS (times of one format compare digit by
 * digit); else undefined. One read of each time instead of one per comparison; two small integers, not one number
 * of 50 bits, so that the comparison makes no heap number (it runs 10,000 times in a listing's cold code: 0.8 MB).
 */
function isoKeys(bytes: Buffer, created: Int32Array, count: number): { day: Int32Array; ms: Int32Array } | undefined {
  const day = new Int32Array(count);
  const ms = new Int32Array(count);
  for (let r = 0; r < count; r++) {
    const at = created[r];
    if (bytes[at + 24] !== QUOTE || bytes[at + 23] !== 0x5a) return undefined;
    let high = 0;
    let low = 0;
    for (let i = 0; i < 23; i++) {
      const c = bytes[at + i];
      const separator = ISO_SEPARATORS[i];
      if (separator !== 0) {
        if (c !== separator) return undefined;
      } else if (c < 0x30 || c > 0x39) return undefined;
      else if (i < 10) high = high * 10 + c - 0x30;
      else low = low * 10 + c - 0x30;
    }
    day[r] = high;
    ms[r] = low;
  }
  return { day, ms };
}
// YYYY-MM-DDTHH:mm:ss.sss: the separator at each place, 0 where a digit goes.
const ISO_SEPARATORS = Uint8Array.from("0000-00-00T00:00:00.000", (c) => (c === "0" ? 0 : c.charCodeAt(0)));

/** Two createdAt texts in the log's bytes (each up to its quote), as strings compare: < 0 when a's sorts first. */
function compareCreated(bytes: Buffer, a: number, b: number): number {
  for (let i = 0; ; i++) {
    const x = bytes[a + i];
    const y = bytes[b + i];
    if (x === y) {
      if (x === QUOTE) return 0;
      continue;
    }
    return x === QUOTE ? -1 : y === QUOTE ? 1 : x - y;
  }
}

/** A createdAt text in the log's bytes (up to its quote) against a string (ASCII: an ISO time), as strings compare. */
function compareCreatedText(bytes: Buffer, a: number, text: string): number {
  for (let i = 0; ; i++) {
    const x = bytes[a + i];
    if (i === text.length) return x === QUOTE ? 0 : 1;
    const y = text.charCodeAt(i);
    if (x === QUOTE) return -1;
    if (x !== y) return x - y;
  }
}

/** Two codes of newestFirstOrder by createdAt: < 0 when a's sorts first (is older). */
function compareCodes(raw: RawListing, a: number, b: number): number {
  const { bytes, rows, others } = raw;
  if (a >= 0 && b >= 0) return compareCreated(bytes, rows.created[a], rows.created[b]);
  if (a >= 0) return compareCreatedText(bytes, rows.created[a], others[-b - 1].createdAt);
  if (b >= 0) return -compareCreatedText(bytes, rows.created[b], others[-a - 1].createdAt);
  const x = others[-a - 1].createdAt;
  const y = others[-b - 1].createdAt;
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * The newest `count` summaries of a raw listing, and how many it holds: only the rows shown are parsed (a page of
 * `list` on a terminal, the dashboard's first frame), picked in one pass (no sort of them all); all of them, sorted,
 * for a count past them. Undefined if a row's line is not a summary (never, unless forged since the stamping reader
 * checked it): then readSummaries.
 */
export function newestSummaries(
  raw: RawListing,
  count: number,
): { newest: HandleSummary[]; total: number } | undefined {
  const total = raw.rows.count + raw.others.length;
  let newest: number[] = []; // codes (see newestFirstOrder), newest first, at most `count`
  if (count >= total) newest = Array.from(newestFirstOrder(raw));
  else if (count > 0) {
    const consider = (code: number) => {
      if (newest.length === count && !(compareCodes(raw, code, newest[count - 1]) > 0)) return;
      let at = newest.length;
      while (at > 0 && compareCodes(raw, code, newest[at - 1]) > 0) at--;
      newest.splice(at, 0, code);
      if (newest.length > count) newest.pop();
    };
    for (let row = 0; row < raw.rows.count; row++) consider(row);
    for (let other = 0; other < raw.others.length; other++) consider(-other - 1);
  }
  const summaries: HandleSummary[] = [];
  for (const code of newest) {
    const summary =
      code < 0
        ? raw.others[-code - 1]
        : parseSummary(raw.bytes.toString("utf8", raw.rows.line[code], raw.rows.to[code] + 1));
    if (!summary) return undefined;
    summaries.push(summary);
  }
  return { newest: summaries, total };
}

/**
 * Where a raw row's view (bytes `from`..`to`) holds the fields a line of `list` shows, for a view exactly as
 * JSON.stringify writes one (its twelve keys in their order, no space) whose strings are printable ASCII without an
 * escape (every byte 0x20 to 0x7e but the backslash: each string is its own bytes) and whose numbers are plain
 * integers: what JSON.parse and decodeView would make of it, without the object (at 100,000 rows, parsing them was a
 * third of `list` into a pipe and most of its collections). `at` gets each field's start and end (see VIEW_FIELD),
 * -1 for a null; false for any other view (then rawView parses it: an escape, another number, a damaged or forged
 * row). Hand-written: a JSON parser that reports where values lie without building them is not a library a CLI's
 * start can afford.
 */
export function plainViewFields(bytes: Buffer, from: number, to: number, at: Int32Array): boolean {
  let p = from;
  for (let k = 0; k < VIEW_KEYS.length; k++) {
    const key = VIEW_KEYS[k];
    for (let i = 0; i < key.length; i++) if (bytes[p + i] !== key[i]) return false;
    p += key.length;
    const kind = VIEW_KINDS[k];
    const slot = VIEW_SLOTS[k];
    if (kind === FINAL) return p === to && isStatus(bytes, at[VIEW_FIELD.status], at[VIEW_FIELD.status + 1]);
    if (bytes[p] === NULL_BYTE && kind !== STRING) {
      if (!startsAt(bytes, p, "null")) return false;
      if (slot >= 0) at[slot] = at[slot + 1] = -1;
      p += 4;
    } else if (kind === NUMBER_OR_NULL) {
      // A plain integer (JSON allows no leading zero): any other number is left to JSON.parse.
      const first = p;
      while (bytes[p] >= 0x30 && bytes[p] <= 0x39) p++;
      if (p === first || (bytes[first] === 0x30 && p > first + 1)) return false;
    } else {
      if (bytes[p] !== QUOTE) return false;
      const first = ++p;
      const end = bytes.indexOf(QUOTE, first);
      if (end === -1 || end >= to) return false;
      for (; p < end; p++) {
        const c = bytes[p];
        if (c < 0x20 || c > 0x7e || c === BACKSLASH) return false;
      }
      if (slot >= 0) {
        at[slot] = first;
        at[slot + 1] = end;
      }
      p++;
    }
  }
  return false;
}

/** Slots of plainViewFields' `at`: a field's start, its end one further. */
export const VIEW_FIELD = {
  taskId: 0,
  server: 2,
  tool: 4,
  status: 6,
  statusMessage: 8,
  createdAt: 10,
  gone: 12,
  size: 14,
} as const;
const STRING = 0;
const STRING_OR_NULL = 1;
const NUMBER_OR_NULL = 2;
const FINAL = 3;
const NULL_BYTE = 0x6e; // "n"
const F = VIEW_FIELD;
// A view's keys in the order summaryView (model.ts) sets them, what each value may be, and where its bytes are
// reported (-1: checked, not reported). The last "key" is the view's end: expired is false on every finished row.
const VIEW: ReadonlyArray<readonly [key: string, kind: number, slot: number]> = [
  ['{"taskId":', STRING, F.taskId],
  [',"server":', STRING, F.server],
  [',"tool":', STRING, F.tool],
  [',"generation":', STRING, -1],
  [',"status":', STRING, F.status],
  [',"statusMessage":', STRING_OR_NULL, F.statusMessage],
  [',"createdAt":', STRING, F.createdAt],
  [',"updatedAt":', STRING, -1],
  [',"ttlMs":', NUMBER_OR_NULL, -1],
  [',"pollIntervalMs":', NUMBER_OR_NULL, -1],
  [',"expired":false,"gone":', STRING_OR_NULL, F.gone],
  ["}", FINAL, -1],
];
const VIEW_KEYS = VIEW.map(([key]) => Buffer.from(key));
const VIEW_KINDS = VIEW.map(([, kind]) => kind);
const VIEW_SLOTS = VIEW.map(([, , slot]) => slot);
const STATUS_BYTES = TASK_STATUSES.map((status) => Buffer.from(status));

/** Whether bytes `from`..`to` are a task status (decodeView's check). */
function isStatus(bytes: Buffer, from: number, to: number): boolean {
  for (const status of STATUS_BYTES) if (sameBytes(status, 0, status.length, bytes, from, to)) return true;
  return false;
}
