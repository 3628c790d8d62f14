// The fetch under the HTTP transport's guard (src/protocol/limits.ts) that presents a server's saved token; on a
// 401 it gets a new one without a person where it can (refresh, or the client-credentials grant), else has the
// person sign in again where one can; on a 403 insufficient_scope it has the person sign in for the wider scope.
//
// Hand-written over the SDK's withOAuth middleware, which does the same but throws UnauthorizedError: here a 401
// that cannot be cured is handed back as the response, so that the guard, the one place that classifies HTTP
// statuses, turns it into AuthRequiredError (exit 8, never a network fault). The transport's own `authProvider`
// handling is not used for the same reason: it runs above the guard, whose 401 it would never see.
import {
  auth,
  computeScopeUnion,
  extractWWWAuthenticateParams,
  type AuthOptions,
  type AuthResult,
} from "@modelcontextprotocol/client";
import { McpTaskError } from "../errors.js";
import { MAX_SCOPE_STEP_UPS, MAX_SIGN_INS, MAX_TOKEN_RENEWALS } from "../limits.js";
import { secureFetch } from "../secure-url.js";
import { AuthNet } from "./net.js";
import type { StoredProvider } from "./provider.js";

export type Authorize = (next: typeof fetch) => typeof fetch;

/** The token renewals of one connection: their time limit, and what a caller reports when the connection fails. */
export interface Renewals {
  /** Each request to the authorization server (MCP_TASK_AUTH_TIMEOUT, ./net.ts). */
  timeoutMs: number;
  /** The renewal under way or last done (settles, never rejects). */
  pending?: Promise<unknown>;
  /** The first renewal that failed for a reason of ours (a timeout, a body past its bound, a token refused). */
  failure?: McpTaskError;
}

/** How a person signs in again from inside a request, where one can: for the scope given, or the challenge's. */
export type SignInAgain = (reason: "expired" | "scope", scope?: string) => Promise<void>;

/**
 * `signInAgain`, when a person can sign in: on a 401 that no refresh cures (the grant was revoked, or the server
 * moved to another authorization server), at most MAX_SIGN_INS times per command, and on a 403 `insufficient_scope`
 * (step-up: what was granted and what the server now requires), at most MAX_SCOPE_STEP_UPS; then the request is
 * sent again, once.
 */
export function authorizedFetch(
  provider: StoredProvider,
  serverUrl: string,
  signInAgain: SignInAgain | undefined,
  renewals: Renewals,
): Authorize {
  let signIns = 0;
  let stepUps = 0;
  return (next) => async (input, init) => {
    let presented: string | undefined;
    const send = async () => {
      const headers = new Headers(init?.headers);
      const tokens = await provider.tokens();
      presented = tokens?.access_token;
      if (tokens) headers.set("Authorization", `Bearer ${tokens.access_token}`);
      return next(input, { ...init, headers });
    };
    const again = async (response: Response, sign: () => Promise<void>) => {
      await response.body?.cancel().catch(() => {});
      await sign();
      return send();
    };
    const response = await send();
    if (response.status === 403 && signInAgain && stepUps < MAX_SCOPE_STEP_UPS) {
      const { error, scope } = extractWWWAuthenticateParams(response);
      if (error !== "insufficient_scope" || !scope) return response;
      stepUps++;
      const granted = (await provider.tokens())?.scope ?? provider.clientMetadata.scope;
      return again(response, () => signInAgain("scope", computeScopeUnion(granted, scope) ?? scope));
    }
    if (response.status !== 401) return response;
    const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(response);
    let refused = response;
    // A token another command renewed meanwhile is taken without a refresh; if it is refused too (short-lived
    // tokens: it expired on the way), this one renews in turn, at most MAX_TOKEN_RENEWALS times.
    for (let turn = 0; turn < MAX_TOKEN_RENEWALS && (await provider.renewsAlone()); turn++) {
      // Through the same network as the server (the proxy the environment names, the trace), not around it; each
      // request timed and its body bounded (./net.ts).
      const net = new AuthNet(next, renewals.timeoutMs);
      let refreshed = false;
      let result: string | undefined;
      let failure: McpTaskError | undefined;
      try {
        const renewal = provider.renewed(presented, () => {
          refreshed = true;
          return quietAuth(provider, { serverUrl, resourceMetadataUrl, scope, fetchFn: net.fetch });
        });
        renewals.pending = renewal.catch(() => {});
        result = await renewal;
        // The SDK falls back on a new authorization when a refresh fails: a failure of ours says why.
        if (result !== "AUTHORIZED") failure = net.failure;
      } catch (error) {
        // The refresh was refused (the SDK forgets tokens the server calls invalid): a person signs in again, or
        // the 401 stands (exit 8, `mcp-task login`). A failure of ours (the authorization server timed out, sent
        // too much, sent a token that cannot be saved) is told as it is.
        failure = error instanceof McpTaskError ? error : net.failure;
      }
      if (failure) {
        renewals.failure ??= failure;
        await refused.body?.cancel().catch(() => {});
        throw failure;
      }
      if (result !== "AUTHORIZED") break;
      const retried = await again(refused, async () => {});
      if (retried.status !== 401) return retried;
      refused = retried;
      if (refreshed) break; // its own new token refused: no refresh cures that
    }
    if (!signInAgain || signIns >= MAX_SIGN_INS) return refused; // the guard's: exit 8
    signIns++;
    return again(refused, () => signInAgain("expired", scope));
  };
}

let quiet = 0;
const warn = console.warn;

/**
 * The SDK's `auth()` without its console warnings ("[mcp-sdk] OAuth invalid_grant — invalidating…"): they are
 * written for the application's developer, straight to stderr, with the authorization server's text in them; what
 * they report reaches the person as our own error (exit 8 and its hint) instead.
 */
export async function quietAuth(provider: StoredProvider, options: AuthOptions): Promise<AuthResult> {
  if (quiet++ === 0)
    console.warn = (...args: unknown[]) => {
      if (!(typeof args[0] === "string" && args[0].startsWith("[mcp-sdk]"))) warn(...args);
    };
  try {
    // Every request of a sign-in, a refresh and the client-credentials grant (discovery, registration, token) goes
    // only to an address that keeps the rule (src/secure-url.ts): a secret is never sent in clear, nor anywhere else.
    return await auth(provider, {
      ...options,
      fetchFn: secureFetch(options.fetchFn ?? fetch, "the authorization server at"),
    });
  } finally {
    if (--quiet === 0) console.warn = warn;
  }
}
