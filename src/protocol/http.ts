// Streamable HTTP connections: the transport over the guard's fetch (sizes, redirects), under which go the sign-in's
// token (src/auth/fetch.ts), the wire trace and the environment's proxy; and the session's standalone GET stream.
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { GET_STREAM_RETRY_MS, GET_STREAM_TRIES } from "../limits.js";
import type { SizeGuard } from "./limits.js";
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
    fetch: guard.fetch(authorize ? authorize(inner ?? fetch) : inner),
    // Redirects are the guard's fetch's to follow (within the origin), and so is the floor on SSE reconnections.
    redirectPolicy: "follow",
    reconnectionScheduler: guard.reconnectionScheduler(),
    ...(session?.sessionId ? { sessionId: session.sessionId, protocolVersion: session.protocolVersion } : {}),
  });
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
