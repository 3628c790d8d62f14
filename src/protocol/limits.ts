// The size limit on what a server sends: a single message larger than MAX_MESSAGE_BYTES (a stdio line, an HTTP JSON
// body, one SSE event) ends the connection with one clear error instead of growing a buffer without end.
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
   * Stdio: the SDK's line buffer refuses to grow past `maxBufferSize` (the transport is given the limit), then
   * reports a bare Error and closes. Its append is watched so that the close is explained by the guard's error.
   */
  watchStdio(transport: StdioClientTransport): void {
    const buffer = (transport as unknown as { _readBuffer?: { _buffer?: Buffer; append(chunk: Buffer): void } })._readBuffer;
    if (!buffer || typeof buffer.append !== "function") return;
    const append = buffer.append.bind(buffer);
    buffer.append = (chunk: Buffer) => {
      if ((buffer._buffer?.length ?? 0) + chunk.length > this.limit) this.trip();
      append(chunk);
    };
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
