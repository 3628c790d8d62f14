// Opening a connection: transport, handshake with generation detection, and the wire adapter on top.
import { Client, type PriorDiscovery } from "@modelcontextprotocol/client";
import { StdioClientTransport, getDefaultEnvironment } from "@modelcontextprotocol/client/stdio";
import { ReadBuffer, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { Transport } from "@modelcontextprotocol/client";
import { McpTaskError, ServerError, TaskNotFoundError, UsageError } from "../errors.js";
import { sanitizeLine } from "../output/sanitize.js";
import type { ChildProcess } from "node:child_process";
import { SizeGuard } from "./limits.js";
import { serverGone, stopServer } from "./process.js";
import { GET_STREAM_RETRY_MS, GET_STREAM_TRIES } from "../limits.js";
import { DEFAULT_REQUEST_TIMEOUT_MS, MAX_MESSAGE_BYTES, RawChannel } from "./rpc.js";
import { describeServer, descriptorKey, redactSecrets, resolveEnvRefs, type ServerDescriptor } from "./server.js";
import { EarlyStdioTransport } from "./stdio.js";
import { V1Wire } from "./v1.js";
import { V2Wire } from "./v2.js";
import type { ResumeToken, Wire } from "./wire.js";

export const CLIENT_INFO = { name: "mcp-task", version: "0.1.0" } as const;
export const CLIENT_CAPABILITIES = { elicitation: { form: {} }, sampling: {} } as const;

/** Where generation verdicts are remembered between processes. */
export interface VerdictCache {
  get(key: string): PriorDiscovery | undefined;
  set(key: string, verdict: PriorDiscovery): void;
  delete(key: string): void;
}

export interface ConnectOptions {
  env: Record<string, string | undefined>;
  verdicts?: VerdictCache;
  /** Handshake timeout (ms); default: the request timeout. */
  timeoutMs?: number;
  /** How long any request may go unanswered (MCP_TASK_REQUEST_TIMEOUT, parsed by the caller); 0: no limit. */
  requestTimeoutMs?: number;
  /** Display name of the server, for messages. */
  name?: string;
  /** Reach the server (and V1 session) a task was created on, from a saved handle. */
  resume?: ResumeToken;
  /** A stdio server already starting (see stdio.ts): used when the generation is known, else discarded. */
  prestarted?: EarlyStdioTransport;
  /** HTTP: the fetch under the guard that presents the saved sign-in's token (src/auth/fetch.ts). */
  authorize?: (next: typeof fetch) => typeof fetch;
}

const STDERR_TAIL_BYTES = 2000;

export async function connect(descriptor: ServerDescriptor, options: ConnectOptions): Promise<Wire> {
  if (options.resume) return resume(descriptor, options, options.resume);
  const key = descriptorKey(descriptor);
  const prior = options.verdicts?.get(key);
  try {
    return await connectOnce(descriptor, options, prior);
  } catch (error) {
    // A stale cached verdict (the server changed generation): forget it and negotiate afresh.
    if (prior && !(error instanceof UsageError)) {
      options.verdicts?.delete(key);
      return connectOnce(descriptor, options, undefined);
    }
    throw error;
  }
}

/** Reconnects for a saved task: V2 is stateless; V1 over HTTP reuses the saved session (no new initialize). */
async function resume(descriptor: ServerDescriptor, options: ConnectOptions, token: ResumeToken): Promise<Wire> {
  const label = options.name ?? describeServer(descriptor);
  if (token.generation === "v1" && descriptor.transport === "stdio") {
    throw new TaskNotFoundError(
      `this task ran on a stdio server (${sanitizeLine(label)}), which stopped with the mcp-task command that started it; a 2025-11-25 task lives only as long as its server process`,
      "run the task again; keeping stdio servers alive between commands is planned",
    );
  }
  if (token.generation === "v2") {
    const discover = token.discover as Extract<PriorDiscovery, { kind: "modern" }>["discover"] | undefined;
    return connectOnce(descriptor, options, discover ? { kind: "modern", discover } : undefined);
  }
  return connectOnce(descriptor, options, { kind: "legacy" }, token);
}

async function connectOnce(
  descriptor: ServerDescriptor,
  options: ConnectOptions,
  prior: PriorDiscovery | undefined,
  session?: ResumeToken,
): Promise<Wire> {
  const { client, rpc, era, protocolVersion, serverName, sessionId, transport } = await open(
    descriptor,
    options,
    prior,
    session,
  );
  // V1 over HTTP: when the server no longer knows the session (it restarted), the wire opens a new one this way.
  const renew = descriptor.transport === "http" ? () => open(descriptor, options, { kind: "legacy" }) : undefined;
  const wire: Wire =
    era === "modern"
      ? new V2Wire(client, rpc, protocolVersion, serverName)
      : new V1Wire(client, rpc, protocolVersion, serverName, session?.capabilities, sessionId, renew);
  if (transport instanceof StdioClientTransport || transport instanceof EarlyStdioTransport)
    wire.serverPid = transport.pid ?? undefined;
  return wire;
}

/** Opens the transport and does the handshake (none on a resumed V1 session); the channel for task traffic on top. */
async function open(
  descriptor: ServerDescriptor,
  options: ConnectOptions,
  prior: PriorDiscovery | undefined,
  session?: ResumeToken,
) {
  const label = options.name ?? describeServer(descriptor);
  const stderrTail = { text: "" };
  const guard = new SizeGuard(MAX_MESSAGE_BYTES, label);
  const requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  // The prestarted server serves one connection, and only one whose generation is known (see stdio.ts).
  const early = options.prestarted;
  options.prestarted = undefined;
  if (early && !prior) early.discard();
  const transport =
    prior && early
      ? adopt(early, stderrTail, guard)
      : makeTransport(descriptor, options.env, stderrTail, guard, session, options.authorize);
  const client = new Client(CLIENT_INFO, {
    capabilities: CLIENT_CAPABILITIES,
    versionNegotiation: {
      mode: "auto",
      probe: { timeoutMs: Math.min(options.timeoutMs ?? (requestTimeoutMs || 10_000), 10_000) },
    },
  });
  const describeClose = () => {
    const tail = sanitizeLine(stderrTail.text.trim()).slice(-400);
    const child = serverProcess(transport);
    const running = child !== undefined && child.exitCode === null && child.signalCode === null;
    const base =
      descriptor.transport !== "stdio"
        ? `the connection to ${label} closed`
        : running
          ? `the server closed its output (${label})`
          : `the server process exited (${label})`;
    return redact(tail ? `${base}; its stderr ends with: ${tail}` : base);
  };
  const redact = (text: string) => redactSecrets(text, descriptor, options.env);
  try {
    await client.connect(transport, {
      ...(prior ? { prior } : {}),
      timeout: options.timeoutMs ?? (requestTimeoutMs || 30_000),
    });
  } catch (error) {
    // The SDK's close waits on the server's pipes (which a grandchild may hold) and signals only its child.
    const child = serverProcess(transport);
    void client.close().catch(() => {});
    if (child) await stopServer(child);
    throw guard.error ?? connectError(error, label, descriptor, stderrTail.text, redact);
  }
  const era = client.getProtocolEra();
  const verdict: PriorDiscovery | undefined =
    era === "modern"
      ? { kind: "modern", discover: client.getDiscoverResult()! }
      : era === "legacy"
        ? { kind: "legacy" }
        : undefined;
  if (verdict && !prior) options.verdicts?.set(descriptorKey(descriptor), verdict);
  // A resumed session skipped initialize, after which the SDK opens the session's standalone GET stream; servers
  // send questions there too (the SDK's simpleTaskInteractive sends them nowhere else), so it is opened here.
  if (session?.sessionId && transport instanceof StreamableHTTPClientTransport) await openStandaloneStream(transport);
  const rpc = new RawChannel(transport, describeClose, requestTimeoutMs);
  watchServer(transport);
  guard.onTrip = (error) => rpc.failAll(error);
  const protocolVersion = client.getNegotiatedProtocolVersion() ?? session?.protocolVersion ?? "";
  const serverName = client.getServerVersion()?.name ?? session?.serverName ?? label;
  const sessionId = () => (transport instanceof StreamableHTTPClientTransport ? transport.sessionId : undefined);
  return { client, rpc, era, protocolVersion, serverName, sessionId, transport };
}

/**
 * Opens the session's standalone GET SSE stream with the SDK's public `resumeStream` (no event id: a plain GET, as the
 * SDK sends after initialize; it reconnects by itself when the stream drops). A server without one (405) is fine;
 * one that refuses it otherwise costs only the questions it would send there.
 */
async function openStandaloneStream(transport: StreamableHTTPClientTransport): Promise<void> {
  const onerror = transport.onerror;
  transport.onerror = undefined; // the failed tries below are not the connection's errors
  try {
    for (let attempt = 1; attempt <= GET_STREAM_TRIES; attempt++) {
      try {
        await transport.resumeStream("");
        return;
      } catch (error) {
        if ((error as { status?: number }).status !== 409 || attempt === GET_STREAM_TRIES) return;
        await new Promise((resolve) => setTimeout(resolve, GET_STREAM_RETRY_MS));
      }
    }
  } finally {
    transport.onerror = onerror;
  }
}

function makeTransport(
  descriptor: ServerDescriptor,
  env: Record<string, string | undefined>,
  stderrTail: { text: string },
  guard: SizeGuard,
  session?: ResumeToken,
  authorize?: ConnectOptions["authorize"],
): Transport {
  if (descriptor.transport === "http") {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(descriptor.headers ?? {})) headers[name] = resolveEnvRefs(value, env);
    return new StreamableHTTPClientTransport(new URL(descriptor.url), {
      requestInit: { headers },
      fetch: guard.fetch(authorize?.(fetch)),
      // Redirects are the guard's fetch's to follow (within the origin), and so is the floor on SSE reconnections.
      redirectPolicy: "follow",
      reconnectionScheduler: guard.reconnectionScheduler(),
      ...(session?.sessionId ? { sessionId: session.sessionId, protocolVersion: session.protocolVersion } : {}),
    });
  }
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
function serverProcess(transport: Transport): ChildProcess | undefined {
  if (transport instanceof EarlyStdioTransport) return transport.process;
  return sdkProcesses.get(transport);
}

/**
 * The SDK's stdio transport reports a server gone only once its process has exited and every pipe has closed: a
 * server that closes its stdout and keeps running, or a grandchild that holds the pipe, would leave requests
 * waiting for their timeout. Here, the end of stdout or the server's exit closes the connection at once (once:
 * the SDK's own report follows), and the server's process group is stopped. EarlyStdioTransport does this itself.
 */
function watchServer(transport: Transport): void {
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
function adopt(early: EarlyStdioTransport, stderrTail: { text: string }, guard: SizeGuard): Transport {
  early.adopt(new ReadBuffer({ maxBufferSize: guard.limit }));
  guard.watchStdio(early as unknown as StdioClientTransport); // the same reader field the guard watches there
  keepStderrTail(early, stderrTail);
  return early;
}

/** Keeps the end of the server's stderr once the transport starts: it is what explains a crash. */
function keepStderrTail(transport: StdioClientTransport | EarlyStdioTransport, stderrTail: { text: string }): void {
  const start = transport.start.bind(transport);
  transport.start = async () => {
    try {
      await start();
    } finally {
      const child = (transport as unknown as { _process?: ChildProcess })._process;
      if (transport instanceof StdioClientTransport && child) sdkProcesses.set(transport, child);
    }
    transport.stderr?.on("data", (chunk: Buffer) => {
      stderrTail.text = (stderrTail.text + chunk.toString("utf8")).slice(-STDERR_TAIL_BYTES);
    });
  };
}

/** The first `code` found along an error's cause chain (fetch wraps ECONNREFUSED two levels deep). */
export function causeCode(error: unknown): string | undefined {
  for (
    let e = error as { code?: unknown; cause?: unknown } | undefined, depth = 0;
    e && depth < 6;
    e = (e.cause ?? (e as { data?: { cause?: unknown } }).data?.cause) as typeof e, depth++
  ) {
    if (typeof e.code === "string" && /^E[A-Z]+$/.test(e.code)) return e.code;
  }
  return undefined;
}

/** An error of ours along the cause chain (the guard's fetch names a network failure; the SDK wraps it). */
function ownCause(error: unknown): McpTaskError | undefined {
  for (let e = error as { cause?: unknown } | undefined, depth = 0; e && depth < 6; e = e.cause as typeof e, depth++) {
    if (e instanceof McpTaskError) return e;
  }
  return undefined;
}

function connectError(
  error: unknown,
  label: string,
  descriptor: ServerDescriptor,
  stderr: string,
  redact: (s: string) => string,
): Error {
  if (error instanceof UsageError) return error;
  const own = ownCause(error);
  if (own) return own;
  const code = causeCode(error);
  const message = error instanceof Error ? error.message : String(error);
  const tail = sanitizeLine(stderr.trim()).slice(-400);
  let text: string;
  if (descriptor.transport === "stdio" && code === "ENOENT") {
    text = `cannot start the server: command not found: ${descriptor.command}`;
  } else if (code === "ECONNREFUSED") {
    text = `cannot reach ${label}: connection refused`;
  } else if (code === "ENOTFOUND" || code === "EAI_AGAIN") {
    text = `cannot reach ${label}: host not found`;
  } else {
    text = `cannot connect to ${label}: ${sanitizeLine(message)}${tail ? `; the server's stderr ends with: ${tail}` : ""}`;
  }
  const out = new ServerError(
    redact(text),
    descriptor.transport === "stdio"
      ? "check the command with --stdio, or run it by hand"
      : "check that the server is running and the URL is right",
  );
  // Over HTTP a refused or dropped connection may heal; a protocol-level refusal will not.
  out.transient = descriptor.transport === "http" && code !== undefined;
  return out;
}
