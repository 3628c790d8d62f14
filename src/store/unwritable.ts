// Telling a write of the store that failed because the store cannot be written (a full disk, no inodes, a quota, a
// read-only file system, no permission, a failing disk) from any other failure, by its errno: StoreUnwritableError
// (exit 9, docs/cli.md), naming the folder and the cause in words. Every writer of <home> (safe-fs.ts, the handle
// store, the private folders) tells its failures through here.
import { existsSync, mkdirSync, statfsSync } from "node:fs";
import { dirname } from "node:path";
import { StoreUnwritableError, type StoreFault } from "../errors.js";

/**
 * A write to the store that failed because the store cannot be written (a full disk, no inodes, a quota, a read-only
 * file system, no permission, a failing disk), as StoreUnwritableError (exit 9) naming `path`'s folder; any other
 * error as it is. Told by the errno (`code`), never by the message. `dir`: `path` is the folder itself (a mkdir).
 */
export function unwritable(error: unknown, path: string, dir = false): unknown {
  if (error instanceof StoreUnwritableError) return error;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const folder = dir ? path : dirname(path);
  switch (code) {
    case "ENOSPC":
      return StoreUnwritableError.of(folder, outOfInodes(folder) ? "inodes" : "ENOSPC");
    case "EDQUOT":
    case "EROFS":
    case "EACCES":
    case "EPERM":
    case "EIO":
      return StoreUnwritableError.of(folder, code as StoreFault);
    default:
      return error;
  }
}

/** ENOSPC where blocks are left but no inode (a file cannot be created): told apart by statfs, only on the error. */
function outOfInodes(folder: string): boolean {
  try {
    const fs = statfsSync(folder);
    return fs.files > 0 && fs.ffree === 0 && fs.bavail > 0;
  } catch {
    return false;
  }
}

/** Runs a write of the store (synchronous), its failure told as unwritable() tells it. */
export function writing<T>(path: string, write: () => T): T {
  try {
    return write();
  } catch (error) {
    throw unwritable(error, path);
  }
}

/** The same for a write that is a promise. */
export async function writingAsync<T>(path: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    throw unwritable(error, path);
  }
}

/**
 * Makes a folder and those above it that are missing. A failure names the folder that could not be written in: the
 * first missing one's parent. Node's recursive mkdir reports ENOENT where the parent is on a read-only file system;
 * the first missing folder made on its own gives the real errno.
 */
export function makeDirs(dir: string, mode: number): void {
  try {
    mkdirSync(dir, { recursive: true, mode });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw unwritable(error, dir);
    let missing = dir;
    while (dirname(missing) !== missing && !existsSync(dirname(missing))) missing = dirname(missing);
    try {
      mkdirSync(missing, { mode });
    } catch (real) {
      throw unwritable(real, missing);
    }
    throw unwritable(error, dir); // it could be made now: the first error stands
  }
}
