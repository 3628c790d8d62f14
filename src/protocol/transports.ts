// The transport a connection is opened over (./connect.ts): a stdio server already starting where its generation is
// known, else the server's process started, Streamable HTTP, or legacy HTTP+SSE; and the size guard that ends it.
import type { PriorDiscovery, Transport } from "@modelcontextprotocol/client";
import type { ConnectOptions } from "./connect-options.js";
import { httpTransport, legacySseTransport, serverFetch, type Authorize } from "./http.js";
import type { SizeGuard } from "./limits.js";
import type { RawChannel } from "./rpc.js";
import type { ServerDescriptor } from "./server.js";
import { adopt, stdioTransport, type StderrTail } from "./stdio-sdk.js";
import type { ResumeToken } from "./wire.js";

/**
 * The transport: the prestarted server serves one connection, and only one whose generation is known or likely (a
 * kept verdict, past its ttl: `known`), where a `server/discover` in that process checks it (stdio.ts).
 */
export async function transportOf(
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

/**
 * A tripped guard ends the connection: its requests fail with the guard's error, and so does the wire's close (a
 * broker's wire must not stay up with every request refused).
 */
export function endOnTrip(guard: SizeGuard, rpc: RawChannel, transport: Transport): void {
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
