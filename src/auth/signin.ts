// Signing in to a server: the authorization code flow with PKCE through a browser and the loopback listener, or
// the client-credentials grant when the saved client says so (CI: no person). The SDK's `auth()` does discovery,
// registration, PKCE S256, the token exchange and the `iss` check; this file runs the person's side.
import { randomBytes } from "node:crypto";
import { extractWWWAuthenticateParams } from "@modelcontextprotocol/client";
import { AuthRequiredError, McpTaskError } from "../errors.js";
import { AUTH_REQUEST_TIMEOUT_MS, LOGIN_WAIT_MS } from "../limits.js";
import { sanitizeLine } from "../sanitize.js";
import type { OAuthClientSettings } from "../store/settings.js";
import { opener, openUrl, type OpenPolicy } from "./browser.js";
import { quietAuth } from "./fetch.js";
import { proxiedFetch } from "../protocol/proxy.js";
import { listen } from "./loopback.js";
import { StoredProvider } from "./provider.js";
import type { AuthStore } from "./store.js";

export interface SignIn {
  store: AuthStore;
  /** The server's URL (the protected resource). */
  url: string;
  /** The saved server's name, for messages and hints. */
  name: string;
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

export async function signIn(o: SignIn): Promise<void> {
  // Discovery, registration and the token exchange go through the proxy the environment names, as the server's
  // requests do.
  const net = (await proxiedFetch(o.env)) ?? fetch;
  try {
    if (o.client?.grant === "client_credentials") {
      const provider = new StoredProvider(o.store, o.url, o.client, o.env, undefined, o.onSecret);
      o.store.saveTokens(o.url, undefined);
      if (
        (await quietAuth(provider, { serverUrl: o.url, ...(await challengeOf(o.url, net)), fetchFn: net })) !==
        "AUTHORIZED"
      )
        throw new AuthRequiredError(`${o.name}'s authorization server gave no token for the client credentials`);
      return;
    }
    await browserSignIn(o, net);
  } catch (error) {
    if (error instanceof McpTaskError) throw error;
    // The SDK's errors (OAuthError and the flow's own) carry the authorization server's text: one sanitized line.
    throw new AuthRequiredError(
      `cannot sign in to ${o.name}: ${sanitizeLine(error instanceof Error ? error.message : String(error)).slice(0, 500)}`,
      o.client?.clientId
        ? `check the client: mcp-task server add ${o.name} --url ${o.url} --client-id ID`
        : `if the server does not register clients itself, give yours: mcp-task server add ${o.name} --url ${o.url} --client-id ID`,
    );
  }
}

async function browserSignIn(o: SignIn, net: typeof fetch): Promise<void> {
  const state = randomBytes(24).toString("base64url");
  const loopback = await listen(state);
  try {
    const show = async (url: URL) => {
      const command = opener(o.policy);
      if (command && (await openUrl(command, url.href))) {
        o.note(`opened the browser to sign in to ${o.name}; waiting for it to come back`);
        return;
      }
      o.note(`to sign in to ${o.name}, open this address in a browser: ${sanitizeLine(url.href)}`);
    };
    const provider = new StoredProvider(
      o.store,
      o.url,
      o.client,
      o.env,
      { redirectUrl: loopback.redirectUrl, state, open: show },
      o.onSecret,
    );
    // A new sign-in, not a refresh of the old one; discovery afresh (the server may have moved to another
    // authorization server, where mcp-task registers again: the SDK reads a client stamped for another as absent).
    o.store.update(o.url, (record) => (record.tokens = record.savedAt = record.discovery = undefined));
    const challenge = { ...(await challengeOf(o.url, net)), ...(o.scope ? { scope: o.scope } : {}) };
    if ((await quietAuth(provider, { serverUrl: o.url, ...challenge, fetchFn: net })) === "AUTHORIZED") return;
    const params = await loopback.callback(o.waitMs ?? LOGIN_WAIT_MS, o.signal);
    const result = await quietAuth(provider, {
      serverUrl: o.url,
      authorizationCode: params.get("code")!,
      iss: params.get("iss") ?? undefined,
      fetchFn: net,
    });
    if (result !== "AUTHORIZED") throw new AuthRequiredError(`${o.name}'s authorization server gave no token`);
  } finally {
    await loopback.close();
  }
}

/**
 * What the server's 401 says (RFC 9728 §5.1: where its protected-resource metadata is, the scope it wants), asked
 * with a ping and no token: `auth()` falls back on the well-known addresses when there is no challenge to read.
 */
async function challengeOf(url: string, net: typeof fetch): Promise<{ resourceMetadataUrl?: URL; scope?: string }> {
  try {
    const response = await net(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "ping" }),
      signal: AbortSignal.timeout(AUTH_REQUEST_TIMEOUT_MS),
    });
    await response.body?.cancel().catch(() => {});
    if (response.status !== 401 && response.status !== 403) return {};
    const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(response);
    return { ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}), ...(scope ? { scope } : {}) };
  } catch {
    return {};
  }
}
