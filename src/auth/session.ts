// Connecting to a saved HTTP server with its sign-in: the saved token on every request (refreshed on a 401, see
// fetch.ts), and, when no refresh cures a 401 (or the server wants a wider scope) and a browser may be opened
// ($BROWSER, or a terminal), a sign-in on demand and the request once more. Elsewhere (CI, a pipe, a broker) the
// command ends with exit 8 and the hint `mcp-task login <server>`.
import type { IO } from "../context.js";
import { AuthRequiredError } from "../errors.js";
import { createPrinter } from "../output/printer.js";
import { sanitizeLine } from "../sanitize.js";
import { connect, type ConnectOptions } from "../protocol/connect.js";
import { savedServer, type ServerDescriptor } from "../protocol/server.js";
import type { Wire } from "../protocol/wire.js";
import type { Settings } from "../store/settings.js";
import { maySignIn, type OpenPolicy } from "./browser.js";
import { authorizedFetch, type SignInAgain } from "./fetch.js";
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
  /** The connection is a broker's (no person to sign in: a 401 there ends with exit 8 for the command). */
  broker?: boolean;
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
  const policy = openPolicy(session.io, options.env);
  const note = (text: string) => createPrinter(session.io, false).note(text);
  // A person signs in from inside the request that needs it, where one can (never in a broker: nobody is there).
  const signInAgain: SignInAgain | undefined =
    session.broker || !maySignIn(policy)
      ? undefined
      : async (reason, scope) => {
          note(
            reason === "scope"
              ? `${saved.name} asks for more access (${sanitizeLine(scope ?? "").slice(0, 200)}): signing in again`
              : `${saved.name} requires authorization: signing in`,
          );
          const { url } = descriptor;
          const { env } = options;
          await signIn({
            store,
            url,
            name: saved.name,
            client,
            env,
            policy,
            note,
            onSecret,
            scope,
            signal: session.signal,
          });
        };
  try {
    return await connect(descriptor, { ...options, authorize: authorizedFetch(provider, descriptor.url, signInAgain) });
  } catch (error) {
    if (error instanceof AuthRequiredError) error.hint = `sign in: mcp-task login ${saved.name}`;
    throw error;
  }
}
