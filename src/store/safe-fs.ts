// Reading and writing the files of the store (<home>) without trusting what is found there. The store is private
// (0700), but a file in it may still not be one mcp-task wrote: a symbolic link, a FIFO or a device planted there
// (by hand, by an import, by another tool), or a file grown past any size mcp-task writes. So:
// - reads open with O_NOFOLLOW (a symlink is refused, never followed) and O_NONBLOCK (opening a FIFO does not
//   wait for a writer), then check the open file with fstat: a regular file, owned by this user, no larger than
//   the caller's cap; only then is it read, and never more than the cap even if it grows meanwhile;
// - appends open the same way (O_APPEND | O_CREAT | O_NOFOLLOW) and check the file before writing to it;
// - whole files are written as a temp file created exclusively (O_EXCL: never an existing file or link) and renamed
//   over the target (a rename replaces a link, it does not write through it).
// Hand-rolled over node:fs: no library offers "open without following, then fstat, then read at most N bytes",
// and readFileSync follows links, blocks on FIFOs and reads /dev/zero until memory runs out.
import {
  closeSync,
  constants,
  fstatSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
  writeSync,
  type Stats,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { UsageError } from "../errors.js";
import { unwritable, writing } from "./unwritable.js";
import { tempSuffix } from "../hash.js";

const { O_RDONLY, O_WRONLY, O_APPEND, O_CREAT, O_EXCL, O_NONBLOCK } = constants;
/** Absent on Windows (where links are not planted the same way): then 0, and the fstat checks still apply. */
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;

/**
 * A file in the store that is not one mcp-task wrote: a link, a FIFO or device, another user's, or too large. Where
 * it reaches the user (a command that needed that very file), exit 2, like a store directory that is not ours.
 */
export class UnsafeFileError extends UsageError {
  constructor(
    readonly path: string,
    /** What is wrong with it, in a few words: "a symbolic link", "a FIFO", "larger than 32 MiB"... */
    readonly reason: string,
  ) {
    super(`${path} is ${reason}: mcp-task reads only regular files it wrote`, "remove it (mcp-task did not write it)");
  }
}

const uid = process.getuid?.();

/** What a file that is not a regular file is, in a few words ("a FIFO", "a device"...). */
export function kind(stats: Stats): string {
  if (stats.isSymbolicLink()) return "a symbolic link";
  if (stats.isFIFO()) return "a FIFO";
  if (stats.isSocket()) return "a socket";
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return "a device";
  if (stats.isDirectory()) return "a directory";
  return "not a regular file";
}

/** Why an open file may not be used (undefined when it may): a regular file of ours, at most `maxBytes`. */
function refusal(stats: Stats, maxBytes: number): string | undefined {
  if (!stats.isFile()) return kind(stats);
  if (uid !== undefined && stats.uid !== uid) return `owned by another user (uid ${stats.uid})`;
  if (stats.size > maxBytes) return `larger than ${formatBytes(maxBytes)} (${formatBytes(stats.size)})`;
  return undefined;
}

export function formatBytes(n: number): string {
  if (n >= 1024 * 1024) return `${Math.round(n / (1024 * 1024))} MiB`;
  if (n >= 1024) return `${Math.round(n / 1024)} KiB`;
  return `${n} bytes`;
}

/** Opens without following a final link; a link is reported as such (ELOOP, or EMLINK on the BSDs). */
function openNoFollow(path: string, flags: number, mode?: number): number {
  try {
    return openSync(path, flags | O_NOFOLLOW | O_NONBLOCK, mode);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ELOOP" || code === "EMLINK") throw new UnsafeFileError(path, "a symbolic link");
    if (code === "ENXIO") throw new UnsafeFileError(path, "a FIFO or socket"); // a FIFO opened for writing with no reader
    throw error;
  }
}

/**
 * The bytes of a file of the store, read only if it is a regular file owned by this user and at most `maxBytes`
 * long (throws UnsafeFileError otherwise; errno errors such as ENOENT as they come). A file that grows while it is
 * read is read up to the cap, and refused if it passes it. `room`: as many bytes again after the file's, in memory
 * that no other buffer shares (see roomAfter).
 */
export function readOwnFile(path: string, maxBytes: number, onStats?: (stats: Stats) => void, room = false): Buffer {
  const { buffer, length } = readOwn(path, maxBytes, onStats, room);
  return buffer.subarray(0, length);
}

/** The memory after `bytes` that a readOwnFile with `room` left them (0 for any other buffer's). */
export function roomAfter(bytes: Buffer): number {
  return roomy.has(bytes.buffer) ? bytes.buffer.byteLength - bytes.byteOffset - bytes.length : 0;
}
const roomy = new WeakSet<ArrayBufferLike>();

/** The same, as UTF-8 text (decoded from the read buffer directly: no view made for 10,000 small files). */
export function readOwnText(path: string, maxBytes: number, onStats?: (stats: Stats) => void): string {
  const { buffer, length } = readOwn(path, maxBytes, onStats);
  return buffer.toString("utf8", 0, length);
}

function readOwn(
  path: string,
  maxBytes: number,
  onStats?: (stats: Stats) => void,
  room = false,
): { buffer: Buffer; length: number } {
  const fd = openNoFollow(path, O_RDONLY);
  try {
    const stats = fstatSync(fd);
    const why = refusal(stats, maxBytes);
    if (why) throw new UnsafeFileError(path, why);
    onStats?.(stats);
    // One byte more than the size: a file that grew since fstat is read on (up to the cap), never past it.
    // With room after it: memory of its own (never a slice of Buffer's shared pool), read up to `end`.
    const allocate = (size: number) => (room ? Buffer.allocUnsafeSlow(2 * size) : Buffer.allocUnsafe(size));
    let end = Math.min(stats.size + 1, maxBytes + 1);
    let buffer = allocate(end);
    let length = 0;
    for (;;) {
      if (length === end) {
        if (length > maxBytes) throw new UnsafeFileError(path, `larger than ${formatBytes(maxBytes)}`);
        end = Math.min(end * 2, maxBytes + 1);
        const bigger = allocate(end);
        buffer.copy(bigger, 0, 0, length);
        buffer = bigger;
      }
      const n = readSync(fd, buffer, length, end - length, null);
      if (n === 0) break;
      length += n;
    }
    if (length > maxBytes) throw new UnsafeFileError(path, `larger than ${formatBytes(maxBytes)}`);
    if (room) roomy.add(buffer.buffer);
    return { buffer, length };
  } finally {
    closeSync(fd);
  }
}

/** Checks, without reading it, that a file is one the store could read (throws as readOwnFile does). */
export function checkOwnFile(path: string, maxBytes: number): void {
  const fd = openNoFollow(path, O_RDONLY);
  try {
    const why = refusal(fstatSync(fd), maxBytes);
    if (why) throw new UnsafeFileError(path, why);
  } finally {
    closeSync(fd);
  }
}

/** The last `maxBytes` of a file of the store (a log), under the same checks but for its size. */
export function readOwnTail(path: string, maxBytes: number): string {
  return readOwnSpan(path, (size) => Math.max(0, size - maxBytes), maxBytes).bytes.toString("utf8");
}

/**
 * The bytes of a file of the store from `offset` on, at most `maxBytes` of them (a log's lines appended since a
 * reader last looked), under the same checks but for its size; with the open file's inode and size, so that the
 * reader can tell its file from another renamed over it (a log rewritten) or one cut shorter.
 */
export function readOwnFrom(
  path: string,
  offset: number,
  maxBytes: number,
): { bytes: Buffer; ino: number; size: number } {
  return readOwnSpan(path, () => offset, maxBytes);
}

function readOwnSpan(
  path: string,
  start: (size: number) => number,
  maxBytes: number,
): { bytes: Buffer; ino: number; size: number } {
  const fd = openNoFollow(path, O_RDONLY);
  try {
    const stats = fstatSync(fd);
    const why = refusal(stats, Number.MAX_SAFE_INTEGER);
    if (why) throw new UnsafeFileError(path, why);
    const from = start(stats.size);
    const buffer = Buffer.allocUnsafe(Math.max(0, Math.min(stats.size - from, maxBytes)));
    let length = 0;
    while (length < buffer.length) {
      const n = readSync(fd, buffer, length, buffer.length - length, from + length);
      if (n === 0) break;
      length += n;
    }
    return { bytes: buffer.subarray(0, length), ino: stats.ino, size: stats.size };
  } finally {
    closeSync(fd);
  }
}

/**
 * Opens a file of the store for appending (created 0600 if missing), refusing a link, a FIFO, a device or another
 * user's file. The caller writes to and closes the descriptor (a broker's log is handed to its process as stdio).
 * `truncateAbove`: a file already longer than this is emptied first (a log kept across runs stays bounded).
 */
export function openOwnAppend(path: string, truncateAbove = Number.MAX_SAFE_INTEGER): number {
  const fd = writing(path, () => openNoFollow(path, O_WRONLY | O_APPEND | O_CREAT, 0o600));
  try {
    const stats = fstatSync(fd);
    const why = refusal(stats, Number.MAX_SAFE_INTEGER);
    if (why) throw new UnsafeFileError(path, why);
    if (stats.size > truncateAbove) {
      closeSync(fd);
      const fresh = openNoFollow(path, O_WRONLY | O_APPEND | O_CREAT | constants.O_TRUNC, 0o600);
      return fresh;
    }
    return fd;
  } catch (error) {
    closeQuietly(fd);
    throw unwritable(error, path);
  }
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    /* closed already, or the close failed too: the write's error is the one to tell */
  }
}

function writeAll(fd: number, data: string): void {
  const bytes = Buffer.from(data, "utf8");
  for (let done = 0; done < bytes.length;) done += writeSync(fd, bytes, done, bytes.length - done);
}

/** Appends to a file of the store in one write (O_APPEND: lines from concurrent writers do not interleave). */
export function appendOwnFile(path: string, data: string): void {
  const fd = openOwnAppend(path);
  try {
    writeAll(fd, data);
  } catch (error) {
    throw unwritable(error, path);
  } finally {
    closeQuietly(fd);
  }
}

/** The name of a temp file beside `path` (`.tmp-…`: what `prune` sweeps when a killed process left one). */
export function tempBeside(path: string): string {
  return join(dirname(path), `.tmp-${basename(path).slice(0, 40)}-${process.pid}-${tempSuffix()}`);
}

/**
 * Writes a whole file of the store: a temp file beside it, created exclusively (never an existing file or link),
 * then renamed over it (a link in its place is replaced, not followed). Not fsynced: for records that are
 * rewritten when lost (broker records, the index); handles are written with fsync by their store. A write that
 * fails (a full disk, a read-only file system: StoreUnwritableError) removes its temp file.
 */
export function writeOwnFile(path: string, data: string): void {
  const temp = tempBeside(path);
  const fd = writing(path, () => openSync(temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600));
  try {
    try {
      writeAll(fd, data);
    } finally {
      closeSync(fd); // a close can fail too (EIO, ENOSPC on some file systems): the temp file goes all the same
    }
    renameSync(temp, path);
  } catch (error) {
    removeQuietly(temp);
    throw unwritable(error, path);
  }
}

/** Removes a temp file whose write failed; a failure to remove it is not the error to tell (prune sweeps it later). */
export function removeQuietly(path: string): void {
  try {
    rmSync(path, { force: true });
  } catch {
    /* left for prune's sweep */
  }
}
