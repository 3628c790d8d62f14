// The fetch under the HTTP transport's guard (src/protocol/limits.ts) that presents a server's saved token and,
// on a 401, tries once to get a new one without a person (refresh, or the client-credentials grant).
//
// Hand-written over the SDK's withOAuth middleware, which does the same but throws UnauthorizedError: here a 401
// that cannot be cured is handed back as the response, so that the guard, the one place that classifies HTTP
// statuses, turns it into AuthRequiredError (exit 8, never a network fault). The transport's own `authProvider`
// handling is not used for the same reason: it runs above the guard, whose 401 it would never see.
import { auth, extractWWWAuthenticateParams, type AuthOptions, type AuthResult } from "@modelcontextprotocol/client";
import type { StoredProvider } from "./provider.js";

export type Authorize = (next: typeof fetch) => typeof fetch;

export function authorizedFetch(provider: StoredProvider, serverUrl: string): Authorize {
  return (next) => async (input, init) => {
    const send = async () => {
      const headers = new Headers(init?.headers);
      const tokens = await provider.tokens();
      if (tokens) headers.set("Authorization", `Bearer ${tokens.access_token}`);
      return next(input, { ...init, headers });
    };
    const response = await send();
    if (response.status !== 401) return response;
    const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(response);
    let result: string;
    try {
      result = await quietAuth(provider, { serverUrl, resourceMetadataUrl, scope, fetchFn: fetch });
    } catch {
      // The refresh was refused (the SDK forgets tokens the server calls invalid) or the authorization server is not
      // reachable: the 401 stands (exit 8, `mcp-task login`).
      return response;
    }
    if (result !== "AUTHORIZED") return response;
    await response.body?.cancel().catch(() => {});
    return send(); // once: a second 401 is the guard's to report
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
    return await auth(provider, options);
  } finally {
    if (--quiet === 0) console.warn = warn;
  }
}
