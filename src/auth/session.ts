// Connecting to a saved HTTP server with its sign-in: the saved token on every request (refreshed once on a 401,
// see fetch.ts), and, when the server still says 401 and a browser may be opened, a sign-in on demand and one
// more try. Elsewhere (CI, a pipe, a broker) the command ends with exit 8 and the hint `mcp-task login <server>`.
import type { IO } from "../context.js";
import { AuthRequiredError } from "../errors.js";
import { createPrinter } from "../output/printer.js";
import { connect, type ConnectOptions } from "../protocol/connect.js";
import { savedServer, type ServerDescriptor } from "../protocol/server.js";
import type { Wire } from "../protocol/wire.js";
import type { Settings } from "../store/settings.js";
import { maySignIn, type OpenPolicy } from "./browser.js";
import { authorizedFetch } from "./fetch.js";
import { StoredProvider } from "./provider.js";
import { signIn } from "./signin.js";
import { AuthStore } from "./store.js";

export interface AuthSession {
  home: string;
  settings: Settings;
  io: IO;
  /** What cli.ts redacts from every write to stdout and stderr: each token is added as it is read or saved. */
  secrets: Map<string, string>;
  signal?: AbortSignal;
}

/** How a sign-in may reach the person: `$BROWSER`, or the platform's opener at a terminal (not CI). */
export function openPolicy(io: IO, env: Record<string, string | undefined>, noBrowser = false): OpenPolicy {
  return { env, terminal: io.interactive, noBrowser };
}

export async function connectSignedIn(
  descriptor: ServerDescriptor,
  { session, ...options }: ConnectOptions & { session: AuthSession },
): Promise<Wire> {
  if (descriptor.transport !== "http") return connect(descriptor, options);
  // Tokens, like headers, are spent only on a server the person saved (protocol/server.ts: credentialed).
  const saved = savedServer(descriptor, session.settings.servers());
  if (!saved) return connect(descriptor, options);
  const client = session.settings.client(saved.name);
  const store = new AuthStore(session.home);
  const onSecret = (secret: string) => session.secrets.set(secret, "[token]");
  const provider = new StoredProvider(store, descriptor.url, client, options.env, undefined, onSecret);
  const authorize = authorizedFetch(provider, descriptor.url);
  try {
    return await connect(descriptor, { ...options, authorize });
  } catch (error) {
    if (!(error instanceof AuthRequiredError)) throw error;
    error.hint = `sign in: mcp-task login ${saved.name}`;
    const policy = openPolicy(session.io, options.env);
    if (!maySignIn(policy)) throw error;
    const note = (text: string) => createPrinter(session.io, false).note(text);
    note(`${saved.name} requires authorization: signing in`);
    await signIn({
      store,
      url: descriptor.url,
      name: saved.name,
      client,
      env: options.env,
      policy,
      note,
      onSecret,
      signal: session.signal,
    });
    return connect(descriptor, { ...options, authorize });
  }
}
