// The limits on what a server sends: a single message larger than MAX_MESSAGE_BYTES (a stdio line, an HTTP JSON
// body, one SSE event) ends the connection with one clear error instead of growing a buffer without end; so do an
// SSE stream that sends bytes without events, one that keeps ending without its answer, a redirect to another
// origin and a refusal to authorize. Lines of a stdio server that are not JSON-RPC messages are skipped.
import { extractWWWAuthenticateParams, parseJSONRPCMessage } from "@modelcontextprotocol/client";
import type { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { AuthRequiredError, ProtocolViolation, ServerError, type McpTaskError } from "../errors.js";
import { MAX_SSE_IDLE_BYTES, SSE_MAX_RECONNECTS, SSE_MIN_RETRY_MS } from "../limits.js";
import { sanitizeLine } from "../sanitize.js";
import { networkError } from "./failures.js";
import { MAX_MESSAGE_BYTES, oversizedMessage } from "./rpc.js";
import { isListenRequest, tapTaskEvents } from "./push-stream.js";

/** Redirects followed for one request (the SDK's own figure). */
const MAX_REDIRECTS = 5;
/** What is read of an HTTP error body (the SDK quotes it in its error); the rest is dropped unread. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

/** Set once the connection must end; `onTrip` is told at once (the channel fails its requests with the error). */
export class SizeGuard {
  error?: McpTaskError;
  onTrip?: (error: McpTaskError) => void;
  /**
   * Takes the task notifications of a `subscriptions/listen` event stream (the connection's message handler), read
   * by ./push-stream.ts instead of the SDK; unset, the SDK reads them.
   */
  onPush?: (message: object) => void;
  /** When SSE streams were reconnected in the last minute (cleared by an event with data). */
  private reconnectTimes: number[] = [];

  constructor(
    readonly limit = MAX_MESSAGE_BYTES,
    /** The saved server's name (or the URL), for hints. */
    private readonly label = "",
  ) {}

  /** Ends the connection with `error` (the first one given stays). */
  fail(error: McpTaskError): McpTaskError {
    if (!this.error) {
      this.error = error;
      this.onTrip?.(error);
    }
    return this.error;
  }

  trip(): McpTaskError {
    return this.fail(oversizedMessage(this.limit));
  }

  /**
   * The SDK's StreamableHTTPClientTransport reconnects an SSE stream that ended without its answer (and its GET
   * stream, whenever it ends) after the server's `retry:`, 0 included: a reconnect storm. It counts attempts only
   * while reconnecting fails, so a server whose every stream opens and ends at once is reconnected forever. Its
   * scheduler hook gets the floor SSE_MIN_RETRY_MS here, and at most SSE_MAX_RECONNECTS reconnections a minute
   * without an event in between: past that the stream is not reconnected (the scheduler throws, on which the SDK
   * ends the request's stream, which fails the request; a GET stream stays closed, and polling carries on).
   */
  reconnectionScheduler(): (reconnect: () => void, delay: number, attempt: number) => () => void {
    return (reconnect, delay) => {
      const now = performance.now(); // monotonic: a minute is a minute whatever the wall clock does
      this.reconnectTimes = this.reconnectTimes.filter((at) => now - at < 60_000);
      if (this.reconnectTimes.length >= SSE_MAX_RECONNECTS)
        throw new Error(`the server's event stream ended ${SSE_MAX_RECONNECTS} times within a minute without an event`);
      this.reconnectTimes.push(now);
      const timer = setTimeout(reconnect, Math.max(delay, SSE_MIN_RETRY_MS));
      return () => clearTimeout(timer);
    };
  }

  /**
   * Stdio: the SDK's line buffer is replaced by one that costs linear time (the SDK's copies the whole pending
   * line for every 64 KB chunk: a 12 MB line took 8 s) and that trips the guard past the limit, so that the close
   * that follows (the SDK reports the thrown error and closes) is explained by the guard's error.
   */
  watchStdio(transport: StdioClientTransport): void {
    const holder = transport as unknown as {
      _readBuffer?: { append(chunk: Buffer): void; readMessage(): unknown; clear(): void };
    };
    if (!holder._readBuffer || typeof holder._readBuffer.append !== "function") return;
    holder._readBuffer = new LineBuffer(this.limit, () => this.trip());
  }

  /**
   * HTTP: the fetch under the SDK's transport. Response bodies fail past the limit (JSON: the whole body; SSE: each
   * event, and MAX_SSE_IDLE_BYTES without one); redirects are followed within the request's origin only (the same
   * request again: a JSON-RPC POST has no GET form), and one to another origin ends the connection; 401 and 403 fail
   * the request with AuthRequiredError; an error body is cut at MAX_ERROR_BODY_BYTES; a failure to connect is named
   * from its cause's code (see `networkError`).
   */
  fetch(inner: typeof fetch = fetch): typeof fetch {
    return async (input, init) => {
      let url = new URL(input instanceof Request ? input.url : String(input));
      const origin = url.origin;
      let response: Response;
      for (let hops = 0; ; hops++) {
        try {
          response = await inner(url, { ...init, redirect: "manual" });
        } catch (error) {
          throw networkError(error, origin);
        }
        const location = [301, 302, 303, 307, 308].includes(response.status) ? response.headers.get("location") : null;
        if (!location) break;
        await response.body?.cancel().catch(() => {});
        let target: URL;
        try {
          target = new URL(location, url);
        } catch {
          throw this.fail(new ProtocolViolation(`the server redirected to an address that is not a URL`));
        }
        if (target.origin !== origin) {
          throw this.fail(
            new ServerError(
              `the server redirected to ${sanitizeLine(target.origin).slice(0, 200)}; mcp-task follows redirects only within the same origin`,
              "if that is the server, use its URL: mcp-task server add <name> --url <url>",
            ),
          );
        }
        if (hops >= MAX_REDIRECTS)
          throw this.fail(new ServerError(`the server redirected more than ${MAX_REDIRECTS} times`));
        url = target;
      }
      if (response.status === 401 || response.status === 403) {
        await response.body?.cancel().catch(() => {});
        const challenge = response.status === 403 ? extractWWWAuthenticateParams(response) : {};
        const what = response.status === 401 ? "requires authorization (HTTP 401)" : "refused access (HTTP 403)";
        const name = /^[A-Za-z0-9._-]+$/.test(this.label) && !/^[.-]/.test(this.label) ? this.label : "<name>";
        // One request refused, not the connection ended: a token refreshed or signed in anew (src/auth) serves the
        // next request of the same session (a V1 session's keeper goes on once the person signs in again).
        const refused = new AuthRequiredError(
          `authorization required: ${origin} ${what}`,
          name === "<name>"
            ? `save the server with a token: mcp-task server add <name> --url ${origin}${url.pathname} --header "Authorization: Bearer \${env:TOKEN}", or save it and sign in: mcp-task login <name>`
            : `sign in: mcp-task login ${name}`,
        );
        // Step-up refused where nobody could sign in (a V1 session's keeper): the command behind it may (session.ts).
        if (challenge.error === "insufficient_scope" && challenge.scope) refused.scope = challenge.scope;
        throw refused;
      }
      if (!response.body || [101, 204, 205, 304].includes(response.status)) return response;
      const sse = (response.headers.get("content-type") ?? "").toLowerCase().includes("text/event-stream");
      const body =
        response.status >= 400
          ? response.body.pipeThrough(this.cut(MAX_ERROR_BODY_BYTES))
          : sse && this.onPush && isListenRequest(init?.body)
            ? tapTaskEvents(response.body, this.counting(true), this.onPush)
            : response.body.pipeThrough(this.counter(sse));
      return new Response(body, {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
      });
    };
  }

  /** A body cut after `limit` bytes (the rest is not read). */
  private cut(limit: number): TransformStream<Uint8Array, Uint8Array> {
    let size = 0;
    return new TransformStream({
      transform: (chunk, controller) => {
        if (size >= limit) return controller.terminate();
        const room = limit - size;
        size += chunk.length;
        controller.enqueue(chunk.length > room ? chunk.subarray(0, room) : chunk);
        if (size >= limit) controller.terminate();
      },
    });
  }

  private counter(sse: boolean): TransformStream<Uint8Array, Uint8Array> {
    const count = this.counting(sse);
    return new TransformStream({
      transform: (chunk, controller) => {
        const error = count(chunk);
        if (error) return controller.error(error);
        controller.enqueue(chunk);
      },
    });
  }

  /** Counts a body chunk by chunk: the error that must end it (the guard's, a message or idle stream too big). */
  private counting(sse: boolean): (chunk: Uint8Array) => McpTaskError | undefined {
    let size = 0;
    /** SSE: bytes since the last data line (blank lines, comments, ids, retries). */
    let idle = 0;
    /** SSE: whether the current line has content (a blank line ends an event), and whether it is a data line. */
    let lineHasContent = false;
    let lineIsData: boolean | undefined;
    return (chunk) => {
      if (this.error) return this.error;
      if (!sse) {
        size += chunk.length;
      } else {
        for (let at = 0; at < chunk.length;) {
          const newline = chunk.indexOf(10, at);
          const end = newline === -1 ? chunk.length : newline;
          if (end - at > 1 || (end - at === 1 && chunk[at] !== 13)) lineHasContent = true;
          if (lineIsData === undefined && end > at) lineIsData = chunk[at] === 0x64; // "d": a data: line
          size += end - at;
          if (lineIsData) {
            idle = 0;
            if (this.reconnectTimes.length > 0) this.reconnectTimes = [];
          } else idle += end - at + (newline === -1 ? 0 : 1);
          if (size > this.limit || idle > MAX_SSE_IDLE_BYTES || newline === -1) break;
          if (!lineHasContent) size = 0;
          lineHasContent = false;
          lineIsData = undefined;
          at = newline + 1;
        }
      }
      if (size > this.limit) return this.trip();
      if (idle > MAX_SSE_IDLE_BYTES) {
        return this.fail(
          new ProtocolViolation(
            `the server sent more than ${MAX_SSE_IDLE_BYTES / 1024 / 1024} MiB on an event stream without an event`,
          ),
        );
      }
      return undefined;
    };
  }
}

/** Newline-delimited JSON-RPC messages from a byte stream, in linear time, with a limit on one line. */
class LineBuffer {
  /** The pieces of the line not yet ended. */
  private parts: Buffer[] = [];
  private size = 0;
  private readonly lines: string[] = [];

  constructor(
    private readonly limit: number,
    private readonly onTooBig: () => void,
  ) {}

  append(chunk: Buffer): void {
    for (let start = 0; ;) {
      const newline = chunk.indexOf(10, start);
      const end = newline === -1 ? chunk.length : newline;
      if (end > start) {
        this.parts.push(chunk.subarray(start, end));
        this.size += end - start;
      }
      if (this.size > this.limit) {
        this.clear();
        this.onTooBig();
        throw new Error(`a message larger than ${this.limit} bytes`);
      }
      if (newline === -1) return;
      this.lines.push(Buffer.concat(this.parts, this.size).toString("utf8").replace(/\r$/, ""));
      this.parts = [];
      this.size = 0;
      start = newline + 1;
    }
  }

  /** Lines skipped because they are not JSON-RPC messages (`42`, `"x"`, `[]`, text). */
  skipped = 0;

  readMessage(): unknown {
    for (let line = this.lines.shift(); line !== undefined; line = this.lines.shift()) {
      // A line that is not JSON, or JSON but not a JSON-RPC message, is skipped: the SDK's transport reports the
      // second kind as an error, on which our stdio transport ended the connection, so one stray `42` on a server's
      // stdout broke every later command. What a line costs is bounded by the line limit.
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        this.skipped++;
        continue;
      }
      if (value === null || typeof value !== "object" || Array.isArray(value)) {
        this.skipped++;
        continue;
      }
      try {
        return parseJSONRPCMessage(value);
      } catch {
        this.skipped++;
        // A reply to a request of ours that is no JSON-RPC response (`"result": []`): skipped, the request would wait
        // for its timeout; it ends now, with an error of its own.
        const { id } = value as { id?: unknown };
        if ((typeof id === "string" || typeof id === "number") && ("result" in value || "error" in value))
          return {
            jsonrpc: "2.0",
            id,
            error: { code: -32603, message: "the server's reply is not a JSON-RPC response" },
          };
      }
    }
    return null;
  }

  clear(): void {
    this.parts = [];
    this.size = 0;
    this.lines.length = 0;
  }
}
