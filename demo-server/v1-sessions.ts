// The V1 face's HTTP sessions (Mcp-Session-Id): one 2025-era server per session, opened by an initialize. Sessions
// are kept in the store too: a restarted server revives a session it issued when a client comes back with its id
// (a synthetic initialize with the saved parameters), so a client that reattaches to its tasks after a restart
// finds them. The request handlers: v1-face.ts.

import { randomUUID } from "node:crypto";
import { WebStandardStreamableHTTPServerTransport, type Server } from "@modelcontextprotocol/server";
import type { JsonObject } from "./task.js";
import { shortId } from "./task.js";
import { LEGACY_VERSIONS, MAX_TTL_MS, type V1Face, type V1Setup } from "./v1-face.js";
import { isObject } from "./shapes.js";

interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  server: Server;
}

function jsonError(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status });
}

const isInitialize = (body: unknown): body is { params: JsonObject } =>
  isObject(body) && body.method === "initialize" && isObject(body.params);

export class V1Sessions {
  private readonly sessions = new Map<string, Session>();
  private readonly reviving = new Map<string, Promise<Session | undefined>>();

  constructor(
    private readonly face: V1Face,
    private readonly setup: V1Setup,
    private readonly onerror: (error: Error) => void,
  ) {
    setup.store.pruneSessions(MAX_TTL_MS * 2);
  }

  /** One HTTP request: to its session (revived if need be), an initialize opening one, or 400/404. */
  async handle(request: Request, parsed: unknown): Promise<Response> {
    const sessionId = request.headers.get("mcp-session-id");
    if (sessionId) {
      const session = this.sessions.get(sessionId) ?? (await this.revive(sessionId));
      if (!session) return jsonError(404, -32001, "Session not found");
      return session.transport.handleRequest(request, parsed !== undefined ? { parsedBody: parsed } : undefined);
    }
    if (request.method === "POST" && isInitialize(parsed)) {
      const session = await this.open(randomUUID(), parsed.params);
      return session.transport.handleRequest(request, { parsedBody: parsed });
    }
    // What a 2025-era server answers to anything else without a session (a 2026-07-28 server/discover probe
    // included): the client then falls back to initialize.
    return jsonError(400, -32000, "Bad Request: Mcp-Session-Id header is required");
  }

  async close(): Promise<void> {
    for (const session of this.sessions.values()) await session.server.close().catch(() => {});
    this.sessions.clear();
  }

  private async open(sessionId: string, initialize: JsonObject): Promise<Session> {
    const server = this.face.createServer(sessionId);
    server.onerror = this.onerror;
    const session: Session = {
      server,
      transport: new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => sessionId,
        onsessioninitialized: (id) => {
          this.sessions.set(id, session);
          this.setup.store.saveSession(id, { initialize, savedAt: new Date().toISOString() });
        },
        onsessionclosed: (id) => {
          this.sessions.delete(id);
          this.setup.store.removeSession(id);
        },
      }),
    };
    await server.connect(session.transport);
    return session;
  }

  /** A session this server issued before a restart: replay its initialize (the client is not asked again). */
  private revive(sessionId: string): Promise<Session | undefined> {
    let pending = this.reviving.get(sessionId);
    if (!pending) {
      pending = this.replay(sessionId).finally(() => this.reviving.delete(sessionId));
      this.reviving.set(sessionId, pending);
    }
    return pending;
  }

  private async replay(sessionId: string): Promise<Session | undefined> {
    const saved = this.setup.store.loadSession(sessionId);
    if (!saved || !isObject(saved.initialize)) return undefined;
    const session = await this.open(sessionId, saved.initialize);
    const post = (body: JsonObject, headers: Record<string, string> = {}) =>
      session.transport
        .handleRequest(
          new Request("http://127.0.0.1/mcp", {
            method: "POST",
            headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
            body: JSON.stringify(body),
          }),
        )
        .then((response) => response.text());
    await post({ jsonrpc: "2.0", id: "revive", method: "initialize", params: saved.initialize });
    const version = session.server.getNegotiatedProtocolVersion() ?? LEGACY_VERSIONS[0];
    await post(
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { "mcp-session-id": sessionId, "mcp-protocol-version": version },
    );
    this.setup.log(`session ${shortId(sessionId)} revived from the store`);
    return session;
  }
}
