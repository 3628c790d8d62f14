// The wire trace (`--trace[=FILE]`, MCP_TASK_TRACE): every JSON-RPC message in and out of a connection, with its time
// and direction, and for HTTP each exchange's method, status and the headers that matter. To a file it is NDJSON,
// one event a line; on stderr it is readable lines. Secrets never reach it: credential headers are written as
// "[redacted]" (the values of ${env:} references are redacted again where stderr is written), and what a server
// sent is escaped (safeJson) before any terminal can see it.
//
// The transport is traced in place (its send and onmessage wrapped), not wrapped in another object: the code that
// holds it asks `instanceof StreamableHTTPClientTransport` for the session.
import { appendFileSync } from "node:fs";
import type { Transport } from "@modelcontextprotocol/client";
import { MAX_TRACE_LINE } from "../limits.js";
import type { LogMessage } from "./logging.js";
import { safeJson, sanitizeLine } from "../sanitize.js";
import { redactWith } from "./server.js";
import { isoTime } from "../iso-time.js";

export type TraceEvent = (
  | { t: string; server: string; dir: "out" | "in"; message: unknown }
  | {
      t: string;
      server: string;
      dir: "http";
      method: string;
      url: string;
      status: number | null;
      headers: Record<string, string>;
      error?: string;
    }
) & {
  /** "broker": the message passed on the connection of the server's broker, relayed to this command. */
  via?: "broker";
  /** In a broker's own trace file: the message was this many bytes (or more, where it was too large to measure), and
   *  only its start is kept (as a string), or only its id and method. */
  cut?: number;
};

/** Where trace events go. */
export interface Trace {
  write(event: TraceEvent): void;
}

/** A trace sink that also hears every server's log messages, through a broker too (the dashboard's: Context.wireTap). */
export interface WireTap extends Trace {
  log?(server: string, log: LogMessage, at: Date): void;
}

/** Request and response headers a trace shows (others are noise); credential ones only as "[redacted]". */
const SHOWN = [
  "content-type",
  "mcp-session-id",
  "mcp-protocol-version",
  "last-event-id",
  "www-authenticate",
  "location",
  "retry-after",
];
const CREDENTIALS = ["authorization", "proxy-authorization", "cookie", "set-cookie"];

/**
 * A trace to `file` (NDJSON, appended), or to `stderr` as readable lines when no file is given. The file is
 * redacted of `secrets` as stderr is (a trace file is what gets attached to a bug report); stderr's own redaction is
 * the process's.
 */
export function openTrace(target: {
  file?: string;
  stderr: { write(text: string): unknown };
  secrets?: ReadonlyMap<string, string>;
}): Trace {
  if (target.file) {
    const { file, secrets } = target;
    return {
      write: (event) => {
        const line = safeJson(event);
        appendFileSync(file, `${secrets?.size ? redactWith(line, secrets) : line}\n`, { mode: 0o600 });
      },
    };
  }
  return { write: (event) => target.stderr.write(`${readable(event)}\n`) };
}

/** One trace written to each of `traces` (those given). */
export function teeTrace(...traces: Array<Trace | undefined>): Trace | undefined {
  const given = traces.filter((trace): trace is Trace => trace !== undefined);
  if (given.length <= 1) return given[0];
  return { write: (event) => given.forEach((trace) => traceSafely(trace, event)) };
}

/** A trace that cannot be written (a full disk, a value it cannot serialise) never breaks the connection it traces. */
function traceSafely(trace: Trace, event: TraceEvent): void {
  try {
    trace.write(event);
  } catch {
    /* the event is lost, the connection goes on */
  }
}

/**
 * True when `value`'s JSON would be longer than `budget` bytes (estimated: keys and strings by length, other values
 * by a few bytes each), or nests deeper than `maxDepth`; walked iteratively and stopped at the budget, so that a huge
 * or deeply nested message costs no more than the budget to measure (JSON.stringify of a 20,000-level value throws).
 */
export function exceedsJson(value: unknown, budget: number, maxDepth = 256): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  let size = 0;
  while (stack.length) {
    const [item, depth] = stack.pop()!;
    if (depth > maxDepth) return true;
    if (typeof item === "string") size += item.length + 2;
    else if (item !== null && typeof item === "object") {
      for (const [key, child] of Object.entries(item)) {
        size += key.length + 4;
        stack.push([child, depth + 1]);
        if (size > budget) return true;
      }
    } else size += 8;
    if (size > budget) return true;
  }
  return false;
}

/** One event as a line for a person: time, direction, server, then the message (cut at MAX_TRACE_LINE). */
export function readable(event: TraceEvent): string {
  const time = event.t.slice(11, 23);
  const cut = (text: string) => (text.length > MAX_TRACE_LINE ? `${text.slice(0, MAX_TRACE_LINE)}…` : text);
  const server = event.via === "broker" ? `${event.server} (broker)` : event.server;
  switch (event.dir) {
    case "out":
    case "in": {
      const arrow = event.dir === "out" ? "→" : "←";
      return `${time} ${arrow} ${sanitizeLine(server)} ${cut(safeJson(event.message))}`;
    }
    case "http": {
      const status = event.status === null ? `failed (${event.error ?? "no response"})` : String(event.status);
      const headers = Object.entries(event.headers).map(([name, value]) => ` ${name}: ${value}`);
      return cut(sanitizeLine(`${time} ⇄ ${server} ${event.method} ${event.url} ${status}${headers.join(";")}`));
    }
  }
}

/** The time of a traced message; messages that come in the same millisecond (a chunk of a stream) share one. */
const stamp = () => isoTime(Date.now());

/** Traces a transport's messages in place: what it sends and what it hands on. */
export function traceTransport<T extends Transport>(transport: T, trace: Trace, server: string): T {
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    traceSafely(trace, { t: stamp(), server, dir: "out", message });
    return send(message, options);
  };
  let handler = transport.onmessage;
  // A handler set over another reads the traced one and calls it, in the same turn (protocol/rpc.ts wraps the SDK's):
  // each message is traced once, by the outermost wrapper, not once per layer. The message being handed on is
  // marked while it is (not kept in a WeakSet: an entry per message, about 1,000 a second on a busy dashboard, that
  // the collector must weigh as an ephemeron).
  let inFlight: object | undefined;
  Object.defineProperty(transport, "onmessage", {
    configurable: true,
    enumerable: true,
    get: () => handler,
    set: (next: Transport["onmessage"]) => {
      handler =
        next &&
        ((message, extra) => {
          if (inFlight === message) return next(message, extra as never);
          traceSafely(trace, { t: stamp(), server, dir: "in", message });
          const outer = inFlight;
          inFlight = message;
          try {
            next(message, extra as never);
          } finally {
            inFlight = outer;
          }
        });
    },
  });
  return transport;
}

/** A fetch that traces each exchange's method, URL, status and the headers that matter (request and response). */
export function traceFetch(inner: typeof fetch, trace: Trace, server: string): typeof fetch {
  return async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    const method = init?.method ?? (input instanceof Request ? input.method : "GET");
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, name) => {
      if (CREDENTIALS.includes(name)) headers[`> ${name}`] = "[redacted]";
      else if (SHOWN.includes(name)) headers[`> ${name}`] = value;
    });
    try {
      const response = await inner(input, init);
      response.headers.forEach((value, name) => {
        if (CREDENTIALS.includes(name)) headers[`< ${name}`] = "[redacted]";
        else if (SHOWN.includes(name)) headers[`< ${name}`] = value;
      });
      traceSafely(trace, { t: stamp(), server, dir: "http", method, url, status: response.status, headers });
      return response;
    } catch (error) {
      const code = (error as { cause?: { code?: unknown } }).cause?.code;
      traceSafely(trace, {
        t: stamp(),
        server,
        dir: "http",
        method,
        url,
        status: null,
        headers,
        error: typeof code === "string" ? code : (error as Error).name,
      });
      throw error;
    }
  };
}
