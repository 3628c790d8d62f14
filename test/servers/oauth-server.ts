// An OAuth-protected MCP server for the sign-in tests: the official SDK's (v1 line) authorization server router
// (metadata, dynamic registration, /authorize that approves at once, /token with PKCE, /revoke) and its bearer
// middleware, in front of our sdk-v1-server (a V1 tasks server, run as a child over HTTP and proxied to).
// The SDK's example provider (demoInMemoryOAuthProvider) is extended with what the tests need and it lacks: refresh
// tokens, revocation, and a 401 (not a 500) for a token it does not know.
//
//   node oauth-server.js        prints `listening <url>` (the MCP endpoint, http://localhost:<port>/mcp)
//   POST /test/expire           every access token stops working (as if expired); refresh tokens still work
//   POST /test/revoke           every access and refresh token stops working
//   POST /test/slow-token       the token endpoint answers after a second from now on
//   POST /test/step-up          from now on a tools/call whose token lacks scope "tasks:write" gets a 403
//                               insufficient_scope asking for it (step-up); POST /test/step-up-off ends that
//   POST /test/ttl?ms=N        access tokens issued from now on expire after N ms (refresh tokens are one-use:
//                               each refresh rotates it, and a spent one is invalid_grant)
//   GET /test/stats            {"spentRefreshTokensPresented": n}: refreshes that presented a spent refresh token
//   POST /test/hostile?mode=M  the authorization server misbehaves (test/servers/oauth-hostile.ts)
//   POST /test/cimd             from now on the metadata says client_id_metadata_document_supported, and a client id
//                               that is an https URL is taken as that document's (loopback redirects; not fetched)
//   POST /test/metadata         (a JSON object) from now on merged into the authorization server's metadata: a
//                               hostile server naming file:, x-custom:, javascript: or remote plain-http endpoints
//   POST /test/resource-metadata  (a JSON object) the same for the protected resource's metadata (RFC 9728)
//   GET  /test/seen             every request received but these, as `METHOD host/path` (the Host header: names
//                               that a test's proxy brings here, such as as.remote.test, show as such)
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { request, type IncomingMessage, type ServerResponse } from "node:http";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { hostileAuth } from "./oauth-hostile.js";
// @ts-expect-error express (under the SDK v1 devDependency) ships no types, and @types/express is not a dependency
import express from "express";
import { DemoInMemoryAuthProvider } from "@modelcontextprotocol/sdk/examples/server/demoInMemoryOAuthProvider.js";
import { mcpAuthRouter, getOAuthProtectedResourceMetadataUrl } from "@modelcontextprotocol/sdk/server/auth/router.js";
import { requireBearerAuth } from "@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js";
import { InvalidGrantError, InvalidTokenError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import type { OAuthClientInformationFull, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";

interface Grant {
  clientId: string;
  scopes: string[];
  resource?: URL;
}

/** POST /test/ttl: how long an access token works. */
let accessTtlMs = 3_600_000;
/** POST /test/cimd: client ID metadata documents are supported (SEP-991). */
let cimd = false;
/** The loopback redirect of the authorization request being handled (the demo provider matches them exactly). */
let loopbackRedirect: string | undefined;

class Provider extends DemoInMemoryAuthProvider {
  readonly access = new Map<string, Grant & { expiresAt: number }>();
  readonly refresh = new Map<string, Grant>();
  /** Refresh tokens used once (rotated), and how often one was presented again (GET /test/stats). */
  readonly spent = new Set<string>();
  spentPresented = 0;

  constructor() {
    super();
    // A URL client id stands for its metadata document: a public client of loopback redirects (what a real
    // authorization server would read from the document, which this one does not fetch).
    const getClient = this.clientsStore.getClient.bind(this.clientsStore);
    this.clientsStore.getClient = async (clientId: string) =>
      cimd && clientId.startsWith("https://")
        ? {
            client_id: clientId,
            redirect_uris: loopbackRedirect ? [loopbackRedirect] : [],
            token_endpoint_auth_method: "none",
          }
        : getClient(clientId);
  }

  private issue(grant: Grant): OAuthTokens {
    const token = randomUUID();
    const refreshToken = randomUUID();
    this.access.set(token, { ...grant, expiresAt: Date.now() + accessTtlMs });
    this.refresh.set(refreshToken, grant);
    const expiresIn = Math.max(1, Math.round(accessTtlMs / 1000));
    return { access_token: token, token_type: "bearer", expires_in: expiresIn, refresh_token: refreshToken };
  }

  override async exchangeAuthorizationCode(
    client: OAuthClientInformationFull,
    code: string,
    verifier?: string,
    _redirectUri?: string,
    resource?: URL,
  ): Promise<OAuthTokens> {
    const tokens = await super.exchangeAuthorizationCode(client, code, verifier);
    const grant = { clientId: client.client_id, scopes: (tokens.scope ?? "").split(" ").filter(Boolean), resource };
    return { ...this.issue(grant), ...(tokens.scope ? { scope: tokens.scope } : {}) };
  }

  override async exchangeRefreshToken(client: OAuthClientInformationFull, refreshToken: string): Promise<OAuthTokens> {
    const grant = this.refresh.get(refreshToken);
    if (this.spent.has(refreshToken)) this.spentPresented++;
    if (!grant || grant.clientId !== client.client_id) throw new InvalidGrantError("unknown refresh token");
    this.refresh.delete(refreshToken);
    this.spent.add(refreshToken);
    return this.issue(grant);
  }

  override async verifyAccessToken(token: string): Promise<AuthInfo> {
    const grant = this.access.get(token);
    if (!grant || grant.expiresAt < Date.now()) throw new InvalidTokenError("invalid or expired token");
    return {
      token,
      clientId: grant.clientId,
      scopes: grant.scopes,
      // Whole seconds, rounded up: the bearer check compares them with now, and its own check above is the exact one
      // (rounded down, a token of a short life would be refused up to a second early).
      expiresAt: Math.ceil(grant.expiresAt / 1000),
      resource: grant.resource,
    };
  }

  async revokeToken(_client: OAuthClientInformationFull, { token }: { token: string }): Promise<void> {
    this.access.delete(token);
    this.refresh.delete(token);
  }
}

// The V1 tasks server behind the proxy.
const child = spawn(process.execPath, [join(import.meta.dirname, "sdk-v1-server.js"), "--port", "0"], {
  stdio: ["ignore", "pipe", "inherit"],
});
const upstream = await new Promise<URL>((resolve) =>
  createInterface({ input: child.stdout! }).on("line", (line) => {
    const match = /^listening (\S+)/.exec(line);
    if (match) resolve(new URL(match[1]!));
  }),
);
for (const signal of ["SIGTERM", "SIGINT"] as const) process.on(signal, () => (child.kill("SIGKILL"), process.exit(0)));
process.on("exit", () => child.kill("SIGKILL"));

const app = express();
const http = app.listen(0, "127.0.0.1");
await new Promise((resolve) => http.once("listening", resolve));
const port = (http.address() as { port: number }).port;
const base = new URL(`http://localhost:${port}`);
const mcpUrl = new URL("/mcp", base);
const provider = new Provider();

// Every request but the test's own, as it arrived (a proxy playing remote hosts forwards them here).
const seen: string[] = [];
app.use((req: IncomingMessage, _res: ServerResponse, next: () => void) => {
  if (!req.url?.startsWith("/test/")) seen.push(`${req.method} ${req.headers.host}${req.url?.split("?")[0]}`);
  next();
});
app.get("/test/seen", (_req: IncomingMessage, res: any) => res.json(seen));
let metadata: Record<string, unknown> = {};
let resourceMetadata: Record<string, unknown> = {};
app.post("/test/metadata", express.json(), (req: { body: Record<string, unknown> }, res: ServerResponse) => {
  metadata = req.body;
  res.writeHead(204).end();
});
app.post("/test/resource-metadata", express.json(), (req: { body: Record<string, unknown> }, res: ServerResponse) => {
  resourceMetadata = req.body;
  res.writeHead(204).end();
});
app.use("/.well-known/oauth-protected-resource", (_req: IncomingMessage, res: any, next: () => void) => {
  const json = res.json.bind(res);
  res.json = (body: Record<string, unknown>) => json({ ...body, ...resourceMetadata });
  next();
});

// The token endpoint answers after a second once told to (POST /test/slow-token): concurrent refreshes overlap.
let slowToken = false;
app.use((req: IncomingMessage, _res: ServerResponse, next: () => void) =>
  slowToken && req.url?.startsWith("/token") ? setTimeout(next, 1000) : next(),
);
app.post("/test/slow-token", (_req: IncomingMessage, res: ServerResponse) => {
  slowToken = true;
  res.writeHead(204).end();
});
app.post("/test/ttl", (req: IncomingMessage, res: ServerResponse) => {
  accessTtlMs = Number(new URL(req.url ?? "", base).searchParams.get("ms"));
  res.writeHead(204).end();
});
app.get("/test/stats", (_req: IncomingMessage, res: ServerResponse) => {
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify({ spentRefreshTokensPresented: provider.spentPresented }));
});
hostileAuth(app);
app.post("/test/cimd", (_req: IncomingMessage, res: ServerResponse) => {
  cimd = true;
  res.writeHead(204).end();
});
app.use("/authorize", (req: IncomingMessage, _res: ServerResponse, next: () => void) => {
  const redirect = new URL(req.url ?? "", base).searchParams.get("redirect_uri");
  loopbackRedirect = redirect && /^http:\/\/127\.0\.0\.1:\d+\/callback$/.test(redirect) ? redirect : undefined;
  next();
});
app.use("/.well-known/oauth-authorization-server", (_req: IncomingMessage, res: any, next: () => void) => {
  const json = res.json.bind(res);
  res.json = (body: Record<string, unknown>) =>
    json({ ...body, ...(cimd ? { client_id_metadata_document_supported: true } : {}), ...metadata });
  next();
});
app.use(mcpAuthRouter({ provider, issuerUrl: base, resourceServerUrl: mcpUrl, scopesSupported: ["mcp"] }));
app.post("/test/expire", (_req: IncomingMessage, res: ServerResponse) => {
  for (const grant of provider.access.values()) grant.expiresAt = 0;
  res.writeHead(204).end();
});
app.post("/test/revoke", (_req: IncomingMessage, res: ServerResponse) => {
  provider.access.clear();
  provider.refresh.clear();
  res.writeHead(204).end();
});
let stepUp = false;
app.post("/test/step-up", (_req: IncomingMessage, res: ServerResponse) => {
  stepUp = true;
  res.writeHead(204).end();
});
app.post("/test/step-up-off", (_req: IncomingMessage, res: ServerResponse) => {
  stepUp = false;
  res.writeHead(204).end();
});
const STEP_UP_SCOPE = "tasks:write";
app.all(
  "/mcp",
  requireBearerAuth({ verifier: provider, resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(mcpUrl) }),
  (req: IncomingMessage & { auth?: AuthInfo }, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      if (stepUp && !req.auth?.scopes.includes(STEP_UP_SCOPE) && /"method"\s*:\s*"tools\/call"/.test(body.toString())) {
        const challenge = `Bearer error="insufficient_scope", scope="mcp ${STEP_UP_SCOPE}", resource_metadata="${getOAuthProtectedResourceMetadataUrl(mcpUrl)}"`;
        res.writeHead(403, { "WWW-Authenticate": challenge, "Content-Type": "application/json" });
        res.end('{"error":"insufficient_scope"}');
        return;
      }
      const headers = { ...req.headers, host: upstream.host };
      delete headers.authorization;
      const out = request(new URL(upstream.pathname, upstream), { method: req.method, headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        res.flushHeaders(); // at once, as the upstream sent them: an SSE stream's first event may be long in coming
        answer.pipe(res);
      });
      out.on("error", () => res.headersSent || res.writeHead(502).end());
      // The client gone (a GET stream it closed): so is the upstream request. Left open, the session's GET stream
      // stayed taken upstream, and the next GET of that session (the keeper's, after its command closed) met 409.
      res.on("close", () => res.writableFinished || out.destroy());
      out.end(body);
    });
  },
);
process.stdout.write(`listening ${mcpUrl.href}\n`);
