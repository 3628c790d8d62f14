// The SDK's stdio transport, watched: the server's process kept (the SDK forgets it as its close begins), the end of
// its stderr kept (what explains a crash), and the end of its stdout or its exit closing the connection at once. A
// prestarted server (stdio.ts) is adopted here once the SDK is loaded.
import type { ChildProcess } from "node:child_process";
import { ReadBuffer, type Transport } from "@modelcontextprotocol/client";
import { StdioClientTransport, getDefaultEnvironment } from "@modelcontextprotocol/client/stdio";
import { serverGone, stopServer } from "./process.js";
import { MAX_SERVER_STDERR_LOG_BYTES, SERVER_STDERR_TAIL_BYTES } from "../limits.js";
import { sanitizeLine } from "../sanitize.js";
import { resolveEnvRefs, type ServerDescriptor } from "./server.js";
import { EarlyStdioTransport } from "./stdio.js";

/**
 * What a stdio transport needs of the message-size guard (limits.ts SizeGuard): its limit, and to watch the
 * transport's reader. Said here by shape, so that this file, which failures.ts reads the server process from, does
 * not import the guard (whose module imports failures.ts).
 */
interface StdioGuard {
  readonly limit: number;
  watchStdio(transport: StdioClientTransport): void;
}

/** The end of a stdio server's stderr, and where all of it goes besides (a broker's log), if anywhere. */
export interface StderrTail {
  text: string;
  sink?: (text: string) => void;
}

/**
 * Where a broker sends its stdio server's stderr: its own log (its stderr), each line prefixed and made safe, up to
 * MAX_SERVER_STDERR_LOG_BYTES in a broker's life (then one line says the rest is left out).
 */
export function stderrToLog(write: (text: string) => unknown): (text: string) => void {
  let left = MAX_SERVER_STDERR_LOG_BYTES;
  let partial = "";
  return (text) => {
    if (left <= 0) return;
    const lines = (partial + text).split("\n");
    partial = lines.pop() ?? "";
    if (partial.length > 4096) (lines.push(partial), (partial = ""));
    for (const line of lines) {
      const out = `server stderr: ${sanitizeLine(line)}\n`;
      left -= Buffer.byteLength(out);
      write(left > 0 ? out : "server stderr: (the rest is left out: MAX_SERVER_STDERR_LOG_BYTES)\n");
      if (left <= 0) return;
    }
  };
}

/** The SDK's transport for a stdio server (its ${env:} environment references resolved now). */
export function stdioTransport(
  descriptor: Extract<ServerDescriptor, { transport: "stdio" }>,
  env: Record<string, string | undefined>,
  stderrTail: StderrTail,
  guard: StdioGuard,
): StdioClientTransport {
  const childEnv: Record<string, string> = { ...getDefaultEnvironment() };
  for (const [name, value] of Object.entries(descriptor.env ?? {})) childEnv[name] = resolveEnvRefs(value, env);
  const transport = new StdioClientTransport({
    command: descriptor.command,
    args: descriptor.args,
    env: childEnv,
    cwd: descriptor.cwd,
    stderr: "pipe",
    maxBufferSize: guard.limit,
  });
  guard.watchStdio(transport);
  keepStderrTail(transport, stderrTail);
  return transport;
}

/** The process of each SDK stdio transport, kept when it starts: the SDK forgets it as its close begins. */
const sdkProcesses = new WeakMap<Transport, ChildProcess>();

/** The process behind a stdio transport, once started. */
export function serverProcess(transport: Transport): ChildProcess | undefined {
  if (transport instanceof EarlyStdioTransport) return transport.process;
  return sdkProcesses.get(transport);
}

/**
 * The SDK's stdio transport reports a server gone only once its process has exited and every pipe has closed: a
 * server that closes its stdout and keeps running, or a grandchild that holds the pipe, would leave requests
 * waiting for their timeout. Here, the end of stdout or the server's exit closes the connection at once (once:
 * the SDK's own report follows), and the server's process group is stopped. EarlyStdioTransport does this itself.
 */
export function watchServer(transport: Transport): void {
  if (!(transport instanceof StdioClientTransport)) return;
  const child = serverProcess(transport);
  if (!child) return;
  const onclose = transport.onclose;
  let reported = false;
  transport.onclose = () => {
    if (reported) return;
    reported = true;
    onclose?.call(transport);
  };
  void serverGone(child).then(() => {
    transport.onclose?.();
    void stopServer(child);
  });
}

/** A prestarted stdio server, given the SDK's message reader (with the size limit) now that the SDK is loaded. */
export function adopt(early: EarlyStdioTransport, stderrTail: StderrTail, guard: StdioGuard): Transport {
  early.adopt(new ReadBuffer({ maxBufferSize: guard.limit }));
  guard.watchStdio(early as unknown as StdioClientTransport); // the same reader field the guard watches there
  keepStderrTail(early, stderrTail);
  return early;
}

/** Keeps the end of the server's stderr once the transport starts: it is what explains a crash. */
function keepStderrTail(transport: StdioClientTransport | EarlyStdioTransport, stderrTail: StderrTail): void {
  const start = transport.start.bind(transport);
  transport.start = async () => {
    try {
      await start();
    } finally {
      const child = (transport as unknown as { _process?: ChildProcess })._process;
      if (transport instanceof StdioClientTransport && child) sdkProcesses.set(transport, child);
    }
    transport.stderr?.on("data", (chunk: Buffer) => {
      const text = chunk.toString("utf8");
      stderrTail.text = (stderrTail.text + text).slice(-SERVER_STDERR_TAIL_BYTES);
      stderrTail.sink?.(text);
    });
  };
}
