// Opening a connection: transport, handshake with generation detection, and the wire adapter on top.
import { Client, type PriorDiscovery } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { SSEClientTransport, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { Transport } from "@modelcontextprotocol/client";
import { TaskNotFoundError, UsageError } from "../errors.js";
import { sanitizeLine } from "../sanitize.js";
import { closeError, connectError } from "./failures.js";
import { SizeGuard } from "./limits.js";
import { stopServer } from "./process.js";
import {
  httpTransport,
  legacySseTransport,
  openStandaloneStream,
  refusesStreamableHttp,
  serverFetch,
  type Authorize,
} from "./http.js";
import { traceTransport, type Trace } from "./trace.js";
import { DEFAULT_REQUEST_TIMEOUT_MS, MAX_MESSAGE_BYTES, RawChannel } from "./rpc.js";
import { describeServer, descriptorKey, handshakeTimeouts, redactSecrets, type ServerDescriptor } from "./server.js";
import { EarlyStdioTransport } from "./stdio.js";
import { adopt, serverProcess, stdioTransport, watchServer, type StderrTail } from "./stdio-sdk.js";
import { V1Wire } from "./v1.js";
import { V2Wire } from "./v2.js";
import { renegotiable } from "./renegotiable.js";
import { sessionBound } from "./sse-session.js";
import type { ResumeToken, Wire } from "./wire.js";

const CLIENT_INFO = { name: "mcp-task", version: "0.1.0" } as const;
/** What mcp-task serves: forms and URL-mode pages always; sampling only where a reply can be given
 *  (ConnectOptions.sampling). */
const clientCapabilities = (sampling: boolean) => ({
  elicitation: { form: {}, url: {} },
  ...(sampling && { sampling: {} }),
});

/** Where generation verdicts are remembered between processes. */
export interface VerdictCache {
  /** The verdict last found for a server, and whether it may be used without asking the server (`fresh`). */
  get(key: string): { verdict: PriorDiscovery; fresh: boolean } | undefined;
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
  /** Where a stdio server's stderr goes besides the tail kept for errors (a broker: its log). */
  serverStderr?: (text: string) => void;
  /** Where the wire trace goes (`--trace`), if anywhere. */
  trace?: Trace;
  /**
   * A connection that lives long (a broker's, which tells its generation to every command it serves): a kept verdict
   * is checked at the start however fresh (one `server/discover`), not taken over later under a command's feet.
   */
  checkVerdict?: boolean;
  /** HTTP: reach the server over legacy HTTP+SSE (set when it refused Streamable HTTP at first contact). */
  legacySse?: boolean;
  /** HTTP: the fetch under the guard that presents the saved sign-in's token (src/auth/fetch.ts). */
  authorize?: Authorize;
  /**
   * Declare `sampling`: a sampling request can be answered on this connection (a person, a reply given ahead, or a
   * process that keeps the question for a later command). Without it a server knows to do without.
   */
  sampling?: boolean;
}

/**
 * Connects, with the generation verdict kept for the server where there is one. A fresh verdict (within its
 * discover result's ttlMs; a legacy one for a day) is used as it is: no round trip for a 2026-07-28 one, which is
 * then negotiated again, once, should a request under it say that the server changed (renegotiable.ts). One past its
 * ttl (ttlMs 0, the usual: at once) is only the likely generation, checked by asking the server (`server/discover`;
 * over stdio, of the process already started). A connection that fails under a kept verdict forgets it and
 * negotiates afresh.
 */
export async function connect(descriptor: ServerDescriptor, options: ConnectOptions): Promise<Wire> {
  if (options.resume) return resume(descriptor, options, options.resume);
  const key = descriptorKey(descriptor);
  const known = options.verdicts?.get(key);
  const prior = known?.fresh && !(options.checkVerdict && known.verdict.kind === "modern") ? known.verdict : undefined;
  const afresh = () => {
    options.verdicts?.delete(key);
    return connectOnce(descriptor, { ...options, prestarted: undefined }, undefined);
  };
  let wire: Wire;
  try {
    wire = await connectOnce(descriptor, options, prior, undefined, known?.verdict);
  } catch (error) {
    // A verdict that no longer holds (the server changed generation): forget it and negotiate afresh.
    if (known && !(error instanceof UsageError)) return afresh();
    throw error;
  }
  const channel = channels.get(wire);
  return prior?.kind === "modern" && channel ? renegotiable(wire, afresh, () => channel.untypedResults > 0) : wire;
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
  if (token.sessionBound) {
    throw new TaskNotFoundError(
      `this task ran on a legacy HTTP+SSE session with ${sanitizeLine(label)}, which ended with the mcp-task command that started it; such a session is that command's own event stream`,
      "run the task again, and let the command follow it to its end (--detach cannot be kept on such a server)",
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
  known?: PriorDiscovery,
): Promise<Wire> {
  // Logging notifications go to the wire's subscribers, from the first connection and any renewed one.
  const logs = (opened: Opened) => {
    opened.rpc.onLog = (log) => (wire as V1Wire | V2Wire).hub.emit("log", log);
    return opened;
  };
  const { client, rpc, era, protocolVersion, serverName, sessionId, transport } = logs(
    await open(descriptor, options, prior, session, known),
  );
  // V1 over HTTP: when the server no longer knows the session (it restarted), the wire opens a new one this way.
  const renew =
    descriptor.transport === "http" ? async () => logs(await open(descriptor, options, { kind: "legacy" })) : undefined;
  const modern =
    era === "modern"
      ? new V2Wire(client, rpc, protocolVersion, serverName, descriptor.transport === "http")
      : undefined;
  if (modern) modern.sampling = options.sampling === true;
  const wire: Wire = modern
    ? modern
    : new V1Wire(client, rpc, protocolVersion, serverName, session?.capabilities, sessionId, renew);
  wire.setLogLevel = async (level) => {
    const capabilities = client.getServerCapabilities() ?? session?.capabilities;
    if (!capabilities?.logging) return false;
    await client.setLoggingLevel(level);
    return true;
  };
  if (transport instanceof StdioClientTransport || transport instanceof EarlyStdioTransport)
    wire.serverPid = transport.pid ?? undefined;
  channels.set(wire, rpc);
  return transport instanceof SSEClientTransport ? sessionBound(wire) : wire;
}

/** What `open` hands the wire: the SDK client, the channel for task traffic, and what the handshake learned. */
interface Opened {
  client: Client;
  rpc: RawChannel;
  era: ReturnType<Client["getProtocolEra"]>;
  protocolVersion: string;
  serverName: string;
  sessionId: () => string | undefined;
  transport: Transport;
}

/**
 * The transport: the prestarted server serves one connection, and only one whose generation is known or likely (a
 * kept verdict, past its ttl: `known`), where a `server/discover` in that process checks it (stdio.ts).
 */
async function transportOf(
  descriptor: ServerDescriptor,
  options: ConnectOptions,
  at: {
    prior?: PriorDiscovery;
    known?: PriorDiscovery;
    session?: ResumeToken;
    stderrTail: StderrTail;
    guard: SizeGuard;
    label: string;
  },
): Promise<Transport> {
  const { prior, known, session, stderrTail, guard, label } = at;
  const early = options.prestarted;
  options.prestarted = undefined;
  if (early && !(prior ?? known)) early.discard();
  if ((prior ?? known) && early) return adopt(early, stderrTail, guard);
  const fetch = descriptor.transport === "http" ? await serverFetch(options.env, options.trace, label) : undefined;
  return makeTransport(
    descriptor,
    options.env,
    stderrTail,
    guard,
    session,
    fetch,
    options.authorize,
    options.legacySse,
  );
}

/** Opens the transport and does the handshake (none on a resumed V1 session); the channel for task traffic on top. */
async function open(
  descriptor: ServerDescriptor,
  options: ConnectOptions,
  prior: PriorDiscovery | undefined,
  session?: ResumeToken,
  known?: PriorDiscovery,
): Promise<Opened> {
  const label = options.name ?? describeServer(descriptor);
  const stderrTail: StderrTail = { text: "", sink: options.serverStderr };
  const guard = new SizeGuard(MAX_MESSAGE_BYTES, label);
  const requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const handshake = handshakeTimeouts(descriptor.transport, options.timeoutMs ?? requestTimeoutMs);
  const transport = await transportOf(descriptor, options, { prior, known, session, stderrTail, guard, label });
  if (options.trace) traceTransport(transport, options.trace, label);
  const client = new Client(CLIENT_INFO, {
    capabilities: clientCapabilities(options.sampling === true),
    versionNegotiation: {
      mode: "auto",
      probe: { timeoutMs: handshake.probe },
    },
  });
  const redact = (text: string) => redactSecrets(text, descriptor, options.env);
  const describeClose = () => closeError(descriptor, label, transport, stderrTail.text, redact);
  try {
    await client.connect(transport, {
      ...(prior ? { prior } : {}),
      timeout: handshake.connect,
    });
  } catch (error) {
    // The SDK's close waits on the server's pipes (which a grandchild may hold) and signals only its child.
    const child = serverProcess(transport);
    void client.close().catch(() => {});
    if (child) await stopServer(child);
    if (
      descriptor.transport === "http" &&
      !session &&
      !options.legacySse &&
      !guard.error &&
      refusesStreamableHttp(error)
    )
      // A legacy HTTP+SSE server? If it is not one either, what Streamable HTTP met is the error to tell.
      return open(descriptor, { ...options, legacySse: true }, { kind: "legacy" }).catch(() => {
        throw connectError(error, label, descriptor, stderrTail.text, redact);
      });
    // Over stdio a probe not answered means a legacy server, asked to initialize next: the two waits add up.
    const bound = (descriptor.transport === "stdio" && !prior ? handshake.probe : 0) + handshake.connect;
    throw guard.error ?? connectError(error, label, descriptor, stderrTail.text, redact, child, bound);
  }
  const era = client.getProtocolEra();
  const verdict: PriorDiscovery | undefined =
    era === "modern"
      ? { kind: "modern", discover: client.getDiscoverResult()! }
      : era === "legacy"
        ? { kind: "legacy" }
        : undefined;
  // Kept when found by asking: written only where it changed, or where its ttl lets it be used unchecked for a while
  // (a discover result with ttlMs 0, checked each time, costs no write each time).
  if (verdict && !prior && (!sameVerdict(verdict, known) || freshFor(verdict)))
    options.verdicts?.set(descriptorKey(descriptor), verdict);
  // A resumed session skipped initialize, after which the SDK opens the session's standalone GET stream; servers
  // send questions there too (the SDK's simpleTaskInteractive sends them nowhere else), so it is opened here.
  if (session?.sessionId && transport instanceof StreamableHTTPClientTransport) await openStandaloneStream(transport);
  const rpc = new RawChannel(transport, describeClose, requestTimeoutMs);
  watchServer(transport);
  endOnTrip(guard, rpc, transport);
  // A listen stream's task notifications go to the handler the SDK would call, without its parse (push-stream.ts).
  guard.onPush = (message) => transport.onmessage?.(message as never);
  const protocolVersion = client.getNegotiatedProtocolVersion() ?? session?.protocolVersion ?? "";
  const serverName = client.getServerVersion()?.name ?? session?.serverName ?? label;
  const sessionId = () => (transport instanceof StreamableHTTPClientTransport ? transport.sessionId : undefined);
  return { client, rpc, era, protocolVersion, serverName, sessionId, transport };
}

/** Each wire's channel, for what it counted (renegotiable.ts). */
const channels = new WeakMap<Wire, RawChannel>();

const sameVerdict = (a: PriorDiscovery, b: PriorDiscovery | undefined) => JSON.stringify(a) === JSON.stringify(b);
const freshFor = (verdict: PriorDiscovery) => {
  const ttl: unknown = verdict.kind === "modern" ? verdict.discover.ttlMs : undefined;
  return typeof ttl === "number" && ttl > 0;
};

/**
 * A tripped guard ends the connection: its requests fail with the guard's error, and so does the wire's close (a
 * broker's wire must not stay up with every request refused).
 */
function endOnTrip(guard: SizeGuard, rpc: RawChannel, transport: Transport): void {
  guard.onTrip = (error) => {
    rpc.failAll(error);
    void transport.close().catch(() => {});
  };
}

function makeTransport(
  descriptor: ServerDescriptor,
  env: Record<string, string | undefined>,
  stderrTail: StderrTail,
  guard: SizeGuard,
  session?: ResumeToken,
  inner?: typeof fetch,
  authorize?: Authorize,
  legacySse?: boolean,
): Transport {
  if (descriptor.transport === "http" && legacySse) return legacySseTransport(descriptor, env, guard, inner, authorize);
  if (descriptor.transport === "http") return httpTransport(descriptor, env, guard, session, inner, authorize);
  return stdioTransport(descriptor, env, stderrTail, guard);
}
