// Signing in to a server: the authorization code flow with PKCE through a browser and the loopback listener, or
// the client-credentials grant when the saved client says so (CI: no person). The SDK's `auth()` does discovery,
// registration, PKCE S256, the token exchange and the `iss` check; this file runs the person's side.
import { randomBytes } from "node:crypto";
import { extractWWWAuthenticateParams } from "@modelcontextprotocol/client";
import { AuthRequiredError, ServerError } from "../errors.js";
import { LOGIN_WAIT_MS } from "../limits.js";
import { sanitizeLine, shellValue } from "../sanitize.js";
import type { OAuthClientSettings } from "../store/settings.js";
import { opener, openUrl, type OpenPolicy } from "./browser.js";
import { quietAuth } from "./fetch.js";
import { proxiedFetch } from "../protocol/proxy.js";
import { secureUrl } from "../secure-url.js";
import { listen } from "./loopback.js";
import { authFailure } from "./failure.js";
import { AuthNet, authTimeoutMs } from "./net.js";
import { StoredProvider } from "./provider.js";
import type { AuthStore } from "./store.js";

export interface SignIn {
  store: AuthStore;
  /** The server's URL (the protected resource). */
  url: string;
  /** The saved server's name, for messages and hints; its URL when it is saved as none (`byUrl`). */
  name: string;
  /** A server saved nowhere, signed in to by its URL: its sign-in is kept by URL, marked so (provider.ts). */
  byUrl?: boolean;
  /**
   * The saved server's options as `server add` flags (`--url <url> --header '…'`), for a hint that saves it again
   * with a client id and keeps every one of them; default `--url <url>`.
   */
  addFlags?: string;
  client?: OAuthClientSettings;
  env: Record<string, string | undefined>;
  policy: OpenPolicy;
  /** One line for the person (stderr). */
  note(text: string): void;
  signal?: AbortSignal;
  onSecret?: (secret: string) => void;
  waitMs?: number;
  /** The scope to ask for (a step-up: what was granted and what the server now requires); else the challenge's. */
  scope?: string;
}

/**
 * Signs in to the server; "not-needed" when it answers without a token (it asks for no authorization: nothing is
 * registered or saved). A server that cannot be reached is a ServerError (exit 4) naming the cause.
 */
export async function signIn(o: SignIn): Promise<"signed-in" | "not-needed"> {
  // Discovery, registration and the token exchange go through the proxy the environment names, as the server's
  // requests do.
  const proxied = (await proxiedFetch(o.env)) ?? fetch;
  const timeoutMs = authTimeoutMs(o.env);
  const challenge = await challengeOf(o, proxied, timeoutMs);
  if (challenge === "open") return "not-needed";
  // The token would be sent to the server itself on every request.
  secureUrl(o.url, `${o.name}'s address`);
  // Discovery, registration and the token request: each timed, each body bounded (./net.ts).
  const net = new AuthNet(proxied, timeoutMs);
  try {
    if (o.client?.grant === "client_credentials") {
      // A new token for the client, saved only once given: a failed grant leaves the saved sign-in as it was.
      const provider = new StoredProvider(o.store, o.url, o.client, o.env, undefined, o.onSecret, {
        fresh: true,
        byUrl: o.byUrl,
      });
      if ((await quietAuth(provider, { serverUrl: o.url, ...challenge, fetchFn: net.fetch })) !== "AUTHORIZED")
        throw (
          net.failure ??
          new AuthRequiredError(`${o.name}'s authorization server gave no token for the client credentials`)
        );
      return "signed-in";
    }
    await browserSignIn(o, net, challenge);
    return "signed-in";
  } catch (error) {
    const again = `mcp-task server add ${o.byUrl ? "<name>" : shellValue(o.name)} ${o.addFlags ?? `--url ${shellValue(o.url)}`} --client-id ID`;
    throw authFailure(error, net, {
      name: o.name,
      hint: o.client?.clientId
        ? `check the client: ${again}`
        : `if the server does not register clients itself, give yours: ${again}`,
    });
  }
}

async function browserSignIn(o: SignIn, net: AuthNet, challenged: Challenge): Promise<void> {
  const state = randomBytes(24).toString("base64url");
  const loopback = await listen(state);
  try {
    // The authorization page, judged (its server's metadata was judged before anything was registered: provider.ts),
    // and its host said before the browser is opened: a sign-in may start on its own inside a command (a 401).
    const show = async (url: URL) => {
      if (net.failure) throw net.failure; // never a page of what the SDK went on to after a failure of ours
      const page = secureUrl(url, `${o.name}'s authorization page`);
      const command = opener(o.policy);
      if (command) {
        o.note(`opening ${sanitizeLine(page.origin)} in the browser to sign in to ${o.name}`);
        if (await openUrl(command, page)) return o.note("waiting for the browser to come back");
      }
      o.note(`to sign in to ${o.name}, open this address in a browser: ${sanitizeLine(page.href)}`);
    };
    const provider = new StoredProvider(
      o.store,
      o.url,
      o.client,
      o.env,
      { redirectUrl: loopback.redirectUrl, state, open: show },
      o.onSecret,
      // A new sign-in, not a refresh of the old one, with discovery afresh; the saved sign-in stays as it was
      // (commands go on using it) until the new tokens are saved with what was found: an interrupted sign-in, or
      // one refused, signs nobody out (provider.ts: Pending).
      { fresh: true, byUrl: o.byUrl },
    );
    const challenge = { ...challenged, ...(o.scope ? { scope: o.scope } : {}) };
    if ((await quietAuth(provider, { serverUrl: o.url, ...challenge, fetchFn: net.fetch })) === "AUTHORIZED") return;
    // The SDK goes on past some failures (a protected-resource metadata it could not read: the server's root is
    // taken for the authorization server); ours end the sign-in before a page is opened on what followed.
    if (net.failure) throw net.failure;
    const params = await loopback.callback(o.waitMs ?? LOGIN_WAIT_MS, o.signal);
    const result = await quietAuth(provider, {
      serverUrl: o.url,
      authorizationCode: params.get("code")!,
      iss: params.get("iss") ?? undefined,
      fetchFn: net.fetch,
    });
    if (result !== "AUTHORIZED")
      throw net.failure ?? new AuthRequiredError(`${o.name}'s authorization server gave no token`);
  } finally {
    await loopback.close();
  }
}

type Challenge = { resourceMetadataUrl?: URL; scope?: string };

/**
 * What the server's 401 says (RFC 9728 §5.1: where its protected-resource metadata is, the scope it wants), asked
 * with a ping and no token: `auth()` falls back on the well-known addresses when there is no challenge to read.
 * "open": the server answered the ping without a token, and not with 401 or 403: it asks for no authorization. A server that cannot
 * be reached at all is a ServerError (exit 4) with the cause (refused, unknown host), not a failed sign-in.
 */
async function challengeOf(o: SignIn, net: typeof fetch, timeoutMs: number): Promise<Challenge | "open"> {
  let response: Response;
  try {
    response = await net(o.url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "ping" }),
      ...(timeoutMs > 0 ? { signal: AbortSignal.timeout(timeoutMs) } : {}),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new ServerError(
      `cannot reach ${sanitizeLine(o.name)} at ${sanitizeLine(o.url)}: ${sanitizeLine(cause?.code ?? cause?.message ?? (error as Error).message)}`,
      "check that the server is running and its URL",
    );
  }
  await response.body?.cancel().catch(() => {});
  // A server that needs a token refuses any request without one (401) before anything else: any other answer (a
  // result, or 400 for a ping without a session) means it asks for none.
  if (response.status !== 401 && response.status !== 403) return "open";
  const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(response);
  return { ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}), ...(scope ? { scope } : {}) };
}
