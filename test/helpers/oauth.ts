// The OAuth test server (test/servers/oauth-server.ts, with its hostile modes) for a test file: started before the
// file's tests, stopped after, its modes reset after each test; `control` posts to its /test/ endpoints.
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, expect } from "vitest";
import { ROOT, startListening, type RunningServer } from "./servers.js";

export const OAUTH_SERVER = join(ROOT, "dist/test-servers/oauth-server.js");
/** A $BROWSER that approves the authorization page at once (test/servers/approve-browser.mjs). */
export const APPROVE_BROWSER = `${process.execPath} ${join(ROOT, "test/servers/approve-browser.mjs")}`;

export interface OAuthServer {
  /** The server's address (its MCP endpoint and its authorization server alike). */
  readonly url: string;
  /** POSTs to one of its /test/ endpoints (`/test/hostile?mode=…`, `/test/ttl?ms=…`), expecting 204. */
  control(path: string): Promise<void>;
}

/** Starts the server for this file; `reset` are the control paths posted after each test (default: no hostile mode). */
export function useOAuthServer(reset: string[] = ["/test/hostile"]): OAuthServer {
  let server: RunningServer | undefined;
  const oauth: OAuthServer = {
    get url() {
      if (!server) throw new Error("the OAuth test server is not started (useOAuthServer's beforeAll has not run)");
      return server.url;
    },
    control: (path) =>
      fetch(new URL(path, oauth.url), { method: "POST" }).then((r) => {
        expect(r.status).toBe(204);
      }),
  };
  beforeAll(async () => {
    server = await startListening([OAUTH_SERVER], "oauth server");
  });
  afterAll(async () => {
    await server?.stop();
  });
  afterEach(async () => {
    for (const path of reset) await oauth.control(path);
  });
  return oauth;
}
