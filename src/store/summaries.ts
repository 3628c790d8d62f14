// The summary of every handle: from the index (one file) checked against the directory, or, while the directory
// is as the index's last stamp found it (see DirStamp in summary-index.ts), from the index without listing it.
import { lstatSync, readdirSync, type Stats } from "node:fs";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import type { HandleSummary, HandleView } from "../model.js";
import { DIR_STAMP_MARGIN_MS, MAX_HANDLE_BYTES } from "../limits.js";
import { readOwnText } from "./safe-fs.js";
import { badReason, parseHandle, summarize, type OnBad } from "./handle-file.js";
import { decode, decodeView, type DirStamp, type Line } from "./index-line.js";
import type { RawTrust, SummaryIndex } from "./summary-index.js";
import { TASK_STATUSES } from "../protocol/wire.js";

/** A handle's summary read from its file now (the file's own mtime, from the open file). */
export function readSummary(stem: string, path: string): HandleSummary {
  let stats: Stats | undefined;
  const handle = parseHandle(readOwnText(path, MAX_HANDLE_BYTES, (s) => (stats = s)));
  return summarize(stem, handle, stats!.mtimeMs);
}

/**
 * The summary of every handle: entries whose file is gone are dropped, files without an entry are read, and
 * unfinished tasks' entries are read again when their file's mtime moved. What had to be read is written back; a
 * log grown well past its handles is compacted. While the index's stamp holds, the directory is not listed.
 */
export async function readSummaries(dir: string, index: SummaryIndex, onBad?: OnBad): Promise<HandleSummary[]> {
  try {
    return await readAllSummaries(dir, index, onBad);
  } finally {
    index.release();
  }
}

async function readAllSummaries(dir: string, index: SummaryIndex, onBad?: OnBad): Promise<HandleSummary[]> {
  // The directory's mtime before anything is read: whatever changes after this moment moves it (see DirStamp).
  const dirMtime = lstatSync(dir).mtimeMs;
  // Without a stamp to spare it, the directory is listed on libuv's thread pool while this thread parses the index
  // (10,000 handles: ~9 ms of listing hidden behind ~25 ms of parsing; either order is right, see below).
  let listing: Promise<string[]> | undefined;
  const loaded = index.load((stamp) => {
    if (stamp?.dirMtime !== dirMtime) listing = readdir(dir);
  });
  const { entries, stamp } = loaded;
  if (stamp && stamp.dirMtime === dirMtime && stamp.count === entries.size)
    return fromStamped(index, dir, entries.values(), stamp, onBad);
  return fromListing(dir, index, loaded, await (listing ?? readdir(dir)), dirMtime, onBad);
}

/**
 * The entries, as the stamp vouches for them (none: a provisional listing's, see RawTrust); unfinished tasks' files
 * are still checked for edits in place.
 */
function fromStamped(
  index: SummaryIndex,
  dir: string,
  entries: Iterable<HandleSummary>,
  stamp: Pick<DirStamp, "dirMtime" | "count"> | undefined,
  onBad?: OnBad,
  restamp = false,
): HandleSummary[] {
  const out: HandleSummary[] = [];
  const healed: Line[] = [];
  let stands = true;
  for (const entry of entries) {
    if (entry.final) {
      out.push(entry);
      continue;
    }
    const path = join(dir, `${entry.stem}.json`);
    try {
      const stats = lstatSync(path);
      if (stats.mtimeMs === entry.mtime && stats.isFile()) {
        out.push(entry);
        continue;
      }
      const summary = readSummary(entry.stem, path);
      out.push(summary);
      healed.push(summary);
    } catch (error) {
      // Gone since the directory's check, or unreadable: its entry goes, and the stamp with it, so that the next
      // reader lists the directory (and names the unreadable file, as every listing does).
      healed.push({ stem: entry.stem, removed: true });
      stands = false;
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") onBad?.(`${entry.stem}.json`, badReason(error));
    }
  }
  // The stamp is written again after what was healed: it must stay the log's last line. `restamp`: written even
  // with nothing healed (a stamp of a directory just listed).
  if ((healed.length > 0 || restamp) && stands && stamp) index.stamp(healed, stamp.dirMtime, stamp.count);
  else index.append(healed);
  return out;
}

function fromListing(
  dir: string,
  index: SummaryIndex,
  loaded: { entries: Map<string, HandleSummary>; lines: number; damaged: boolean; outdated?: boolean },
  names: string[],
  dirMtime: number,
  onBad?: OnBad,
): HandleSummary[] {
  const { entries, lines, damaged, outdated } = loaded;
  const out: HandleSummary[] = [];
  const healed: Line[] = [];
  let listed = 0; // entries whose file is listed
  let bad = false;
  for (const name of names) {
    if (!name.endsWith(".json") || name.startsWith(".")) continue;
    const stem = name.slice(0, -5);
    const entry = entries.get(stem);
    if (entry) listed++;
    if (entry?.final) {
      out.push(entry);
      continue;
    }
    const path = join(dir, name);
    try {
      // lstat: a link planted under a handle's name has a time of its own, never its target's. Without an entry
      // the file is read at once (the open file's fstat gives its time): one system call fewer per file.
      if (entry) {
        const stats = lstatSync(path);
        if (stats.mtimeMs === entry.mtime && stats.isFile()) {
          out.push(entry);
          continue;
        }
      }
      const summary = readSummary(stem, path);
      out.push(summary);
      healed.push(summary);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") {
        bad = true;
        onBad?.(name, badReason(error));
      }
    }
  }
  if (damaged || outdated || lines > 2 * out.length + 1000) {
    // Newest first, as `list` shows them: a listing's sort (V8's is a merge sort of runs) then costs one pass over
    // them, and only tasks saved since (appended after) are merged in. A rename into the directory: it moves the
    // directory's mtime, so no stamp goes with it.
    index.compact(out.slice().sort(newestFirst));
    return out;
  }
  // Entries whose file is gone leave the index (so that its live entries are the directory's files again).
  if (listed < entries.size) {
    const present = new Set(names);
    for (const stem of entries.keys()) if (!present.has(`${stem}.json`)) healed.push({ stem, removed: true });
  }
  // Stamped only when every file was read and the directory's mtime is well in the past (see DirStamp).
  if (!bad && Date.now() - dirMtime > DIR_STAMP_MARGIN_MS) index.stamp(healed, dirMtime, out.length);
  else index.append(healed);
  return out;
}

/**
 * A row as `list --json` prints it, and its createdAt (the list's order): a finished task's is the bytes
 * `from`..`to` of the listing's log, JSON as the stamping reader checked it; another's, `json` (encoded by list).
 */
export interface RawRow {
  createdAt: string;
  json?: string;
  from: number;
  to: number;
  /** Where its line starts (the summary it holds, for a row to be shown as one: see newestSummaries). */
  line?: number;
}

export interface RawListing {
  /** The log's bytes the rows are cut from. */
  bytes: Buffer;
  rows: RawRow[];
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
const CREATED_AT = Buffer.from(',"createdAt":"');

/**
 * The rows of `list --json` from a large stamped log whose stamp stands (see SummaryIndex.raw): finished tasks' rows
 * found in its bytes and left there (100,000 of them: no JSON.parse, no string per row: list copies them from the
 * bytes to its output), the others' summaries (unfinished tasks checked as fromStamped does, and lines with an
 * escape in them, parsed). Undefined without such a stamp: then readSummaries. `trust`: see RawTrust (a caller
 * that parses the rows it uses takes them without the hash compared, or, provisionally, without a stamp).
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

function rawListingOf(dir: string, index: SummaryIndex, trust: RawTrust, onBad?: OnBad): RawListing | undefined {
  const dirMtime = lstatSync(dir).mtimeMs;
  const raw = index.raw(dirMtime, trust);
  if (!raw) return undefined;
  const { bytes, stamp, checked, listing } = raw;
  // Each line's value, in log order: a finished row found in its line, or a line to parse (see below). One pass,
  // by offsets: no array of 100,000 lines, and no map of them by stem unless a stem can occur twice.
  const values: Array<RawRow | HandleSummary | string> = [];
  // A line's stem, or where it starts in the bytes (made a string only if latestOf needs it).
  const stems: Array<string | number> = [];
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
        stems.push(from + 4);
        values.push(rowOf(bytes, from, quote, end) ?? bytes.toString("utf8", from, end));
        continue;
      }
      if (bytes[from + 1] === 0x32) return undefined; // format 2: readSummaries compacts the log in format 3
      const parsed = decode(JSON.parse(bytes.toString("utf8", from, end)));
      if (!parsed) return undefined; // not as the stamping reader checked it: never so, unless forged
      if ("removed" in parsed) {
        removals = true;
        stems.push(parsed.stem);
        values.push(REMOVED);
      } else if (!("dirMtime" in parsed)) {
        stems.push(parsed.stem);
        values.push(parsed);
      }
    }
  } catch {
    return undefined;
  }
  // The stamping reader found `count` handles in these very bytes: as many summary lines and no removal means each
  // stem has one line. Else (or with no stamp) the latest line of each stem counts.
  const stem = (at: string | number) =>
    typeof at === "string" ? at : bytes.toString("utf8", at, bytes.indexOf(QUOTE, at));
  let latest: Array<RawRow | HandleSummary | string>;
  const stampable = listing && Date.now() - dirMtime > DIR_STAMP_MARGIN_MS;
  // A reader that parses its rows (their bytes not hash-checked: it may not stamp them) leaves that stamp to
  // readSummaries, once.
  if (stampable && trust !== "copied") return undefined;
  if (listing) {
    // Lines after the stamp: the directory's handle files must be the latest lines' stems, one for one, or every
    // line is read by readSummaries (which heals the index). The names cost one listing (10,000: ~9 ms), not a
    // parse of every line (~60 ms).
    const byStem = latestOf(stems.map(stem), values);
    const present = new Set<string>();
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return undefined;
    }
    for (const name of names) if (name.endsWith(".json") && !name.startsWith(".")) present.add(name);
    if (present.size !== byStem.size) return undefined;
    for (const stem of byStem.keys()) if (!present.has(`${stem}.json`)) return undefined;
    latest = [...byStem.values()];
  } else {
    latest = !removals && values.length === stamp?.count ? values : [...latestOf(stems.map(stem), values).values()];
    if (stamp && latest.length !== stamp.count) return undefined;
  }
  const rows: RawRow[] = [];
  const others: HandleSummary[] = [];
  const unfinished: HandleSummary[] = [];
  for (const value of latest) {
    if (typeof value === "object" && "from" in value) {
      rows.push(value);
      continue;
    }
    const summary = typeof value === "string" ? parseSummary(value) : value;
    if (!summary) return undefined;
    (summary.final ? others : unfinished).push(summary);
  }
  // The directory listed and found as the lines say: a stamp of it, once its mtime is past the margin (see
  // fromListing), so that the next reader need not list it (written only where the log's bytes were hash-checked).
  const restamp = stampable ? { dirMtime, count: latest.length } : undefined;
  others.push(...fromStamped(index, dir, unfinished, restamp ?? (listing ? undefined : stamp), onBad, !!restamp));
  return { bytes, rows, others, plain: raw.plain };
}

/** Marks a stem's removal in readRawListing's values. */
const REMOVED = "";

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
 * A finished task's row, found in its line (starting at `line`, the stem's closing quote at `quote`):
 * [3,"stem",mtime,true,…,{view}].
 * The view runs from `{"taskId":` (a quote inside a string is escaped, so that text is the view's start) to the
 * line's last bracket; its createdAt follows `,"createdAt":"` (likewise). Undefined for an unfinished task's line.
 */
function rowOf(bytes: Buffer, line: number, quote: number, end: number): RawRow | undefined {
  if (!startsAt(bytes, bytes.indexOf(COMMA, quote + 2) + 1, "true,")) return undefined;
  // The line's first "{" (a byte's search, ~3x cheaper than the text's) is the view's, unless a string before it
  // holds one: then the view's start is searched for as text.
  let from = bytes.indexOf(BRACE, quote);
  if (from === -1 || !startsAt(bytes, from, VIEW_START_TEXT)) from = bytes.indexOf(VIEW_START, quote);
  if (from === -1 || from > end) return undefined;
  const to = end - 1;
  const at = bytes.indexOf(CREATED_AT, from);
  if (at === -1 || at > to) return undefined;
  return { createdAt: bytes.toString("latin1", at + 14, bytes.indexOf(QUOTE, at + 14)), from, to, line };
}

/** A raw row's view, parsed and checked (see RawTrust "parsed"); undefined if it is not one. */
export function rawView(bytes: Buffer, row: RawRow): HandleView | undefined {
  try {
    return decodeView(JSON.parse(bytes.toString("utf8", row.from, row.to)));
  } catch {
    return undefined;
  }
}

/**
 * Where a raw row's view holds the fields a line of `list` shows, for a view exactly as JSON.stringify writes one
 * (its twelve keys in their order, no space) whose strings are printable ASCII without an escape (every byte 0x20 to
 * 0x7e but the backslash: each string is its own bytes) and whose numbers are plain integers: what JSON.parse and
 * decodeView would make of it, without the object (at 100,000 rows, parsing them was a third of `list` into a pipe
 * and most of its collections). `at` gets each field's start and end (see VIEW_FIELD), -1 for a null; false for any
 * other view (then rawView parses it: an escape, another number, a damaged or forged row). Hand-written: a JSON
 * parser that reports where values lie without building them is not a library a CLI's start can afford.
 */
export function plainViewFields(bytes: Buffer, row: RawRow, at: Int32Array): boolean {
  let p = row.from;
  for (const [key, kind, slot] of VIEW) {
    if (!startsAt(bytes, p, key)) return false;
    p += key.length;
    if (kind === FINAL) return p === row.to && isStatus(bytes, at[VIEW_FIELD.status], at[VIEW_FIELD.status + 1]);
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
      for (let c = bytes[p]; c !== QUOTE; c = bytes[++p])
        if (c < 0x20 || c > 0x7e || c === BACKSLASH || p >= row.to) return false;
      if (slot >= 0) {
        at[slot] = first;
        at[slot + 1] = p;
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
const STATUS_BYTES = TASK_STATUSES.map((status) => Buffer.from(status));

/** Whether bytes `from`..`to` are a task status (decodeView's check). */
function isStatus(bytes: Buffer, from: number, to: number): boolean {
  for (const status of STATUS_BYTES)
    if (status.length === to - from && bytes.compare(status, 0, status.length, from, to) === 0) return true;
  return false;
}

/** The latest value of each stem (a removal drops it), in the order of each stem's first line. */
function latestOf<T>(stems: string[], values: T[]): Map<string, T> {
  const latest = new Map<string, T>();
  for (let i = 0; i < stems.length; i++) {
    if (values[i] === REMOVED) latest.delete(stems[i]);
    else latest.set(stems[i], values[i]);
  }
  return latest;
}

function parseSummary(line: string): HandleSummary | undefined {
  try {
    const parsed = decode(JSON.parse(line));
    return parsed && !("removed" in parsed) && !("dirMtime" in parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The newest `count` summaries of a raw listing, and how many it holds: only the rows shown are parsed (a page of
 * `list` on a terminal, the dashboard's first frame), picked in one pass (no sort of them all: a log with lines
 * appended since its compaction is not in order); all of them, sorted, for a count past them (`list` into a pipe:
 * no map of them by stem, as a full read builds). Undefined if a row's line is not a summary (never, unless forged
 * since the stamping reader checked it): then readSummaries.
 */
export function newestSummaries(
  raw: RawListing,
  count: number,
): { newest: HandleSummary[]; total: number } | undefined {
  const total = raw.rows.length + raw.others.length;
  let newest: ListedRow[] = []; // newest first, at most `count`
  if (count >= total) newest = rowsNewestFirst(raw);
  else if (count > 0) {
    for (const row of withOthers(raw)) {
      if (newest.length === count && !(row.createdAt > newest[count - 1].createdAt)) continue;
      let at = newest.length;
      while (at > 0 && row.createdAt > newest[at - 1].createdAt) at--;
      newest.splice(at, 0, row);
      if (newest.length > count) newest.pop();
    }
  }
  const summaries: HandleSummary[] = [];
  for (const row of newest) {
    const summary =
      row.summary ??
      (row.line === undefined ? undefined : parseSummary(raw.bytes.toString("utf8", row.line, row.to + 1)));
    if (!summary) return undefined;
    summaries.push(summary);
  }
  return { newest: summaries, total };
}

/** A listing's row: a finished task's, in the log's bytes, or another's summary. */
export type ListedRow = RawRow & { summary?: HandleSummary };

/** A listing's rows and its other summaries, as rows (the listing's rows are spent: the others are added to them). */
function withOthers(raw: RawListing): ListedRow[] {
  const rows: ListedRow[] = raw.rows;
  for (const summary of raw.others) rows.push({ createdAt: summary.createdAt, summary, from: 0, to: 0 });
  return rows;
}

/** Every row of a listing, newest first (its rows are spent). */
export function rowsNewestFirst(raw: RawListing): ListedRow[] {
  const rows = withOthers(raw);
  sortNewestFirst(rows);
  return rows;
}

/**
 * Sorted newest first, unless they are already (the index is compacted newest first): one pass over them instead
 * of the sort's calls of its comparison function (100,000 rows: ~100 ms of a loaded machine's profile).
 */
export function sortNewestFirst(rows: Array<{ createdAt: string }>): void {
  for (let i = 1; i < rows.length; i++) {
    if (rows[i - 1].createdAt < rows[i].createdAt) {
      rows.sort(newestFirst);
      return;
    }
  }
}

/** By createdAt, newest first (ISO times: a plain comparison, ~10x cheaper than localeCompare). */
export function newestFirst(a: { createdAt: string }, b: { createdAt: string }): number {
  return a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0;
}
