// The size limit on what a server sends: a single message larger than MAX_MESSAGE_BYTES (a stdio line, an HTTP JSON
// body, one SSE event) ends the connection with one clear error instead of growing a buffer without end.
import { deserializeMessage } from "@modelcontextprotocol/client";
import type { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import type { ProtocolViolation } from "../errors.js";
import { MAX_MESSAGE_BYTES, oversizedMessage } from "./rpc.js";

/** Set once a message was too big; `onTrip` is told at once (the channel fails its requests with the error). */
export class SizeGuard {
  error?: ProtocolViolation;
  onTrip?: (error: ProtocolViolation) => void;

  constructor(readonly limit = MAX_MESSAGE_BYTES) {}

  trip(): ProtocolViolation {
    if (!this.error) {
      this.error = oversizedMessage(this.limit);
      this.onTrip?.(this.error);
    }
    return this.error;
  }

  /**
   * Stdio: the SDK's line buffer is replaced by one that costs linear time (the SDK's copies the whole pending
   * line for every 64 KB chunk: a 12 MB line took 8 s) and that trips the guard past the limit, so that the close
   * that follows (the SDK reports the thrown error and closes) is explained by the guard's error.
   */
  watchStdio(transport: StdioClientTransport): void {
    const holder = transport as unknown as { _readBuffer?: { append(chunk: Buffer): void; readMessage(): unknown; clear(): void } };
    if (!holder._readBuffer || typeof holder._readBuffer.append !== "function") return;
    holder._readBuffer = new LineBuffer(this.limit, () => this.trip());
  }

  /** HTTP: a fetch whose response bodies fail past the limit (JSON: the whole body; SSE: each event). */
  fetch(inner: typeof fetch = fetch): typeof fetch {
    return async (input, init) => {
      const response = await inner(input, init);
      if (!response.body || [101, 204, 205, 304].includes(response.status)) return response;
      const sse = (response.headers.get("content-type") ?? "").toLowerCase().includes("text/event-stream");
      const body = response.body.pipeThrough(this.counter(sse));
      return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
    };
  }

  private counter(sse: boolean): TransformStream<Uint8Array, Uint8Array> {
    let size = 0;
    /** SSE: whether the current line has content (a blank line ends an event). */
    let lineHasContent = false;
    return new TransformStream({
      transform: (chunk, controller) => {
        if (this.error) return controller.error(this.error);
        if (!sse) {
          size += chunk.length;
        } else {
          for (let at = 0; at < chunk.length; ) {
            const newline = chunk.indexOf(10, at);
            const end = newline === -1 ? chunk.length : newline;
            if (end - at > 1 || (end - at === 1 && chunk[at] !== 13)) lineHasContent = true;
            size += end - at;
            if (size > this.limit || newline === -1) break;
            if (!lineHasContent) size = 0;
            lineHasContent = false;
            at = newline + 1;
          }
        }
        if (size > this.limit) return controller.error(this.trip());
        controller.enqueue(chunk);
      },
    });
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
    for (let start = 0; ; ) {
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

  readMessage(): unknown {
    for (let line = this.lines.shift(); line !== undefined; line = this.lines.shift()) {
      try {
        return deserializeMessage(line);
      } catch (error) {
        // As the SDK: a line that is not JSON is skipped; one that is JSON but not JSON-RPC is reported.
        if (error instanceof SyntaxError) continue;
        throw error;
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
