// The lines of the handle index (see summary-index.ts): a handle's summary, a removal, or a directory stamp.
import { summaryView, type HandleSummary, type HandleView } from "../model.js";
import { TASK_STATUSES } from "../protocol/wire.js";

/**
 * A directory stamp, ["dir", mtimeMs, count, bytes, hash], appended by a reader that listed the directory: "when
 * this line was written, the directory had this mtime, and the live entries above (count of them) were its handle
 * files, every one readable". Every file created, renamed or removed in the directory moves its mtime, so while the
 * directory keeps that mtime and the stamp is the log's last line, a reader may take the entries as the directory's
 * files without listing it (100,000 names: ~100 ms). Only a directory whose mtime is older than DIR_STAMP_MARGIN_MS
 * is stamped: a change in the same tick of the file system's clock would leave the mtime as it was. `bytes` is where
 * the stamp starts (a line appended by another process while it was written leaves it in the middle: not a stamp
 * that stands), and `hash` the checksum of the log before it (logChecksum: CRC-32; an older version's SHA-256 is
 * still compared as such), on a large log only: every line of it was checked by
 * the reader that stamped it, so `list --json` may copy its rows unparsed (see SummaryIndex.raw).
 */
export interface DirStamp {
  dirMtime: number;
  count: number;
  bytes: number;
  hash: string | null;
}

export type Line = HandleSummary | { stem: string; removed: true } | DirStamp;

// On disk a summary is a positional array, not an object: half the bytes and half the parse time of the same fields
// with their names. The first element is the format: a summary is [FORMAT, stem, mtime, final, statusAt, outcome,
// taskCreatedAt, VIEW], where VIEW is the summary's HandleView as `list --json` prints it (its `expired` false, as
// it is for every finished task), so that a finished task's row can be printed as it is on disk; a removed handle is
// [0, stem]; anything else marks the index damaged (and it is rebuilt: an index written with other fields, by an
// older version, is read from the files again, never misread). Format 2 ([2, ...FIELDS_2]) is still read.
export const FORMAT = 3;
const FIELDS_2 = [
  "stem",
  "mtime",
  "taskId",
  "server",
  "tool",
  "generation",
  "status",
  "statusMessage",
  "createdAt",
  "taskCreatedAt",
  "updatedAt",
  "ttlMs",
  "pollIntervalMs",
  "gone",
  "final",
  "statusAt",
  "outcome",
] as const satisfies ReadonlyArray<keyof HandleSummary>;

export function encode(line: Line): string {
  if ("dirMtime" in line) return JSON.stringify(["dir", line.dirMtime, line.count, line.bytes, line.hash]);
  if ("removed" in line) return JSON.stringify([0, line.stem]);
  const s = line;
  const view = summaryView(s, false);
  return JSON.stringify([FORMAT, s.stem, s.mtime, s.final, s.statusAt, s.outcome, s.taskCreatedAt, view]);
}

const STATUSES: ReadonlySet<unknown> = new Set(TASK_STATUSES);
const str = (v: unknown) => typeof v === "string";
const strOrNull = (v: unknown) => v === null || typeof v === "string";
const numOrNull = (v: unknown) => v === null || typeof v === "number";

/**
 * Every field of a line has its type checked (a line is data from disk, like a handle): a line with a wrong type
 * marks the index damaged, so it is rebuilt, and never reaches a listing's code as a number where a string goes, or
 * as a status that is none.
 */
export function decode(v: unknown): Line | undefined {
  if (!Array.isArray(v)) return undefined;
  if (v[0] === FORMAT) return decode3(v);
  if (v[0] === 0 && typeof v[1] === "string" && v.length === 2) return { stem: v[1], removed: true };
  if (v[0] === 2) return decode2(v);
  if (v[0] === "dir" && v.length === 5 && typeof v[1] === "number" && Number.isInteger(v[2]))
    return Number.isInteger(v[3]) && strOrNull(v[4])
      ? { dirMtime: v[1], count: v[2], bytes: v[3], hash: v[4] }
      : undefined;
  return undefined;
}

/** A line's VIEW (see FORMAT), every field's type checked: a HandleView as `list --json` prints it, else undefined. */
export function decodeView(view: unknown): HandleView | undefined {
  if (typeof view !== "object" || view === null || Object.keys(view).length !== 12) return undefined;
  const v = view as Record<keyof HandleView, unknown>;
  if (!str(v.taskId) || !str(v.server) || !str(v.tool) || !str(v.generation) || !STATUSES.has(v.status))
    return undefined;
  if (!strOrNull(v.statusMessage) || !str(v.createdAt) || !str(v.updatedAt) || !numOrNull(v.ttlMs)) return undefined;
  if (!numOrNull(v.pollIntervalMs) || !strOrNull(v.gone) || v.expired !== false) return undefined;
  return view as HandleView;
}

function decode3(v: unknown[]): HandleSummary | undefined {
  if (v.length !== 8 || !str(v[1]) || typeof v[2] !== "number" || typeof v[3] !== "boolean") return undefined;
  if (!strOrNull(v[4]) || typeof v[5] !== "boolean" || !strOrNull(v[6])) return undefined;
  const view = decodeView(v[7]);
  if (!view) return undefined;
  const { taskId, server, tool, generation, status, statusMessage, createdAt, updatedAt, ttlMs, pollIntervalMs, gone } =
    view;
  // A literal, in the summary's order: one hidden class for all, where keys set in a loop cost twice the time.
  return {
    stem: v[1] as string,
    mtime: v[2],
    taskId,
    server,
    tool,
    generation,
    status,
    statusMessage,
    createdAt,
    taskCreatedAt: v[6],
    updatedAt,
    ttlMs,
    pollIntervalMs,
    gone,
    final: v[3],
    statusAt: v[4],
    outcome: v[5],
  } as HandleSummary;
}

function decode2(v: unknown[]): HandleSummary | undefined {
  if (v.length !== FIELDS_2.length + 1) return undefined;
  if (!str(v[1]) || typeof v[2] !== "number" || !str(v[3]) || !str(v[4]) || !str(v[5]) || !str(v[6])) return undefined;
  if (!STATUSES.has(v[7]) || !strOrNull(v[8]) || !str(v[9]) || !strOrNull(v[10]) || !str(v[11])) return undefined;
  if (!numOrNull(v[12]) || !numOrNull(v[13]) || !strOrNull(v[14]) || typeof v[15] !== "boolean") return undefined;
  if (!strOrNull(v[16]) || typeof v[17] !== "boolean") return undefined;
  return {
    stem: v[1],
    mtime: v[2],
    taskId: v[3],
    server: v[4],
    tool: v[5],
    generation: v[6],
    status: v[7],
    statusMessage: v[8],
    createdAt: v[9],
    taskCreatedAt: v[10],
    updatedAt: v[11],
    ttlMs: v[12],
    pollIntervalMs: v[13],
    gone: v[14],
    final: v[15],
    statusAt: v[16],
    outcome: v[17],
  } as HandleSummary;
}

/** The directory stamp on the log's last line, if it holds one there (the full parse decides whether it stands). */
export function peekStamp(bytes: Buffer): DirStamp | undefined {
  const end = bytes.at(-1) === 10 ? bytes.length - 1 : bytes.length;
  const start = end === 0 ? 0 : bytes.lastIndexOf(10, end - 1) + 1;
  if (bytes[start + 2] !== 100) return undefined; // not ["d…: no stamp, and no parse of a summary
  try {
    const line = decode(JSON.parse(bytes.toString("latin1", start, end)));
    return line && "dirMtime" in line && line.bytes === start ? line : undefined;
  } catch {
    return undefined;
  }
}
