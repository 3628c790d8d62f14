// The event stream of a `subscriptions/listen` request (V2 push), read here instead of by the SDK's transport. A
// dashboard following 1,000 tasks receives about 1,000 task notifications a second on that one stream; the SDK's
// reading of each (a text decoder stream, an event parser stream, JSON.parse, a zod parse of the JSON-RPC message
// and two more zod checks for a response) cost more than everything mcp-task does with it. Here each event is
// parsed once and a task notification goes straight to the connection's message handler (the trace, RawChannel,
// V2Push): the same handler the SDK would have called, without its parse. Everything else on the stream (the
// listen request's reply, an error, a `retry:`) is passed on to the SDK as it came, and so is the last event id, so
// that the SDK resumes the stream where it left off. Why not the eventsource-parser package the SDK uses: it hands
// each event over as a new object through a web TransformStream, which is the cost this file exists to avoid; the
// format (SSE: field lines, a blank line ends an event) is small, and the limits on it stay the guard's.
import type { McpTaskError } from "../errors.js";
import { PUSH_READ_PAUSE_MS } from "../limits.js";

/** TextDecoder's option for a chunk of a stream (one object, not one per chunk). */
const STREAMING = { stream: true };

/** The notifications taken off the stream (V2's push, its older name, and a subscription's acknowledgement). */
export const TASK_NOTIFICATIONS = new Set([
  "notifications/tasks",
  "notifications/tasks/status",
  "notifications/subscriptions/acknowledged",
]);

/** Whether a POST body is a `subscriptions/listen` request (the SDK sends each message as its JSON text). */
export function isListenRequest(body: unknown): boolean {
  if (typeof body !== "string" || !body.includes('"subscriptions/listen"')) return false;
  try {
    return (JSON.parse(body) as { method?: unknown }).method === "subscriptions/listen";
  } catch {
    return false;
  }
}

/** A task notification, as the connection's message handler takes it; anything else is undefined. */
function taskNotification(data: string): object | undefined {
  if (!data.includes("notifications/")) return undefined;
  let message: { jsonrpc?: unknown; method?: unknown; id?: unknown } | null;
  try {
    message = JSON.parse(data);
  } catch {
    return undefined;
  }
  if (message === null || typeof message !== "object" || Array.isArray(message)) return undefined;
  const isNotification = message.jsonrpc === "2.0" && message.id === undefined;
  return isNotification && TASK_NOTIFICATIONS.has(message.method as string) ? message : undefined;
}

/** One event being read: its data lines, id, type and the other fields passed on as they came (`retry:`). */
interface Pending {
  data: string[];
  id?: string;
  type?: string;
  other: string;
}

/** The events of a stream's text, read as it comes: task notifications delivered, the rest given back as text. */
class TaskEventReader {
  /** The text after the last line end read (a line cut by the chunk). */
  private rest = "";
  private event: Pending = { data: [], other: "" };
  /** The id of the last event delivered here, not yet passed on. */
  private takenId?: string;

  constructor(private readonly deliver: (message: object) => void) {}

  /**
   * Reads the lines of `text` (after what was left of the last chunk); returns what to pass on. Lines are found
   * with indexOf, not split: a split of the text joined to the last chunk's rest copied every chunk whole and made
   * an array of it, about a kilobyte a push on a dashboard's stream of 1,000 pushes a second.
   */
  read(text: string): string {
    let out = "";
    let start = 0;
    // A CR that ended the last chunk ended its line; an LF that begins this one belongs to it (CRLF).
    if (this.rest.endsWith("\r")) {
      out += this.line(this.rest.slice(0, -1));
      this.rest = "";
      if (text.startsWith("\n")) start = 1;
    }
    let cr = text.indexOf("\r", start);
    for (;;) {
      let lf = text.indexOf("\n", start);
      if (cr !== -1 && cr < start) cr = text.indexOf("\r", start);
      // A CR ends a line (alone or before an LF); one at the end of the text waits for the next chunk's first byte.
      const crEnds = cr !== -1 && (lf === -1 || cr < lf) && cr < text.length - 1;
      if (crEnds) lf = cr;
      if (lf === -1) break;
      const piece = text.slice(start, lf);
      out += this.line(this.rest === "" ? piece : this.rest + piece);
      this.rest = "";
      start = crEnds && text.charCodeAt(cr + 1) === 10 ? cr + 2 : lf + 1;
    }
    if (start < text.length) this.rest += text.slice(start);
    // The SDK resumes from the last id it saw: an event with an id and empty data tells it without a message.
    if (this.takenId !== undefined) {
      out += `id: ${this.takenId}\ndata:\n\n`;
      this.takenId = undefined;
    }
    return out;
  }

  /** One line of the stream; returns what to pass on (an event it ends that is not delivered). */
  private line(line: string): string {
    if (line === "") return this.dispatch();
    if (line.startsWith(":")) return ""; // a comment (a keep-alive)
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? "" : line.slice(line[colon + 1] === " " ? colon + 2 : colon + 1);
    if (field === "data") this.event.data.push(value);
    else if (field === "id") this.event.id = value.includes("\0") ? this.event.id : value;
    else if (field === "event") this.event.type = value;
    else if (field === "retry") this.event.other += `retry: ${value}\n`;
    return "";
  }

  /** The end of the stream: a last line without its line end is read (an event not ended by a blank line is not). */
  end(): string {
    return this.rest ? this.read("\n") : this.read("");
  }

  /** Ends the event: delivers it, or returns its text to pass on. */
  private dispatch(): string {
    const { data, id, type, other } = this.event;
    this.event = { data: [], other: "" };
    if (data.length > 0 && (type === undefined || type === "message")) {
      const message = taskNotification(data.join("\n"));
      if (message) {
        if (id !== undefined) this.takenId = id;
        try {
          this.deliver(message);
        } catch {
          // As the SDK does with its handler's throw (it reports it and reads on): one notification is best effort.
        }
        return other === "" ? "" : `${other}\n`;
      }
    }
    if (data.length === 0 && id === undefined && other === "") return "";
    if (id !== undefined) this.takenId = undefined;
    const lines = data.map((line) => `data: ${line}\n`).join("");
    return `${id !== undefined ? `id: ${id}\n` : ""}${type !== undefined ? `event: ${type}\n` : ""}${other}${lines}\n`;
  }
}

/**
 * The stream the SDK reads in place of `body`: task notifications are given to `deliver` as they arrive, the rest
 * of the events are passed on. `count` is the guard's (sizes, bytes without an event): its error ends the stream.
 */
export function tapTaskEvents(
  body: ReadableStream<Uint8Array>,
  count: (chunk: Uint8Array) => McpTaskError | undefined,
  deliver: (message: object) => void,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  const events = new TaskEventReader(deliver);
  /** When the last chunk that had to be waited for came (see PUSH_READ_PAUSE_MS). */
  let lastFresh = -Infinity;
  /**
   * True from a read until the event loop's next check phase (an immediate): a read that resolves meanwhile took a
   * chunk already queued, one that resolves after it waited for the network. One immediate a turn, not one a read:
   * undici queues each event of the stream as a chunk of its own (about 1,000 a second on a dashboard's stream).
   */
  let sameTurn = false;
  const turnEnds = () => (sameTurn = false);
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        if (!sameTurn) {
          sameTurn = true;
          setImmediate(turnEnds);
        }
        const { value, done } = await reader.read();
        // Whether the read waited for the network (a turn of the event loop passed) or took a chunk already queued.
        const waited = !sameTurn;
        if (done) {
          const last = events.read(decoder.decode()) + events.end();
          if (last) controller.enqueue(encoder.encode(last));
          controller.close();
          return;
        }
        // Pushes flowing (this chunk came fresh, soon after the last): the next read waits a little, and takes what
        // came meanwhile at once. A chunk already queued is read on at once (a pause per queued chunk would fall
        // behind the stream).
        let pause = false;
        if (waited) {
          const now = performance.now();
          pause = now - lastFresh < 2 * PUSH_READ_PAUSE_MS;
          lastFresh = now;
        }
        const error = count(value);
        if (error) {
          void reader.cancel().catch(() => {});
          controller.error(error);
          return;
        }
        const out = events.read(decoder.decode(value, STREAMING));
        if (out) {
          controller.enqueue(encoder.encode(out));
          return;
        }
        if (pause) await new Promise((resolve) => setTimeout(resolve, PUSH_READ_PAUSE_MS));
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}
