// `list` and the dashboard's first frame from a large stamped index without a summary per handle: finished tasks'
// rows are found in the log's bytes and kept there, as columns of offsets (no object or string per row: at 100,000
// rows they were a third of `list`'s time, most of it collections), the few other summaries parsed. The log's lines
// are found in log-entries.ts, the rows ordered in listing-order.ts, a row's fields read in raw-view.ts.
//
// Its fast path serves only what the general path proves it may. The general path is readSummaries: every line
// parsed, the directory listed, each unfinished task's file checked, the index healed. A raw listing stands for it
// only where the index's stamp says the stamping reader did all that on these very bytes and the directory has not
// changed since (its mtime as stamped; or, lines after the stamp, the directory's files one for one the latest
// lines' stems); unfinished tasks are still checked against their files (fromStamped). Anything else: undefined,
// and readSummaries.
import { lstatSync, readdirSync } from "node:fs";
import type { HandleSummary } from "../model.js";
import { DIR_STAMP_MARGIN_MS } from "../limits.js";
import type { OnBad } from "./handle-file.js";
import { decode } from "./index-line.js";
import { ENTRY, PARSED, ROW, latestEntries, logEntries, stemOf, type LogEntries } from "./log-entries.js";
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

function rawListingOf(dir: string, index: SummaryIndex, trust: RawTrust, onBad?: OnBad): RawListing | undefined {
  const dirMtime = lstatSync(dir).mtimeMs;
  const raw = index.raw(dirMtime, trust);
  if (!raw) return undefined;
  const { bytes, stamp, checked, listing } = raw;
  const log = logEntries(bytes, checked);
  if (!log) return undefined;
  const { lines, removals } = log;
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
  } else latest = latestEntries(bytes, log);
  if (listing) {
    if (!filesAreStems(dir, bytes, log, latest)) return undefined;
  } else if (stamp && latest.length !== stamp.count) return undefined;
  const found = rowsOf(bytes, log, latest);
  if (!found) return undefined;
  const { rows, others, unfinished } = found;
  // The directory listed and found as the lines say: a stamp of it, once its mtime is past the margin (see
  // fromListing), so that the next reader need not list it (written only where the log's bytes were hash-checked).
  const restamp = stampable ? { dirMtime, count: latest.length } : undefined;
  others.push(...fromStamped(index, dir, unfinished, restamp ?? (listing ? undefined : stamp), onBad, !!restamp));
  return { bytes, rows, others, plain: raw.plain };
}

/**
 * Lines after the stamp: the directory's handle files must be the latest lines' stems, one for one, or every line is
 * read by readSummaries (which heals the index). The names cost one listing (10,000: ~9 ms), not a parse of every
 * line (~60 ms).
 */
function filesAreStems(dir: string, bytes: Buffer, log: LogEntries, latest: Int32Array): boolean {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return false;
  }
  const present = new Set<string>();
  for (const name of names) if (name.endsWith(".json") && !name.startsWith(".")) present.add(name);
  if (present.size !== latest.length) return false;
  for (let i = 0; i < latest.length; i++) if (!present.has(`${stemOf(bytes, log, latest[i])}.json`)) return false;
  return true;
}

/**
 * The latest entries as finished rows (left in the bytes) and the other summaries, finished and not; undefined if a
 * line to parse is not a summary.
 */
function rowsOf(
  bytes: Buffer,
  log: LogEntries,
  latest: Int32Array,
): { rows: RawRows; others: HandleSummary[]; unfinished: HandleSummary[] } | undefined {
  const { entries, parsed } = log;
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
  return { rows, others, unfinished };
}

/** A summary line of the log, parsed and checked; undefined if it is not one. */
export function parseSummary(line: string): HandleSummary | undefined {
  try {
    const parsed = decode(JSON.parse(line));
    return parsed && !("removed" in parsed) && !("dirMtime" in parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}
