// The hostile side of test/servers/oauth-server.ts: an authorization server that misbehaves on demand, for the
// sign-in's bounds. `POST /test/hostile?mode=<mode>` turns one mode on (no mode: all off):
//
//   token-hang       the token endpoint never answers
//   token-bomb       the token endpoint answers a gzip bomb (256 MiB of JSON whitespace, ~256 KiB on the wire)
//   metadata-bomb    the authorization server metadata is that gzip bomb
//   metadata-extra   the metadata carries 600 KB of fields nobody defined (under the body bound, past the record's)
//   token-huge       the token endpoint answers an access token of 300,000 characters
//   token-control    the token endpoint answers an access token holding ESC and CR LF
//   token-malformed  the token endpoint answers {"access_token": 5}
//   client-huge      registration answers a client id of 300,000 characters
//   as-invalid-url   the protected resource metadata names an authorization server that is not a URL
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createGzip } from "node:zlib";

type Next = () => void;
interface App {
  use(
    path: string,
    handler: (req: IncomingMessage, res: ServerResponse & { json?: unknown }, next: Next) => void,
  ): void;
  use(handler: (req: IncomingMessage, res: ServerResponse, next: Next) => void): void;
  post(path: string, handler: (req: IncomingMessage, res: ServerResponse) => void): void;
}

const BOMB_BYTES = 256 * 1024 * 1024;

/** Streams a gzip body that decompresses to BOMB_BYTES of spaces (compressed as the reader reads; stops if it leaves). */
function bomb(res: ServerResponse): void {
  res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
  const gzip = createGzip({ level: 9 });
  gzip.pipe(res);
  const chunk = Buffer.alloc(1024 * 1024, 0x20);
  let sent = 0;
  let gone = false;
  res.on("close", () => ((gone = true), gzip.destroy()));
  const more = () => {
    while (!gone && sent < BOMB_BYTES) {
      sent += chunk.length;
      if (!gzip.write(chunk)) return void gzip.once("drain", more);
    }
    if (!gone) gzip.end();
  };
  more();
}

function json(res: ServerResponse, body: unknown): void {
  res.writeHead(200, { "content-type": "application/json", "cache-control": "no-store" });
  res.end(JSON.stringify(body));
}

export function hostileAuth(app: App): void {
  let mode = "";
  app.post("/test/hostile", (req, res) => {
    mode = new URL(req.url ?? "", "http://x").searchParams.get("mode") ?? "";
    res.writeHead(204).end();
  });
  app.use((req, res, next) => {
    const path = (req.url ?? "").split("?")[0];
    if (path === "/token" && req.method === "POST") {
      if (mode === "token-hang") return void req.resume(); // read, never answered
      if (mode === "token-bomb") return bomb(res);
      const token = (access_token: unknown) => ({
        access_token,
        token_type: "bearer",
        expires_in: 3600,
        refresh_token: randomUUID(),
      });
      if (mode === "token-huge") return json(res, token("a".repeat(300_000)));
      if (mode === "token-control") return json(res, token(`abc\u001b[31mdef\r\nX-Injected: 1`));
      if (mode === "token-malformed") return json(res, { access_token: 5, token_type: "bearer" });
    }
    if (path === "/register" && req.method === "POST" && mode === "client-huge") {
      req.resume();
      return json(res, { client_id: "c".repeat(300_000), redirect_uris: ["http://127.0.0.1/callback"] });
    }
    if (path === "/.well-known/oauth-authorization-server" && mode === "metadata-bomb") return bomb(res);
    if (path.startsWith("/.well-known/oauth-protected-resource") && mode === "as-invalid-url")
      return json(res, { resource: "http://localhost/mcp", authorization_servers: ["http://[::1"] });
    if (path === "/.well-known/oauth-authorization-server" && mode === "metadata-extra") {
      const holder = res as unknown as { json: (body: Record<string, unknown>) => void };
      const send = holder.json.bind(res);
      const extra: Record<string, string> = {};
      for (let i = 0; i < 600; i++) extra[`x_unknown_${i}`] = "y".repeat(1000);
      holder.json = (body) => send({ ...body, ...extra });
    }
    next();
  });
}
