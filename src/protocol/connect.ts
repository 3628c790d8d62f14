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
import { openStandaloneStream, refusesStreamableHttp } from "./http.js";
import { traceTransport } from "./trace.js";
import { DEFAULT_REQUEST_TIMEOUT_MS, MAX_MESSAGE_BYTES, RawChannel } from "./rpc.js";
import { describeServer, descriptorKey, handshakeTimeouts, redactSecrets, type ServerDescriptor } from "./server.js";
import { EarlyStdioTransport } from "./stdio.js";
import { serverProcess, watchServer, type StderrTail } from "./stdio-sdk.js";
import { V1Wire } from "./v1.js";
import { V2Wire } from "./v2.js";
import { renegotiable } from "./renegotiable.js";
import { sessionBound } from "./sse-session.js";
import type { ResumeToken, Wire } from "./wire.js";
import type { ConnectOptions } from "./connect-options.js";
import { endOnTrip, transportOf } from "./transports.js";

export type { ConnectOptions, VerdictCache } from "./connect-options.js";

const CLIENT_INFO = { name: "mcp-task", version: "0.1.0" } as const;
/** What mcp-task serves: forms and URL-mode pages always; sampling only where a reply can be given
 *  (ConnectOptions.sampling). */
const clientCapabilities = (sampling: boolean) => ({
  elicitation: { form: {}, url: {} },
  ...(sampling && { sampling: {} }),
});

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
