// Signing out: the server's tokens are forgotten, and revoked first where its authorization server offers
// revocation (RFC 7009). Hand-written: the SDK has no revocation call.
import { proxiedFetch } from "../protocol/proxy.js";
import { resolveEnvRefs } from "../protocol/server.js";
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
  // Through the proxy the environment names, as every request to the server goes.
  const net = new AuthNet((await proxiedFetch(env)) ?? fetch, authTimeoutMs(env)).fetch;
  if (record.tokens && endpoint) {
    const clientId = client?.clientId ?? record.client?.client_id;
    const secret = client?.clientSecret ? resolveEnvRefs(client.clientSecret, env) : record.client?.client_secret;
    revoked = true;
    for (const [token, hint] of [
      [record.tokens.refresh_token, "refresh_token"],
      [record.tokens.access_token, "access_token"],
    ] as const) {
      if (token) revoked = (await revoke(net, endpoint, token, hint, clientId, secret)) && revoked;
    }
  }
  const { hadTokens } = await store.remove(url);
  return { hadTokens, revocable: Boolean(endpoint), revoked };
}

async function revoke(
  net: typeof fetch,
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
    // Timed, and its answer read within MAX_AUTH_BODY_BYTES (./net.ts): only its status counts.
    return (await net(endpoint, { method: "POST", headers, body })).ok;
  } catch {
    return false; // the tokens are forgotten all the same
  }
}
