// A stdio transport whose server process starts before the MCP SDK is loaded.
//
// Why not the SDK's StdioClientTransport alone: a stdio command spends most of its time waiting for the server to
// boot (server-everything: ~200 ms), and loading the SDK (1 MB of JavaScript, ~45 ms) is the longest part of
// mcp-task's own start. The SDK's transport can only spawn once the SDK is loaded, one after the other; this
// one is created (and spawns) from the small start-up bundle, so that the server boots while the SDK loads. The
// SDK's own pieces do the rest: its ReadBuffer splits and validates messages (handed in by `adopt`, once the SDK
// is there), and its Client drives the handshake. Used where the server's generation is already known (a cached
// verdict): the SDK's first-contact negotiation may probe a sibling process, which needs its own transport class.
import type { ChildProcess } from "node:child_process";
import type { Readable } from "node:stream";
import type { JSONRPCMessage, ReadBuffer, Transport } from "@modelcontextprotocol/client";
import { serverGone, spawnServer, stopServer } from "./process.js";
import { resolveEnvRefs, type ServerDescriptor } from "./server.js";

/** What a stdio server inherits of our environment (the SDK's list, getDefaultEnvironment; POSIX only, as the
 *  broker's Unix socket is). Values that look like shell functions are left out, as the SDK does. */
const INHERITED = ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"];

function serverEnvironment(
  descriptor: Extract<ServerDescriptor, { transport: "stdio" }>,
  env: Record<string, string | undefined>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of INHERITED) {
    const value = env[name];
    if (value !== undefined && !value.startsWith("()")) out[name] = value;
  }
  for (const [name, value] of Object.entries(descriptor.env ?? {})) out[name] = resolveEnvRefs(value, env);
  return out;
}

/** What a server may write before the SDK is loaded (~45 ms) before its output is paused. */
const EARLY_OUTPUT_BYTES = 1024 * 1024;

export class EarlyStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private readonly child: ChildProcess;
  /** stdout that arrived before the SDK was ready to read it. */
  private early: Buffer[] = [];
  private earlyBytes = 0;
  private _readBuffer?: ReadBuffer;
  private spawnError?: Error;
  private spawned = false;
  /** Events reach the SDK only once it has started the transport; until then they wait here. */
  private started = false;
  private closed = false;

  constructor(descriptor: Extract<ServerDescriptor, { transport: "stdio" }>, env: Record<string, string | undefined>) {
    this.child = spawnServer(descriptor.command, descriptor.args, {
      env: serverEnvironment(descriptor, env),
      cwd: descriptor.cwd,
      stdio: ["pipe", "pipe", "pipe"],
    });
    this.child.once("spawn", () => (this.spawned = true));
    this.child.once("error", (error) => {
      this.spawnError ??= error;
      if (this.started) this.onerror?.(error);
    });
    // Gone when it exits or when its stdout ends (a server that closes its output has stopped talking, whether or
    // not it keeps running; a grandchild holding the pipe must not hide the server's exit).
    void serverGone(this.child).then(() => {
      this.closed = true;
      if (this.started) this.onclose?.();
      void stopServer(this.child);
    });
    this.child.stdin!.on("error", (error) => this.started && this.onerror?.(error));
    this.child.stdout!.on("error", (error) => this.started && this.onerror?.(error));
    this.child.stdout!.on("data", (chunk: Buffer) => {
      if (this.started) return this.read(chunk);
      // Held until the SDK is loaded; a server that talks before it is asked waits (the pipe's back-pressure).
      this.early.push(chunk);
      if ((this.earlyBytes += chunk.length) > EARLY_OUTPUT_BYTES) this.child.stdout!.pause();
    });
  }

  /** The server's stderr, for the tail kept to explain a crash. */
  get stderr(): Readable | null {
    return this.child.stderr;
  }

  get pid(): number | null {
    return this.child.pid ?? null;
  }

  get process(): ChildProcess {
    return this.child;
  }

  /** The SDK's message reader, given once the SDK is loaded (before the Client starts the transport). Named as
   *  the SDK's transport names its own, so that the size guard (limits.ts) watches both alike. */
  adopt(reader: ReadBuffer): this {
    this._readBuffer = reader;
    return this;
  }

  /** Not needed after all (the generation turned out unknown): the server is stopped. */
  discard(): void {
    void stopServer(this.child, 0);
  }

  async start(): Promise<void> {
    if (!this._readBuffer) throw new Error("EarlyStdioTransport started before adopt()");
    if (!this.spawned && !this.spawnError && !this.closed) {
      await new Promise<void>((resolve) => {
        this.child.once("spawn", () => resolve());
        this.child.once("error", () => resolve());
        void serverGone(this.child).then(() => resolve());
      });
    }
    if (this.spawnError) throw this.spawnError;
    this.started = true;
    for (const chunk of this.early.splice(0)) this.read(chunk);
    this.child.stdout?.resume();
    if (this.closed) queueMicrotask(() => this.onclose?.());
  }

  private read(chunk: Buffer): void {
    try {
      this._readBuffer!.append(chunk);
      for (let message = this._readBuffer!.readMessage(); message; message = this._readBuffer!.readMessage())
        this.onmessage?.(message);
    } catch (error) {
      // A message too big is an error, and the connection ends (lines that are not JSON-RPC are skipped: limits.ts).
      this.onerror?.(error as Error);
      void this.close();
    }
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.child.stdin;
      if (this.closed || !stdin || stdin.destroyed) return reject(new Error("Not connected"));
      // The stdio framing (the SDK's serializeMessage): one JSON text per line.
      if (stdin.write(`${JSON.stringify(message)}\n`)) resolve();
      else stdin.once("drain", resolve);
    });
  }

  /** Ends the server's input and waits for it to exit; its process group gets SIGTERM, then SIGKILL (process.ts). */
  async close(): Promise<void> {
    await stopServer(this.child);
  }
}
