// Files a person names on the command line (`server import <file>`, `import <file>`, `--args @file`, `--input @file`,
// `--sampling-reply @file`, `check --junit <file>`, `--trace=<file>`): read or written only if they are regular
// files. A FIFO waited for a writer for ever, in a thread Ctrl-C and SIGTERM could not stop (even process.exit waited
// on it); a device such as /dev/zero is read until memory runs out. So the file is opened with O_NONBLOCK (opening a
// FIFO does not wait), its type checked with fstat on the open descriptor (no window between a check and the open),
// and it is read up to a cap. Unlike the store's own files (safe-fs.ts), a link is followed and another user's file
// read: the person named it. Stdin stays `-`, read by the command as a stream that Ctrl-C stops.
import { closeSync, constants, fstatSync, ftruncateSync, openSync, readSync, writeSync } from "node:fs";
import { UsageError } from "../errors.js";
import { sanitizeLine } from "../sanitize.js";
import { formatBytes, kind } from "./safe-fs.js";

const { O_RDONLY, O_WRONLY, O_APPEND, O_CREAT, O_NONBLOCK } = constants;

/** A file named on the command line that cannot be used: not a regular file, too large, or an errno error. */
function refused(path: string, what: string, why: string, hint?: string): UsageError {
  return new UsageError(`cannot ${what} ${sanitizeLine(path)}: ${why}`, hint);
}

function errnoOf(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? (error as Error).message;
}

/**
 * The text of a file named on the command line, if it is a regular file of at most `maxBytes` (else a UsageError,
 * exit 2, naming what it is; errno errors such as ENOENT the same way). `stdin`: the hint offers `-` for stdin;
 * `what`: the option it was given to ("--args"), named in the error.
 */
export function readNamedFile(
  path: string,
  maxBytes: number,
  options: { stdin?: boolean; what?: string } = {},
): string {
  const what = options.what ? `read ${options.what} from` : "read";
  let fd: number;
  try {
    fd = openSync(path, O_RDONLY | O_NONBLOCK);
  } catch (error) {
    throw refused(path, what, errnoOf(error));
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile())
      throw refused(
        path,
        what,
        `it is ${kind(stats)}, and mcp-task reads only regular files`,
        options.stdin ? "save it to a file first, or pipe it in with - (stdin)" : "save it to a file first",
      );
    if (stats.size > maxBytes)
      throw refused(path, what, `it is larger than ${formatBytes(maxBytes)} (${formatBytes(stats.size)})`);
    // One byte more than the size: a file that grows while it is read is read on up to the cap, never past it.
    let buffer = Buffer.allocUnsafe(Math.min(stats.size, maxBytes) + 1);
    let length = 0;
    for (;;) {
      if (length === buffer.length) {
        if (length > maxBytes) throw refused(path, what, `it is larger than ${formatBytes(maxBytes)}`);
        const bigger = Buffer.allocUnsafe(Math.min(2 * length, maxBytes + 1));
        buffer.copy(bigger, 0, 0, length);
        buffer = bigger;
      }
      const n = readSync(fd, buffer, length, buffer.length - length, null);
      if (n === 0) break;
      length += n;
    }
    return buffer.toString("utf8", 0, length);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw refused(path, what, errnoOf(error));
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes a whole file named on the command line (a report), if it is a regular file or does not exist yet (created
 * 0666 less the umask, as any program's output file): a FIFO without a reader is refused at once (ENXIO), one with a
 * reader, a device or a directory is refused by name; the file is emptied only once it is known to be a regular one.
 * `refuse` makes the error the caller throws.
 */
export function writeNamedFile(path: string, data: string, refuse: (why: string) => Error): void {
  let fd: number;
  try {
    fd = openSync(path, O_WRONLY | O_CREAT | O_NONBLOCK, 0o666);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw refuse(code === "ENXIO" ? "it is a FIFO or socket, and mcp-task writes only regular files" : errnoOf(error));
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw refuse(`it is ${kind(stats)}, and mcp-task writes only regular files`);
    ftruncateSync(fd, 0);
    const bytes = Buffer.from(data, "utf8");
    for (let done = 0; done < bytes.length;) done += writeSync(fd, bytes, done, bytes.length - done, done);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === undefined) throw error;
    throw refuse(errnoOf(error));
  } finally {
    closeSync(fd);
  }
}

/**
 * Why a file named for output that is appended to (a trace) may not be used, or undefined when it may: a regular file
 * (created 0600 if missing) or a character device (/dev/null, a terminal). A FIFO is refused: each append opens the
 * file again, and an open waits for a reader for ever.
 */
export function namedOutputProblem(path: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, O_WRONLY | O_APPEND | O_CREAT | O_NONBLOCK, 0o600);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === "ENXIO" ? "it is a FIFO or socket, and mcp-task writes only to regular files" : errnoOf(error);
  }
  try {
    const stats = fstatSync(fd);
    if (stats.isFile() || stats.isCharacterDevice()) return undefined;
    return `it is ${kind(stats)}, and mcp-task writes only to regular files`;
  } finally {
    closeSync(fd);
  }
}

/**
 * A UsageError unless the trace file `file` can be written (a regular file, made if missing, or a device such as
 * /dev/null; a FIFO waited for a reader for ever): said before any connection, where a failed write would otherwise
 * look like a server that cannot be reached.
 */
export function checkTraceFile(file: string): void {
  const why = namedOutputProblem(file);
  if (why !== undefined)
    throw new UsageError(
      `cannot write the trace file ${sanitizeLine(file)} (${why})`,
      "give a file in a folder that exists and is writable, as in: --trace=/tmp/mcp-task.trace",
    );
}
