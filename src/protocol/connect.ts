// Opening a connection: transport, handshake with generation detection, and the wire adapter on top.
import { Client, type PriorDiscovery } from "@modelcontextprotocol/client";
import { StdioClientTransport, getDefaultEnvironment } from "@modelcontextprotocol/client/stdio";
import { ReadBuffer, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { Transport } from "@modelcontextprotocol/client";
import { TaskNotFoundError, UsageError } from "../errors.js";
import { sanitizeLine } from "../sanitize.js";
import type { ChildProcess } from "node:child_process";
import { connectError } from "./failures.js";
import { SizeGuard } from "./limits.js";
import { serverGone, stopServer } from "./process.js";
import { httpTransport, openStandaloneStream, serverFetch, type Authorize } from "./http.js";
import { traceTransport, type Trace } from "./trace.js";
import { DEFAULT_REQUEST_TIMEOUT_MS, MAX_MESSAGE_BYTES, RawChannel } from "./rpc.js";
import { describeServer, descriptorKey, redactSecrets, resolveEnvRefs, type ServerDescriptor } from "./server.js";
import { EarlyStdioTransport } from "./stdio.js";
import { V1Wire } from "./v1.js";
import { V2Wire } from "./v2.js";
import type { ResumeToken, Wire } from "./wire.js";

const CLIENT_INFO = { name: "mcp-task", version: "0.1.0" } as const;
const CLIENT_CAPABILITIES = { elicitation: { form: {} }, sampling: {} } as const;

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
  /** Where the wire trace goes (`--trace`), if anywhere. */
  trace?: Trace;
  /** HTTP: the fetch under the guard that presents the saved sign-in's token (src/auth/fetch.ts). */
  authorize?: Authorize;
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
      : makeTransport(
          descriptor,
          options.env,
          stderrTail,
          guard,
          session,
          descriptor.transport === "http" ? await serverFetch(options.env, options.trace, label) : undefined,
          options.authorize,
        );
  if (options.trace) traceTransport(transport, options.trace, label);
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

function makeTransport(
  descriptor: ServerDescriptor,
  env: Record<string, string | undefined>,
  stderrTail: { text: string },
  guard: SizeGuard,
  session?: ResumeToken,
  inner?: typeof fetch,
  authorize?: Authorize,
): Transport {
  if (descriptor.transport === "http") return httpTransport(descriptor, env, guard, session, inner, authorize);
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
