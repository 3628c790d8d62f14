// What makes the handle store safe to share between processes: a handle file written atomically (temp file in the
// same directory, fsync, rename or link), the per-handle lock that serialises read-change-write updates, and the
// sweep of temp files that processes killed mid-write leave.
import { constants } from "node:fs";
import { link, lstat, open, readdir, rename, unlink } from "node:fs/promises";
import { join } from "node:path";
import { removeQuietly, tempBeside } from "./safe-fs.js";
import { unwritable, writingAsync } from "./unwritable.js";

/**
 * Writes `text` at `path` atomically: a temp file in the same directory, fsync, rename. Returns the file's mtime (a
 * rename keeps it: the index can tell this version from a later one); `exclusive`: false, and nothing written, if a
 * file has that name already.
 */
export async function writeAtomically(path: string, text: string, exclusive: boolean): Promise<number | false> {
  const temp = tempBeside(path);
  // Created exclusively (never an existing file or link); the rename replaces whatever is at the name. A write
  // that fails (a full disk, a read-only file system: StoreUnwritableError) leaves no temp file behind.
  const file = await writingAsync(path, () =>
    open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0), 0o600),
  );
  let mtime: number;
  try {
    try {
      await file.writeFile(text);
      await file.sync();
      mtime = (await file.stat()).mtimeMs; // a rename keeps it: the index can tell this version from a later one
    } finally {
      await file.close();
    }
    if (exclusive) {
      // link() puts the complete file in place only if no file has that name (EEXIST otherwise): atomic, like
      // rename.
      try {
        await link(temp, path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
        throw error;
      } finally {
        await unlink(temp).catch(() => {});
      }
    } else await rename(temp, path);
  } catch (error) {
    removeQuietly(temp);
    throw unwritable(error, path);
  }
  return mtime;
}

/** Takes the lock of the handle at `path` (stem `stem`, in `dir`); resolves to its release. */
export async function lockHandle(dir: string, path: string, stem: string): Promise<() => Promise<void>> {
  // Loaded here, not at start: proper-lockfile brings graceful-fs, which patches fs when loaded (~10 ms that
  // `list` and the other read-only commands need not pay).
  const { default: lockfile } = await import("proper-lockfile");
  // The lock is a folder made beside the handle. Tried once first: proper-lockfile retries whatever fails, and
  // only a lock another process holds is worth waiting for; a store that cannot be written (the folder cannot be
  // made: StoreUnwritableError) fails at once, not after 15 s of retries.
  const lockfilePath = join(dir, `.lock-${stem}`);
  // A lock taken over as stale while held (this process stalled past `stale`), or whose folder went (the store
  // removed): the write goes on, as in the auth store; proper-lockfile's default would throw from a timer and end the
  // process with a stack trace.
  const options = { realpath: false, lockfilePath, stale: 10_000, onCompromised: () => {} };
  return lockfile.lock(path, { ...options, retries: 0 }).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== "ELOCKED") throw unwritable(error, lockfilePath);
    // Retries span more than `stale` (about 15 s): a lock left by a process killed while holding it is taken
    // over once stale, instead of failing this update ("Lock file is already being held", exit 1).
    return writingAsync(lockfilePath, () =>
      lockfile.lock(path, { ...options, retries: { retries: 150, minTimeout: 5, maxTimeout: 100 } }),
    );
  });
}

/** Removes the temp files (`.tmp-…`) in `dirs` older than `olderThanMs` at `now`. Returns how many. */
export async function sweepTempFiles(dirs: string[], now: number, olderThanMs: number): Promise<number> {
  let removed = 0;
  for (const dir of dirs) {
    let names: string[];
    try {
      names = await readdir(dir);
    } catch {
      continue; // not made yet
    }
    for (const name of names) {
      if (!name.startsWith(".tmp-")) continue;
      try {
        if (now - (await lstat(join(dir, name))).mtimeMs > olderThanMs) {
          await unlink(join(dir, name));
          removed++;
        }
      } catch {
        /* gone already */
      }
    }
  }
  return removed;
}
