// The handle index: one small line per handle change in `<home>/tasks/.index.ndjson`, so that `list`, `prune`
// and the dashboard's first frame read one file instead of one file per task (10,000 handle files cost ~200 ms
// to read and parse; their index, ~20 ms).
//
// The index is a cache, never the truth: the handle files are. Each writer appends (O_APPEND, one write per
// line) after its file is in place, so the index is never ahead of the files. A reader trusts an entry only if
// its file is still in the directory and, for tasks not yet finished, still has the modification time the entry
// recorded; anything else (a writer killed between its rename and its append, an append lost to a concurrent
// compaction, a file copied in by hand) is read from its file and the index healed. Finished tasks' files are not
// checked: after the outcome nothing but `forget`/`prune` (which the directory listing shows) changes them. While
// the directory is as a stamp at the log's end found it (see DirStamp), it is not listed at all.
import { isAscii } from "node:buffer";
import { join } from "node:path";
import {
  INDEX_TAIL_MAX_BYTES,
  MAX_INDEX_BYTES,
  PROVISIONAL_MIN_BYTES,
  RAW_INDEX_MIN_BYTES,
  STAMP_TAIL_MAX_BYTES,
} from "../limits.js";
import type { HandleSummary } from "../model.js";
import { logChecksum, logChecksumIs } from "../hash.js";
import { appendOwnFile, readOwnFile, readOwnFrom, writeOwnFile } from "./safe-fs.js";
import { decode, encode, peekStamp, type DirStamp, type Line } from "./index-line.js";

/**
 * How far a reader of the log's bytes unparsed (SummaryIndex.raw, readRawListing) trusts them:
 * - "copied": rows copied to the output as they are (`list --json`): the stamp stands and the log's bytes have the
 *   checksum it recorded (100,000 handles: ~7 ms to compare);
 * - "parsed": every row used is parsed and checked as load checks it (a page of `list` on a terminal): the stamp
 *   stands;
 * - "provisional": every row used is parsed, and the log is taken as it is, its stamp standing or not (a writer since
 *   then, a file removed by hand): what a full read corrects a moment later (the dashboard's first frame); only a
 *   log past PROVISIONAL_MIN_BYTES.
 */
export type RawTrust = "copied" | "parsed" | "provisional";

/** A place in the log: a line's end in the file that has this inode (a compaction renames another file over it). */
export interface LogPosition {
  ino: number;
  offset: number;
}

export class SummaryIndex {
  readonly path: string;
  /** The log as the last load read it: a stamp written after it covers it (see stamp), until `release`. */
  private loaded: Buffer | undefined;
  /** Read by raw() and not taken: load() parses it instead of reading the file again. */
  private unused: { bytes: Buffer; ino: number } | undefined;

  constructor(dir: string) {
    this.path = join(dir, ".index.ndjson");
  }

  /** Appends changes; a failure is not fatal (the next reader heals the index from the files). */
  append(lines: Line[]): void {
    if (lines.length > 0) this.appendText(lines.map((line) => `${encode(line)}\n`).join(""));
  }

  private appendText(text: string): void {
    try {
      // Never through a link or into a FIFO planted as the index (appendOwnFile refuses them; the next reader
      // finds the index unreadable and replaces it).
      appendOwnFile(this.path, text);
    } catch {
      /* the index is a cache */
    }
  }

  /**
   * Forgets the log's bytes kept for a stamp (see readSummaries, readRawListing: a stamp follows its load within the
   * same reading). A dashboard keeps its store for hours, and a log of 100,000 handles is 35 MB.
   */
  release(): void {
    this.loaded = undefined;
  }

  /**
   * Appends changes, then a stamp of the directory (see DirStamp) that covers the log as the last load read it and
   * these lines: a line another process appended since then leaves the stamp where it does not stand.
   */
  stamp(lines: Line[], dirMtime: number, count: number): void {
    if (!this.loaded) return this.append(lines);
    const text = lines.map((line) => `${encode(line)}\n`).join("");
    const bytes = this.loaded.length + Buffer.byteLength(text);
    // Hashed only where copying rows unparsed pays (see raw): node:zlib is not loaded for a small store.
    const hash = bytes >= RAW_INDEX_MIN_BYTES ? logChecksum([this.loaded, text]) : null;
    this.appendText(`${text}${encode({ dirMtime, count, bytes, hash })}\n`);
  }

  /** `room`: see readOwnFile (for list --json's output: see joinRows). */
  private read(room = false): { bytes: Buffer; ino: number } | undefined {
    const unused = this.unused;
    this.unused = undefined;
    if (unused) return unused;
    try {
      // A link, FIFO or device as the index, or one past MAX_INDEX_BYTES, is not read: it is rebuilt from the files.
      let ino = 0;
      const bytes = readOwnFile(this.path, MAX_INDEX_BYTES, (stats) => (ino = stats.ino), room);
      return { bytes, ino };
    } catch {
      return undefined;
    }
  }

  /**
   * The log's text, unparsed, when a stamp covers a large log (one past RAW_INDEX_MIN_BYTES) whose bytes before it
   * are as the stamping reader checked them: see RawTrust. `checked` is where those bytes end. When the stamp stands
   * (the log's last line, for this directory mtime), the bytes are those alone and `listing` is false; else, lines
   * appended after it (a task saved since: at most STAMP_TAIL_MAX_BYTES of them) come too, to be parsed, and
   * `listing` says the directory must be listed to know its files. Else undefined (and the bytes read are kept for
   * load).
   */
  raw(
    dirMtime: number,
    trust: RawTrust,
  ): { bytes: Buffer; stamp?: DirStamp; checked: number; listing: boolean; plain: boolean } | undefined {
    const read = this.read(trust === "copied");
    if (!read) return undefined;
    const { bytes } = read;
    const stamp = trust === "provisional" ? undefined : lastStamp(bytes);
    const stands = stamp?.dirMtime === dirMtime && stamp.end === bytes.length;
    const stamped = stamp
      ? { bytes: stands ? bytes.subarray(0, stamp.bytes) : bytes, stamp, checked: stamp.bytes, listing: !stands }
      : undefined;
    const taken =
      trust === "provisional"
        ? bytes.length >= PROVISIONAL_MIN_BYTES
          ? provisional(bytes, dirMtime)
          : undefined
        : trust === "parsed" || (stamped && logChecksumIs([bytes.subarray(0, stamped.checked)], stamped.stamp.hash!))
          ? stamped
          : undefined;
    if (!taken) {
      this.unused = read;
      return undefined;
    }
    // A stamp written after these bytes vouches for them (see stamp): only for bytes whose hash was compared.
    this.loaded = trust === "copied" ? bytes : undefined;
    // Left as bytes (never one string: 35 MB made a string is ~40 ms of a 100,000-handle list).
    return { ...taken, plain: isAscii(taken.bytes) && taken.bytes.indexOf(0x7f) === -1 };
  }

  /**
   * The latest summary of each stem, how many lines the log holds, whether every line parsed, and the directory
   * stamp when it stands at the log's end (a line after it, or a damaged one, leaves none). `onPeek` is told of the
   * stamp on the last line before the rest is parsed: a caller that must list the directory without one starts.
   * `end`: where the lines read end (see appendedSince).
   */
  load(onPeek?: (stamp: DirStamp | undefined) => void): {
    entries: Map<string, HandleSummary>;
    lines: number;
    damaged: boolean;
    outdated?: boolean;
    stamp?: DirStamp;
    end?: LogPosition;
  } {
    const entries = new Map<string, HandleSummary>();
    const read = this.read();
    this.loaded = read?.bytes;
    const peeked = read && peekStamp(read.bytes);
    onPeek?.(peeked);
    if (!read) return { entries, lines: 0, damaged: true };
    const { bytes } = read;
    // Made a string without UTF-8 decoding when ASCII (ids, names and times are): 2 MB of index, ~3 ms instead of ~7.
    const text = bytes.toString(isAscii(bytes) ? "latin1" : "utf8");
    let lines = 0;
    let damaged = false;
    let outdated = false; // lines in format 2: read, and the log compacted in the current one
    let last: Line | undefined;
    for (const raw of text.split("\n")) {
      if (!raw) continue;
      lines++;
      try {
        const line = (last = decode(JSON.parse(raw)));
        if (!line) damaged = true;
        else if (raw.charCodeAt(1) === 50) outdated = true;
        if (!line) continue;
        if ("removed" in line) entries.delete(line.stem);
        else if (!("dirMtime" in line)) entries.set(line.stem, line);
      } catch {
        damaged = true; // a line cut by a crash; the files tell the truth
        last = undefined;
      }
    }
    const stands = !damaged && last !== undefined && "dirMtime" in last;
    const end = { ino: read.ino, offset: bytes.lastIndexOf(0x0a) + 1 };
    return { entries, lines, damaged, outdated, stamp: stands && !outdated ? peeked : undefined, end };
  }

  /**
   * The lines appended to the log since `at` (from load's `end` or an earlier call), and where they end: a long-running
   * reader's look at what changed without parsing the whole log again. Undefined when that cannot be told from the
   * log's end: the log was rewritten (another inode: compacted, replaced), cut shorter, grew by more than
   * INDEX_TAIL_MAX_BYTES, or has a line that does not parse; then load() reads it all. A line cut short (a writer's
   * append under way) is left for the next call.
   */
  appendedSince(at: LogPosition): { lines: Line[]; end: LogPosition } | undefined {
    let read;
    try {
      read = readOwnFrom(this.path, at.offset, INDEX_TAIL_MAX_BYTES + 1);
    } catch {
      return undefined;
    }
    const { bytes, ino, size } = read;
    if (ino !== at.ino || size < at.offset || bytes.length > INDEX_TAIL_MAX_BYTES) return undefined;
    const cut = bytes.lastIndexOf(0x0a) + 1;
    const lines: Line[] = [];
    for (const raw of bytes.toString("utf8", 0, cut).split("\n")) {
      if (!raw) continue;
      let line: Line | undefined;
      try {
        line = decode(JSON.parse(raw));
      } catch {
        return undefined;
      }
      if (!line) return undefined;
      lines.push(line);
    }
    return { lines, end: { ino, offset: at.offset + cut } };
  }

  /** Rewrites the log as one line per live handle (temp file + rename; appends racing with it are healed later). */
  compact(summaries: Iterable<HandleSummary>): void {
    this.loaded = undefined; // renamed into the directory: no stamp of it stands
    try {
      let text = "";
      for (const summary of summaries) text += `${encode(summary)}\n`;
      writeOwnFile(this.path, text); // temp file ".tmp-…" (swept like handle temps) renamed over the index
    } catch {
      /* the index is a cache */
    }
  }
}

/**
 * The log's last stamp with a hash (a large log's), and where its line ends, if it is among the log's last
 * STAMP_TAIL_MAX_BYTES: a stamp not at the log's end covers the bytes before it all the same (they are as its reader
 * checked them if their hash is its own); what follows it is parsed. Undefined if the last stamp line there is not a
 * stamp that was at the log's end when written (its `bytes`, where it starts).
 */
function lastStamp(bytes: Buffer): (DirStamp & { end: number }) | undefined {
  const at = bytes.lastIndexOf(STAMP_START, bytes.length - 1);
  if (at === -1 || bytes.length - at > STAMP_TAIL_MAX_BYTES) return undefined;
  const start = at + 1;
  let end = bytes.indexOf(0x0a, start);
  end = end === -1 ? bytes.length : end + 1;
  const stamp = peekStamp(bytes.subarray(0, end));
  return stamp && stamp.hash !== null && stamp.bytes === start ? { ...stamp, end } : undefined;
}

const STAMP_START = Buffer.from('\n["dir",');

/**
 * A provisional read's bytes (see RawTrust): before the stamp at the log's end if it stands for this directory
 * mtime, else the whole log (its stamps, wherever they are, are lines the reader skips). Every row used is parsed.
 */
function provisional(
  bytes: Buffer,
  dirMtime: number,
): { bytes: Buffer; stamp?: DirStamp; checked: number; listing: false } {
  const stamp = peekStamp(bytes);
  return stamp?.dirMtime === dirMtime && stamp.hash !== null
    ? { bytes: bytes.subarray(0, stamp.bytes), stamp, checked: stamp.bytes, listing: false }
    : { bytes, checked: bytes.length, listing: false };
}
