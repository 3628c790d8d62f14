// Signing out: the server's tokens are forgotten, and revoked first where its authorization server offers
// revocation (RFC 7009) at an endpoint that keeps src/secure-url.ts's rule. Hand-written: the SDK has no
// revocation call.
import { proxiedFetch } from "../protocol/proxy.js";
import { resolveEnvRefs } from "../protocol/server.js";
import { judgeUrl, secureFetch, shownUrl, type FetchLike } from "../secure-url.js";
import type { OAuthClientSettings } from "../store/settings.js";
import { UnsafeFileError } from "../store/safe-fs.js";
import { AuthNet, authTimeoutMs } from "./net.js";
import type { AuthRecord, AuthStore } from "./store.js";

export interface SignedOut {
  /** Whether there were tokens to forget. */
  hadTokens: boolean;
  /** Whether the authorization server offers revocation (RFC 7009), and whether it accepted every revocation. */
  revocable: boolean;
  revoked: boolean;
  /**
   * Why revocation was not attempted though offered: the endpoint breaks src/secure-url.ts's rule (plain http to
   * another host, or not a web address), and the tokens are not sent there; they are forgotten all the same.
   */
  refused?: string;
  /** Why the saved sign-in could not be read (removed all the same, nothing revoked). */
  unreadable?: string;
}

export async function signOut(
  store: AuthStore,
  url: string,
  client: OAuthClientSettings | undefined,
  env: Record<string, string | undefined>,
): Promise<SignedOut> {
  let record: AuthRecord;
  try {
    record = store.read(url);
  } catch (error) {
    // A record that cannot be read (too large, a link, another user's): nothing in it can be revoked, and keeping
    // it would leave every command refusing it; it is removed.
    if (!(error instanceof UnsafeFileError)) throw error;
    const { unreadable } = await store.remove(url);
    return { hadTokens: false, revocable: false, revoked: false, unreadable: unreadable ?? error.reason };
  }
  const endpoint = (record.discovery?.authorizationServerMetadata as { revocation_endpoint?: string } | undefined)
    ?.revocation_endpoint;
  let revoked = false;
  // Tokens go only where the rule lets them (https, or http on this machine), and nowhere a redirect points.
  const judged = endpoint === undefined ? undefined : judgeUrl(endpoint);
  const refused =
    judged?.why && record.tokens ? `its revocation endpoint ${shownUrl(endpoint!, judged)} ${judged.why}` : undefined;
  // Through the proxy the environment names, as every request to the server goes.
  // Timed and its answer bounded (./net.ts), and only to an address that keeps the rule.
  const net = secureFetch(
    new AuthNet((await proxiedFetch(env)) ?? fetch, authTimeoutMs(env)).fetch,
    "the revocation endpoint",
  );
  if (record.tokens && judged?.url && !refused) {
    const target = judged.url.href;
    const clientId = client?.clientId ?? record.client?.client_id;
    const secret = client?.clientSecret ? resolveEnvRefs(client.clientSecret, env) : record.client?.client_secret;
    revoked = true;
    for (const [token, hint] of [
      [record.tokens.refresh_token, "refresh_token"],
      [record.tokens.access_token, "access_token"],
    ] as const) {
      if (token) revoked = (await revoke(net, target, token, hint, clientId, secret)) && revoked;
    }
  }
  const { hadTokens } = await store.remove(url);
  return { hadTokens, revocable: Boolean(endpoint), revoked, ...(refused ? { refused } : {}) };
}

async function revoke(
  net: FetchLike,
  endpoint: string,
  token: string,
  hint: string,
  clientId?: string,
  secret?: string,
) {
  const body = new URLSearchParams({ token, token_type_hint: hint });
  const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded" };
  if (secret && clientId) headers.authorization = `Basic ${Buffer.from(`${clientId}:${secret}`).toString("base64")}`;
  else if (clientId) body.set("client_id", clientId);
  try {
    // Timed, and its answer read within MAX_AUTH_BODY_BYTES (./net.ts): only its status counts. A redirect is not
    // followed: the tokens would go where it points (a 3xx is "not confirmed").
    return (await net(endpoint, { method: "POST", headers, body, redirect: "manual" })).ok;
  } catch {
    return false; // the tokens are forgotten all the same
  }
}
