// The local protocol between mcp-task commands and a broker: newline-delimited JSON over a Unix socket. Requests
// carry an id and get one reply; the broker also sends `snapshot` notifications and `input` requests (a question
// of the server for the person behind this client). Errors travel with their class, so a command exits with the
// same code whether it reached the server directly or through a broker.
import type { Socket } from "node:net";
import { createInterface } from "node:readline";
import * as errors from "../errors.js";
import { AuthRequiredError, McpTaskError, RpcError, ServerError } from "../errors.js";

export type Message =
  | { id: number; method: string; params?: unknown }
  | { id: number; result: unknown }
  | { id: number; error: WireError }
  | { method: string; params: unknown };

export interface WireError {
  name: string;
  message: string;
  hint?: string;
  taskId?: string | null;
  transient?: boolean;
  rpcCode?: number;
  /** RpcError: the JSON-RPC error's data (a -32042's elicitations). */
  data?: unknown;
  /** AuthRequiredError: the wider scope a 403 asked for. */
  scope?: string;
}

type ErrorClass = new (message: string, hint?: string, taskId?: string | null) => McpTaskError;

/**
 * Every error class of src/errors.ts by its name, read from the module itself: a class added there travels through
 * a broker with its exit code without being listed here.
 */
const CLASSES: ReadonlyMap<string, ErrorClass> = new Map(
  Object.entries(errors as Record<string, unknown>).filter(
    (entry): entry is [string, ErrorClass] =>
      typeof entry[1] === "function" && (entry[1] === McpTaskError || entry[1].prototype instanceof McpTaskError),
  ),
);

/** The name of the nearest class of src/errors.ts an error is an instance of (a subclass elsewhere travels as it). */
function classNameOf(error: McpTaskError): string {
  for (let proto = Object.getPrototypeOf(error); proto; proto = Object.getPrototypeOf(proto)) {
    const name = (proto.constructor as { name?: string }).name;
    if (name && CLASSES.get(name) === proto.constructor) return name;
  }
  return "McpTaskError";
}

export function encodeError(error: unknown): WireError {
  if (error instanceof RpcError)
    return { name: "RpcError", message: error.message, rpcCode: error.rpcCode, data: error.data };
  if (error instanceof McpTaskError) {
    return {
      name: classNameOf(error),
      message: error.message,
      hint: error.hint,
      taskId: error.taskId,
      transient: error instanceof ServerError ? error.transient : undefined,
      scope: error instanceof AuthRequiredError ? error.scope : undefined,
    };
  }
  return { name: "Error", message: error instanceof Error ? error.message : String(error) };
}

export function decodeError(wire: WireError): Error {
  if (wire.name === "RpcError") return new RpcError(wire.message, wire.rpcCode ?? -32603, wire.data);
  const Class = CLASSES.get(wire.name);
  if (!Class) return new ServerError(`the broker failed: ${wire.message}`);
  const error = new Class(wire.message, wire.hint, wire.taskId ?? null);
  if (error instanceof ServerError && wire.transient) error.transient = true;
  if (error instanceof AuthRequiredError && typeof wire.scope === "string") error.scope = wire.scope;
  return error;
}

/** Characters of the lines this process has read from broker sockets (either side): what a test can count. */
export const linesRead = { chars: 0 };

/** Reads messages from a socket, one JSON document per line; a malformed line ends the connection. */
export function onMessages(socket: Socket, handle: (message: Message) => void): void {
  const lines = createInterface({ input: socket, crlfDelay: Infinity });
  // readline re-emits the socket's errors (EPIPE when the other side went away during a write): the socket's own
  // 'error' and 'close' handlers say what ended the connection, so this copy must not be thrown (it crashed a
  // command whose broker's server had just died).
  lines.on("error", () => {});
  lines.on("line", (line) => {
    linesRead.chars += line.length;
    if (!line.trim()) return;
    let message: Message;
    try {
      message = JSON.parse(line) as Message;
    } catch {
      socket.destroy();
      return;
    }
    handle(message);
  });
}

/**
 * `send` for a stream of notifications (a server's log messages relayed to every command attached): those of one
 * turn of the event loop go out in one write, not one system call each. Any other message sent after them writes
 * them out with it, in order (a reply is never held back: a process may end right after one).
 */
export function sendBatched(socket: Socket, message: Message): void {
  if (socket.writableCorked === 0 && !socket.destroyed) {
    socket.cork();
    setImmediate(() => {
      if (socket.writableCorked > 0) socket.uncork();
    });
  }
  write(socket, message);
}

export function send(socket: Socket, message: Message): void {
  write(socket, message);
  if (socket.writableCorked > 0) socket.uncork();
}

function write(socket: Socket, message: Message): void {
  // A late answer after this side closed (a question refused while the command was ending) is dropped, not thrown.
  if (socket.destroyed || socket.writableEnded) return;
  let line: string;
  try {
    line = JSON.stringify(message);
  } catch {
    // A value too deep to write (a server's reply nested past what JSON.stringify can walk): the request it answers
    // fails with a protocol violation instead of the broker.
    if (!("id" in message)) return;
    line = JSON.stringify({
      id: message.id,
      error: { name: "ProtocolViolation", message: "the server sent a value nested too deep to pass on" },
    });
  }
  socket.write(`${line}\n`);
}
