// The summary of every handle: from the index (one file) checked against the directory, or, while the directory
// is as the index's last stamp found it (see DirStamp in summary-index.ts), from the index without listing it.
import { lstatSync, type Stats } from "node:fs";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import type { HandleSummary } from "../model.js";
import { DIR_STAMP_MARGIN_MS, MAX_HANDLE_BYTES } from "../limits.js";
import { readOwnText } from "./safe-fs.js";
import { badReason, parseHandle, summarize, type OnBad } from "./handle-file.js";
import type { DirStamp, Line } from "./index-line.js";
import type { LogPosition, SummaryIndex } from "./summary-index.js";

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
 * `onEnd` is told where the log's lines read end (what was appended after it: SummaryIndex.appendedSince).
 */
export async function readSummaries(
  dir: string,
  index: SummaryIndex,
  onBad?: OnBad,
  onEnd?: (end: LogPosition | undefined) => void,
): Promise<HandleSummary[]> {
  try {
    return await readAllSummaries(dir, index, onBad, onEnd);
  } finally {
    index.release();
  }
}

async function readAllSummaries(
  dir: string,
  index: SummaryIndex,
  onBad?: OnBad,
  onEnd?: (end: LogPosition | undefined) => void,
): Promise<HandleSummary[]> {
  // The directory's mtime before anything is read: whatever changes after this moment moves it (see DirStamp).
  const dirMtime = lstatSync(dir).mtimeMs;
  // Without a stamp to spare it, the directory is listed on libuv's thread pool while this thread parses the index
  // (10,000 handles: ~9 ms of listing hidden behind ~25 ms of parsing; either order is right, see below).
  let listing: Promise<string[]> | undefined;
  const loaded = index.load((stamp) => {
    if (stamp?.dirMtime !== dirMtime) listing = readdir(dir);
  });
  const { entries, stamp } = loaded;
  onEnd?.(loaded.end);
  if (stamp && stamp.dirMtime === dirMtime && stamp.count === entries.size)
    return fromStamped(index, dir, entries.values(), stamp, onBad);
  return fromListing(dir, index, loaded, await (listing ?? readdir(dir)), dirMtime, onBad);
}

/**
 * The entries, as the stamp vouches for them (none: a provisional listing's, see RawTrust); unfinished tasks' files
 * are still checked for edits in place.
 */
export function fromStamped(
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
