// Connecting to an HTTP server with its sign-in (a saved server's, or one made for a URL saved as none): the saved token on every request (refreshed on a 401, see
// fetch.ts), and, when no refresh cures a 401 (or the server wants a wider scope) and a browser may be opened
// ($BROWSER, or a terminal), a sign-in on demand and the request once more. Elsewhere (CI, a pipe, a broker) the
// command ends with exit 8 and the hint `mcp-task login <server>`.
import { computeScopeUnion } from "@modelcontextprotocol/client";
import type { IO } from "../context.js";
import { MAX_SCOPE_STEP_UPS } from "../limits.js";
import { AuthRequiredError, UnsafeUrlError } from "../errors.js";
import { createPrinter } from "../output/printer.js";
import { sanitizeLine, secretForms, shellValue } from "../sanitize.js";
import { judgeUrl, SECURE_URL_RULE } from "../secure-url.js";
import { connect, type ConnectOptions } from "../protocol/connect.js";
import { savedServer, type ServerDescriptor } from "../protocol/server.js";
import type { Wire } from "../protocol/wire.js";
import type { Settings } from "../store/settings.js";
import { maySignIn, type OpenPolicy } from "./browser.js";
import { authorizedFetch, type Renewals, type SignInAgain } from "./fetch.js";
import { authTimeoutMs } from "./net.js";
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

/**
 * An HTTP server's sign-in: its token provider, and how a person signs in again (undefined: nobody can). A saved
 * server's is found by its URL, with its pre-registered client; a server saved as none (`-s <url>`, a handle's) has
 * only the sign-in a person made for that very URL (`login <url>`, or a sign-in on demand here), never one a saved
 * server left there.
 */
function signInFor(
  descriptor: ServerDescriptor & { transport: "http" },
  session: AuthSession,
  env: Record<string, string | undefined>,
): { name: string; byUrl: boolean; provider: StoredProvider; signInAgain?: SignInAgain } | undefined {
  // No token is presented to a server reached in clear (src/secure-url.ts), and no sign-in starts there.
  if (judgeUrl(descriptor.url).why) return undefined;
  const saved = savedServer(descriptor, session.settings.servers());
  const name = saved?.name ?? sanitizeLine(descriptor.url);
  const client = saved ? session.settings.client(saved.name) : undefined;
  const store = new AuthStore(session.home);
  const onSecret = (secret: string) => {
    for (const form of secretForms(secret)) session.secrets.set(form, "[token]");
  };
  const byUrl = !saved;
  const provider = new StoredProvider(store, descriptor.url, client, env, undefined, onSecret, { byUrl });
  const policy = openPolicy(session.io, env);
  const note = (text: string) => createPrinter(session.io, false).note(text);
  // A person signs in from inside the request that needs it, where one can (never in a broker: nobody is there).
  const signInAgain: SignInAgain | undefined =
    session.broker || !maySignIn(policy)
      ? undefined
      : async (reason, scope) => {
          note(
            reason === "scope"
              ? `${name} asks for more access (${sanitizeLine(scope ?? "").slice(0, 200)}): signing in again`
              : `${name} requires authorization: signing in`,
          );
          const { url } = descriptor;
          await signIn({
            store,
            url,
            name,
            byUrl,
            client,
            env,
            policy,
            note,
            onSecret,
            scope,
            signal: session.signal,
          });
        };
  return { name: saved?.name ?? descriptor.url, byUrl, provider, signInAgain };
}

export async function connectSignedIn(
  descriptor: ServerDescriptor,
  { session, ...options }: ConnectOptions & { session: AuthSession },
): Promise<Wire> {
  if (descriptor.transport !== "http") return connect(descriptor, options);
  const signed = signInFor(descriptor, session, options.env);
  if (!signed)
    return connect(descriptor, options).catch((error: unknown) => {
      // A saved server reached in clear that asks for a sign-in: `login` would refuse it (signin.ts).
      if (error instanceof AuthRequiredError && judgeUrl(descriptor.url).why)
        error.hint = `${SECURE_URL_RULE}: save the server's https address`;
      throw error;
    });
  const { provider, signInAgain } = signed;
  const renewals: Renewals = { timeoutMs: authTimeoutMs(options.env) };
  // A person's sign-in is never timed by the handshake's request that met the 401 (the version probe waits at most
  // PROBE_MAX_TIMEOUT_MS): asked for during the handshake, it stops the handshake, happens outside it, and the
  // handshake starts again, signed in (once). A person who took longer than the probe's 10 s at the browser was
  // told "the server did not answer initialize within 60 s", and the sign-in was lost.
  let handshaking = true;
  let deferred: { reason: "expired" | "scope"; scope?: string } | undefined;
  const signInOutsideHandshake: SignInAgain | undefined = signInAgain
    ? async (reason, scope) => {
        if (!handshaking) return signInAgain(reason, scope);
        deferred = { reason, scope };
        throw new AuthRequiredError(`${signed.name} requires authorization`);
      }
    : undefined;
  const authorize = authorizedFetch(provider, descriptor.url, signInOutsideHandshake, renewals);
  const handshake = async () => {
    handshaking = true;
    const wire = await connect(descriptor, { ...options, authorize });
    handshaking = false; // from here on a sign-in happens inside the request that needs it (a step-up, say)
    return wire;
  };
  try {
    try {
      return await handshake();
    } catch (error) {
      const asked = deferred;
      if (!asked || !signInAgain) throw error;
      await signInAgain(asked.reason, asked.scope);
      return await handshake();
    }
  } catch (error) {
    // A token renewal under way when the handshake gave up (its own timeout can be the longer): what failed is the
    // authorization server, and that is what to report, not the server's probe that waited on it.
    await renewals.pending;
    if (renewals.failure) throw renewals.failure;
    // A refused page or endpoint (UnsafeUrlError): signing in again would meet it again.
    if (error instanceof AuthRequiredError && !(error instanceof UnsafeUrlError))
      error.hint = signed.byUrl
        ? `sign in: mcp-task login ${shellValue(descriptor.url)}, or save the server with a token: mcp-task server ` +
          `add <name> --url ${shellValue(descriptor.url)} --header "Authorization: Bearer \${env:TOKEN}"`
        : `sign in: mcp-task login ${shellValue(signed.name)}`;
    throw error;
  }
}

/**
 * A wire whose requests another process makes (a V1 session's keeper, where nobody can sign in), with this
 * command's step-up: a tool call the server refused for want of scope (403 `insufficient_scope`) has the person
 * sign in for the wider scope, at most MAX_SCOPE_STEP_UPS times, and is sent again. The keeper's connection reads
 * the token from the store on every request (provider.ts), so its retry carries the new one. Refused before the
 * server ran it, the call is safe to send again.
 */
export function withScopeStepUp(
  wire: Wire,
  descriptor: ServerDescriptor,
  session: AuthSession,
  env: Record<string, string | undefined>,
): Wire {
  if (descriptor.transport !== "http") return wire;
  const signed = signInFor(descriptor, session, env);
  if (!signed?.signInAgain) return wire;
  const { provider, signInAgain } = signed;
  const callTool = wire.callTool.bind(wire);
  let stepUps = 0;
  wire.callTool = async (name, args, options) => {
    for (;;) {
      try {
        return await callTool(name, args, options);
      } catch (error) {
        if (!(error instanceof AuthRequiredError) || !error.scope || stepUps >= MAX_SCOPE_STEP_UPS) throw error;
        stepUps++;
        const granted = (await provider.tokens())?.scope ?? provider.clientMetadata.scope;
        await signInAgain("scope", computeScopeUnion(granted, error.scope) ?? error.scope);
      }
    }
  };
  return wire;
}
