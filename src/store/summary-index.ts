// The handle index: one small line per handle change in `<home>/tasks/.index.ndjson`, so that `list`, `prune`
// and the dashboard's first frame read one file instead of one file per task (10,000 handle files cost ~200 ms
// to read and parse; their index, ~20 ms).
//
// The index is a cache, never the truth: the handle files are. Each writer appends (O_APPEND, one write per
// line) after its file is in place, so the index is never ahead of the files. A reader trusts an entry only if
// its file is still in the directory and, for tasks not yet finished, still has the modification time the entry
// recorded; anything else (a writer killed between its rename and its append, an append lost to a concurrent
// compaction, a file copied in by hand) is read from its file and the index healed. Finished tasks' files are not
// checked: after the outcome nothing but `forget`/`prune` (which the directory listing shows) changes them.
import { isAscii } from "node:buffer";
import { join } from "node:path";
import { MAX_INDEX_BYTES } from "../limits.js";
import { TASK_STATUSES } from "../protocol/wire.js";
import type { HandleSummary } from "../model.js";
import { appendOwnFile, readOwnFile, writeOwnFile } from "./safe-fs.js";

/**
 * A directory stamp, ["dir", mtimeMs, count], appended by a reader that listed the directory: "when this line was
 * written, the directory had this mtime, and the live entries above (count of them) were its handle files, every
 * one readable". Every file created, renamed or removed in the directory moves its mtime, so while the directory
 * keeps that mtime and the stamp is the log's last line, a reader may take the entries as the directory's files
 * without listing it (100,000 names: ~100 ms). Only a directory whose mtime is older than DIR_STAMP_MARGIN_MS is
 * stamped: a change in the same tick of the file system's clock would leave the mtime as it was.
 */
export interface DirStamp {
  dirMtime: number;
  count: number;
}

export type Line = HandleSummary | { stem: string; removed: true } | DirStamp;

// On disk a summary is a positional array, not an object: half the bytes and half the parse time of the same
// fields with their names (10,000 summaries: ~14 ms instead of ~25). The first element is the format: a summary
// is [FORMAT, ...FIELDS], a removed handle [0, stem]; anything else marks the index damaged (and it is rebuilt:
// so an index written with other fields, by an older version, is read from the files again, never misread).
const FORMAT = 2;
const FIELDS = [
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

function encode(line: Line): string {
  if ("dirMtime" in line) return JSON.stringify(["dir", line.dirMtime, line.count]);
  if ("removed" in line) return JSON.stringify([0, line.stem]);
  return JSON.stringify([FORMAT, ...FIELDS.map((field) => line[field])]);
}

const STATUSES: ReadonlySet<unknown> = new Set(TASK_STATUSES);
const str = (v: unknown) => typeof v === "string";
const strOrNull = (v: unknown) => v === null || typeof v === "string";
const numOrNull = (v: unknown) => v === null || typeof v === "number";

/**
 * Every field of a summary line has its type checked (a line is data from disk, like a handle): a line with a
 * wrong type marks the index damaged, so it is rebuilt, and never reaches a listing's code as a number where a
 * string goes, or as a status that is none.
 */
function decode(v: unknown): Line | undefined {
  if (!Array.isArray(v)) return undefined;
  if (v[0] === "dir" && v.length === 3 && typeof v[1] === "number" && Number.isInteger(v[2]))
    return { dirMtime: v[1], count: v[2] };
  if (v[0] === 0 && typeof v[1] === "string" && v.length === 2) return { stem: v[1], removed: true };
  if (v[0] !== FORMAT || v.length !== FIELDS.length + 1) return undefined;
  if (
    !str(v[1]) ||
    typeof v[2] !== "number" ||
    !str(v[3]) ||
    !str(v[4]) ||
    !str(v[5]) ||
    !str(v[6]) ||
    !STATUSES.has(v[7])
  )
    return undefined;
  if (
    !strOrNull(v[8]) ||
    !str(v[9]) ||
    !strOrNull(v[10]) ||
    !str(v[11]) ||
    !numOrNull(v[12]) ||
    !numOrNull(v[13]) ||
    !strOrNull(v[14])
  )
    return undefined;
  if (typeof v[15] !== "boolean" || !strOrNull(v[16]) || typeof v[17] !== "boolean") return undefined;
  // A literal, in FIELDS' order: one hidden class for all, where keys set in a loop cost twice the time and memory.
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
  };
}

/** The directory stamp on the text's last line, if it holds one (the full parse decides whether it stands). */
function peekStamp(text: string): DirStamp | undefined {
  const end = text.endsWith("\n") ? text.length - 1 : text.length;
  const start = text.lastIndexOf("\n", end - 1) + 1;
  if (text.charCodeAt(start + 2) !== 100) return undefined; // not ["d…: no stamp, and no parse of a summary
  try {
    const line = decode(JSON.parse(text.slice(start, end)));
    return line && "dirMtime" in line ? line : undefined;
  } catch {
    return undefined;
  }
}

export class SummaryIndex {
  readonly path: string;

  constructor(dir: string) {
    this.path = join(dir, ".index.ndjson");
  }

  /** Appends changes (a directory stamp last, if any); a failure is not fatal (the next reader heals the index from the files). */
  append(lines: Line[]): void {
    if (lines.length === 0) return;
    try {
      // Never through a link or into a FIFO planted as the index (appendOwnFile refuses them; the next reader
      // finds the index unreadable and replaces it).
      appendOwnFile(this.path, lines.map((line) => `${encode(line)}\n`).join(""));
    } catch {
      /* the index is a cache */
    }
  }

  /**
   * The latest summary of each stem, how many lines the log holds, whether every line parsed, and the directory
   * stamp when it is the log's last line (a line after it, or a damaged one, leaves none).
   */
  load(onPeek?: (stamp: DirStamp | undefined) => void): {
    entries: Map<string, HandleSummary>;
    lines: number;
    damaged: boolean;
    stamp?: DirStamp;
  } {
    const entries = new Map<string, HandleSummary>();
    let text: string;
    try {
      // Read as bytes, then made a string: ids, names and times are ASCII, and an ASCII buffer becomes a string
      // without UTF-8 decoding (2 MB of index: ~3 ms instead of ~7).
      // A link, FIFO or device as the index, or one past MAX_INDEX_BYTES, is not read: it is rebuilt from the files.
      const bytes = readOwnFile(this.path, MAX_INDEX_BYTES);
      text = bytes.toString(isAscii(bytes) ? "latin1" : "utf8");
    } catch {
      onPeek?.(undefined);
      return { entries, lines: 0, damaged: true };
    }
    // The last line alone, before the rest is parsed: a caller that needs the directory listed when no stamp
    // spares it can start listing while this thread parses.
    onPeek?.(peekStamp(text));
    let lines = 0;
    let damaged = false;
    let stamp: DirStamp | undefined;
    for (const raw of text.split("\n")) {
      if (!raw) continue;
      lines++;
      stamp = undefined;
      try {
        const line = decode(JSON.parse(raw));
        if (!line) damaged = true;
        else if ("dirMtime" in line) stamp = line;
        else if ("removed" in line) entries.delete(line.stem);
        else entries.set(line.stem, line);
      } catch {
        damaged = true; // a line cut by a crash; the files tell the truth
      }
    }
    return { entries, lines, damaged, stamp: damaged ? undefined : stamp };
  }

  /** Rewrites the log as one line per live handle (temp file + rename; appends racing with it are healed later). */
  compact(summaries: Iterable<HandleSummary>): void {
    try {
      let text = "";
      for (const summary of summaries) text += `${encode(summary)}\n`;
      writeOwnFile(this.path, text); // temp file ".tmp-…" (swept like handle temps) renamed over the index
    } catch {
      /* the index is a cache */
    }
  }
}
