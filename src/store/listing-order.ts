// The order `list` prints a raw listing in (see raw-listing.ts): newest first by createdAt, as sortNewestFirst
// (summaries.ts) orders summaries, without a summary or a string per row; and the newest few of them alone (a page of
// `list` on a terminal, the dashboard's first frame).
//
// Its fast paths serve only what the general path proves they may. The general path is a stable sort by createdAt
// compared as strings are (compareCodes). isoKeys' numbers stand in for those strings only when every createdAt is an
// ISO time as toISOString writes it (one length, one format: digits compare as the text does); rowOrder's runs skip
// the sort only where the comparisons it made show the rows already in order; newestSummaries' pick of a page gives
// the order the whole sort would, ties included (a row is placed after every one that compares equal).
import type { HandleSummary } from "../model.js";
import { QUOTE } from "./json-bytes.js";
import { parseSummary, type RawListing, type RawRows } from "./raw-listing.js";

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
