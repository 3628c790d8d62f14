// A broker's own trace of its server connection, always kept (`server logs --trace`): NDJSON in <home>/brokers/
// <key>.trace (0600, through store/safe-fs.ts: never written through a link planted there), next to its log and,
// like it, kept after the broker has gone. Bounded: past MAX_BROKER_TRACE_BYTES the file becomes <key>.trace.1
// (the one before is dropped) and a new one begins; an event past MAX_BROKER_TRACE_EVENT_BYTES keeps the start of its
// message. Secrets: the trace redacts credential headers (protocol/trace.ts), and each line here is redacted again
// of the resolved values of the server's ${env:} references.
//
// Rotation is hand-rolled (a rename) rather than a logging library's: a few lines, and the file must be opened the
// store's way (no link followed, a regular file of this user's), which no rotating-file library does.
import { closeSync, fstatSync, renameSync, rmSync, writeSync } from "node:fs";
import { MAX_BROKER_TRACE_BYTES, MAX_BROKER_TRACE_EVENT_BYTES } from "../limits.js";
import { redactWith } from "../protocol/server.js";
import { exceedsJson, type Trace, type TraceEvent } from "../protocol/trace.js";
import { safeJson } from "../sanitize.js";
import { openOwnAppend, UnsafeFileError } from "../store/safe-fs.js";

/** The files of a broker's trace, oldest first. */
export const traceFiles = (path: string): string[] => [`${path}.1`, path];

/** One event as its line in the file: whole, or with the start of its message when it is too long. */
export function traceLine(event: TraceEvent, secrets: ReadonlyMap<string, string>): string {
  // A message far past the bound (a 48 MB reply, a schema 20,000 levels deep) is not serialised to be cut: the
  // broker's always-on trace must not cost what the message does. Its id and method say what it was.
  if ((event.dir === "out" || event.dir === "in") && exceedsJson(event.message, 4 * MAX_BROKER_TRACE_EVENT_BYTES)) {
    const { id, method } = (event.message ?? {}) as { id?: unknown; method?: unknown };
    const named = { ...(id !== undefined && { id }), ...(typeof method === "string" && { method }) };
    return `${redactWith(safeJson({ ...event, message: named, cut: 4 * MAX_BROKER_TRACE_EVENT_BYTES }), secrets)}\n`;
  }
  let line = redactWith(safeJson(event), secrets);
  if (Buffer.byteLength(line) > MAX_BROKER_TRACE_EVENT_BYTES && (event.dir === "out" || event.dir === "in")) {
    const text = redactWith(safeJson(event.message), secrets);
    const start = text.slice(0, MAX_BROKER_TRACE_EVENT_BYTES / 2);
    line = safeJson({ ...event, message: `${start}…`, cut: Buffer.byteLength(text) });
  }
  return `${line}\n`;
}

function open(path: string): number {
  try {
    return openOwnAppend(path);
  } catch (error) {
    // Something planted under its name (a link, a FIFO): removed, never written through.
    if (!(error instanceof UnsafeFileError)) throw error;
    rmSync(path, { force: true });
    return openOwnAppend(path);
  }
}

/** The broker's trace file at `path`. A trace that cannot be written (a full disk) never stops the broker. */
export function brokerTraceFile(path: string, secrets: ReadonlyMap<string, string>): Trace {
  return {
    write(event) {
      try {
        const line = Buffer.from(traceLine(event, secrets));
        let fd = open(path);
        try {
          const size = fstatSync(fd).size;
          if (size > 0 && size + line.length > MAX_BROKER_TRACE_BYTES) {
            closeSync(fd);
            fd = -1;
            renameSync(path, `${path}.1`);
            fd = open(path);
          }
          for (let done = 0; done < line.length;) done += writeSync(fd, line, done, line.length - done);
        } finally {
          if (fd >= 0) closeSync(fd);
        }
      } catch {
        /* the trace is lost, the broker goes on */
      }
    },
  };
}
