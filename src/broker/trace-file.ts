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

/**
 * The broker's trace file at `path`. A trace that cannot be written (a full disk) never stops the broker.
 *
 * Lines are gathered and written once per turn of the event loop (and at exit): a server that sends tens of thousands
 * of notifications in one reply cost the broker an open, fstat, write and close for each of them (1.4 s of CPU for
 * 40,000) when every event was written on its own.
 */
export function brokerTraceFile(path: string, secrets: ReadonlyMap<string, string>): Trace {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    const lines = pending;
    pending = [];
    pendingBytes = 0;
    if (lines.length > 0) writeLines(path, lines);
  };
  process.once("exit", flush);
  return {
    write(event) {
      try {
        const line = Buffer.from(traceLine(event, secrets));
        pending.push(line);
        pendingBytes += line.length;
      } catch {
        return; /* an event that cannot be written is left out, the broker goes on */
      }
      // Never more than a file's worth held: a turn that brings more is written as it comes.
      if (pendingBytes > MAX_BROKER_TRACE_BYTES) return flush();
      if (scheduled) return;
      scheduled = true;
      setImmediate(flush).unref();
    },
  };
}

/** Appends `lines` to the trace at `path`, starting a new file (the old one kept as .1) whenever it would pass the bound. */
function writeLines(path: string, lines: Buffer[]): void {
  let fd = -1;
  try {
    fd = open(path);
    let size = fstatSync(fd).size;
    for (const line of lines) {
      if (size > 0 && size + line.length > MAX_BROKER_TRACE_BYTES) {
        closeSync(fd);
        fd = -1;
        renameSync(path, `${path}.1`);
        fd = open(path);
        size = 0;
      }
      for (let done = 0; done < line.length;) done += writeSync(fd, line, done, line.length - done);
      size += line.length;
    }
  } catch {
    /* the trace is lost, the broker goes on */
  } finally {
    if (fd >= 0) closeSync(fd);
  }
}
