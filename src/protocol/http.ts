// Streamable HTTP connections: the transport over the guard's fetch (sizes, redirects), under which go the sign-in's
// token (src/auth/fetch.ts), the wire trace and the environment's proxy; and the session's standalone GET stream.
import { SSEClientTransport, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { ANSWER_POSTS_AT_ONCE, GET_STREAM_RETRY_MS, GET_STREAM_TRIES, MAX_QUEUED_ANSWERS } from "../limits.js";
import type { SizeGuard } from "./limits.js";
import { PROBE_NAME_HEADER } from "./probes.js";
import { proxiedFetch } from "./proxy.js";
import { resolveEnvRefs, type ServerDescriptor } from "./server.js";
import { traceFetch, type Trace } from "./trace.js";
import type { ResumeToken } from "./wire.js";

/** The fetch under an HTTP transport: through the environment's proxy, traced when a trace is on (else the default). */
export async function serverFetch(
  env: Record<string, string | undefined>,
  trace: Trace | undefined,
  label: string,
): Promise<typeof fetch | undefined> {
  const proxied = await proxiedFetch(env);
  return trace ? traceFetch(proxied ?? fetch, trace, label) : proxied;
}

/** A fetch that presents a sign-in's token on each request (src/auth/fetch.ts), wrapped around the next one. */
export type Authorize = (next: typeof fetch) => typeof fetch;

/** The SDK's Streamable HTTP transport for `descriptor` (its ${env:} header references resolved now). */
export function httpTransport(
  descriptor: Extract<ServerDescriptor, { transport: "http" }>,
  env: Record<string, string | undefined>,
  guard: SizeGuard,
  session: ResumeToken | undefined,
  inner: typeof fetch | undefined,
  authorize: Authorize | undefined,
): StreamableHTTPClientTransport {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(descriptor.headers ?? {})) headers[name] = resolveEnvRefs(value, env);
  return new StreamableHTTPClientTransport(new URL(descriptor.url), {
    requestInit: { headers },
    fetch: oneAnswerAtATime(guard.fetch(withProbeHeaders(withAuthorization(authorize, inner)))),
    // Redirects are the guard's fetch's to follow (within the origin), and so is the floor on SSE reconnections.
    redirectPolicy: "follow",
    reconnectionScheduler: guard.reconnectionScheduler(),
    ...(session?.sessionId ? { sessionId: session.sessionId, protocolVersion: session.protocolVersion } : {}),
  });
}

/** The fetch under the size guard: the sign-in's token presented (when signed in) on a connection that may be replayed. */
function withAuthorization(authorize: Authorize | undefined, inner: typeof fetch | undefined): typeof fetch {
  const replaying = replayOnStaleConnection(inner ?? fetch);
  return authorize ? authorize(replaying) : replaying;
}

/** The requests that ask and change nothing a second copy would change: sent again on a stale connection. */
const REPLAYABLE = new Set([
  "initialize",
  "server/discover",
  "ping",
  "tasks/get",
  "tasks/list",
  "tasks/result",
  "tools/list",
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "prompts/list",
  "prompts/get",
  "completion/complete",
]);

/**
 * A request that fails before any reply because its connection closed or was reset is sent once more, on a new
 * connection, when it is a read (REPLAYABLE). Kept-alive connections are reused: one the server closes as idle (Node's
 * default after 5 s) just as the client sends on it fails so, and a one-shot `get` on a loaded machine said "cannot
 * reach the server: the connection closed" of a server that was up. undici retries only idempotent HTTP methods, and
 * every MCP request is a POST; a call, an answer or a cancel is never replayed (the server may have acted on it).
 */
function replayOnStaleConnection(next: typeof fetch): typeof fetch {
  return async (input, init) => {
    try {
      return await next(input, init);
    } catch (error) {
      if (init?.signal?.aborted || !closedUnderfoot(error) || !replayable(init)) throw error;
      return next(input, init);
    }
  };
}

function replayable(init: RequestInit | undefined): boolean {
  if (init?.method !== "POST" || typeof init.body !== "string" || init.body.length > 65_536) return false;
  try {
    const message = JSON.parse(init.body) as { method?: unknown };
    return typeof message.method === "string" && REPLAYABLE.has(message.method);
  } catch {
    return false;
  }
}

/** The connection closed or was reset under the request (undici's "other side closed", ECONNRESET, EPIPE). */
function closedUnderfoot(error: unknown): boolean {
  for (let e = error as { code?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 6; depth++) {
    if (e.code === "UND_ERR_SOCKET" || e.code === "ECONNRESET" || e.code === "EPIPE") return true;
    e = e.cause as typeof e;
  }
  return false;
}

/**
 * The POSTs that carry this client's answers to the server's own requests (a ping, a roots/list: JSON-RPC
 * responses, which name no method) go out ANSWER_POSTS_AT_ONCE at a time, the rest in turn. The SDK answers each
 * request as it comes: a server that sent 50,000 pings on a call's stream got 50,000 POSTs at once (each with a
 * listener on the transport's signal): 1 GB and a CPU-minute, and the call's own reply read too late. Past
 * MAX_QUEUED_ANSWERS waiting, an empty answer (a ping's) is not sent at all (a 202 of our own): a server that pings
 * faster than it is answered gets no more answers, and costs no more memory. An answer with something in it (a
 * person's to a question, roots) always waits its turn: those come at a person's pace. A finished POST hands its
 * place to the next in line, so that no newcomer slips in between. Not p-limit: a few lines here, against a
 * dependency in the bundle every command loads, and it has no bound on what waits.
 */
function oneAnswerAtATime(next: typeof fetch): typeof fetch {
  let sending = 0;
  const queue: Array<() => void> = [];
  return async (input, init) => {
    const body = init?.body;
    if (init?.method !== "POST" || typeof body !== "string" || body.includes('"method"')) return next(input, init);
    if (sending < ANSWER_POSTS_AT_ONCE) sending++;
    else if (queue.length >= MAX_QUEUED_ANSWERS && emptyAnswer(body)) return new Response(null, { status: 202 });
    else await new Promise<void>((resolve) => queue.push(resolve)); // given the place of a POST that finished
    try {
      return await next(input, init);
    } finally {
      const nextInLine = queue.shift();
      if (nextInLine) nextInLine();
      else sending--;
    }
  };
}

/** A JSON-RPC answer with an empty result (a ping's). Parsed only once MAX_QUEUED_ANSWERS wait. */
function emptyAnswer(body: string): boolean {
  try {
    const { result } = JSON.parse(body) as { result?: unknown };
    return typeof result === "object" && result !== null && Object.keys(result).length === 0;
  } catch {
    return false;
  }
}

/**
 * `mcp-task check` asks a V2 server to refuse a tasks/get whose Mcp-Name disagrees with its body (probes.ts). The SDK's
 * transport derives Mcp-Name from the body and lets no request set it, so the probe names the header it wants under a
 * name of ours, and this fetch (under the transport, above the trace, which shows what is really sent) swaps it in.
 */
function withProbeHeaders(next: typeof fetch): typeof fetch {
  return (input, init) => {
    const headers = new Headers(init?.headers);
    const name = headers.get(PROBE_NAME_HEADER);
    if (name === null) return next(input, init);
    headers.delete(PROBE_NAME_HEADER);
    headers.set("mcp-name", name);
    return next(input, { ...init, headers });
  };
}

/**
 * The legacy HTTP+SSE transport (2024-11-05: a GET event stream that names the endpoint to POST to), for a server that
 * refused Streamable HTTP (see `refusesStreamableHttp`); plain calls only, as such a server has no tasks.
 */
export function legacySseTransport(
  descriptor: Extract<ServerDescriptor, { transport: "http" }>,
  env: Record<string, string | undefined>,
  guard: SizeGuard,
  inner: typeof fetch | undefined,
  authorize: Authorize | undefined,
): SSEClientTransport {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(descriptor.headers ?? {})) headers[name] = resolveEnvRefs(value, env);
  return new SSEClientTransport(new URL(descriptor.url), {
    requestInit: { headers },
    fetch: guard.fetch(withAuthorization(authorize, inner)),
    redirectPolicy: "follow",
  });
}

/**
 * A first contact the spec's backwards compatibility says to retry as legacy HTTP+SSE: the initialize POST refused
 * with 400, 404 or 405 (a legacy server serves GET /sse and POST /messages only). A resumed session never is.
 */
export function refusesStreamableHttp(error: unknown): boolean {
  const status = (error as { status?: unknown; data?: { status?: unknown } } | undefined)?.status;
  return status === 400 || status === 404 || status === 405;
}

/**
 * Opens the session's standalone GET SSE stream with the SDK's public `resumeStream` (no event id: a plain GET, as the
 * SDK sends after initialize; it reconnects by itself when the stream drops). A server without one (405) is fine;
 * one that refuses it otherwise costs only the questions it would send there.
 */
export async function openStandaloneStream(transport: StreamableHTTPClientTransport): Promise<void> {
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
