// Signing out: the server's tokens are forgotten, and revoked first where its authorization server offers
// revocation (RFC 7009) at an endpoint that keeps src/secure-url.ts's rule. Hand-written: the SDK has no
// revocation call.
import { proxiedFetch } from "../protocol/proxy.js";
import { resolveEnvRefs } from "../protocol/server.js";
import { AUTH_REQUEST_TIMEOUT_MS } from "../limits.js";
import { judgeUrl, secureFetch, shownUrl, type FetchLike } from "../secure-url.js";
import type { OAuthClientSettings } from "../store/settings.js";
import type { AuthStore } from "./store.js";

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
}

export async function signOut(
  store: AuthStore,
  url: string,
  client: OAuthClientSettings | undefined,
  env: Record<string, string | undefined>,
): Promise<SignedOut> {
  const record = store.read(url);
  const endpoint = (record.discovery?.authorizationServerMetadata as { revocation_endpoint?: string } | undefined)
    ?.revocation_endpoint;
  let revoked = false;
  // Tokens go only where the rule lets them (https, or http on this machine), and nowhere a redirect points.
  const judged = endpoint === undefined ? undefined : judgeUrl(endpoint);
  const refused =
    judged?.why && record.tokens ? `its revocation endpoint ${shownUrl(endpoint!, judged)} ${judged.why}` : undefined;
  // Through the proxy the environment names, as every request to the server goes.
  const net = secureFetch((await proxiedFetch(env)) ?? fetch, "the revocation endpoint");
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
  const hadTokens = store.remove(url);
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
    const response = await net(endpoint, {
      method: "POST",
      headers,
      body,
      // A redirect is not followed: the tokens would go where it points (a 3xx is "not confirmed").
      redirect: "manual",
      signal: AbortSignal.timeout(AUTH_REQUEST_TIMEOUT_MS),
    });
    await response.body?.cancel().catch(() => {});
    return response.ok;
  } catch {
    return false; // the tokens are forgotten all the same
  }
}
