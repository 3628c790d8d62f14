// The HTTP front of the demo server: node:http on 127.0.0.1 only, one endpoint (/mcp), bridged to the
// web-standard Request/Response face of the SDK's handlers. Host and Origin headers are checked (DNS rebinding).

import { createServer } from "node:http";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  hostHeaderValidationResponse,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  originValidationResponse,
} from "@modelcontextprotocol/server";

const MAX_BODY = 4 * 1024 * 1024;

/** Answers one HTTP request; `parsedBody` is the POST body as JSON (undefined when absent or not JSON). */
export type HttpHandler = (request: Request, parsedBody: unknown) => Promise<Response>;

export interface HttpFront {
  url: string;
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) {
        reject(new Error("body too large"));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

async function writeResponse(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, key) => {
    headers[key] = value;
  });
  res.writeHead(response.status, headers);
  if (!response.body) {
    res.end();
    return;
  }
  res.flushHeaders();
  const reader = response.body.getReader();
  res.on("close", () => {
    reader.cancel().catch(() => {});
  });
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      if (value) res.write(value);
    }
  } catch {
    /* the stream was cancelled */
  }
  res.end();
}

export async function startHttpFront(
  port: number,
  host: "127.0.0.1",
  handle: HttpHandler,
  log: (line: string) => void,
): Promise<HttpFront> {
  const server = createServer((req, res) => {
    void (async () => {
      try {
        const url = new URL(req.url ?? "/", `http://${req.headers.host ?? host}`);
        if (url.pathname !== "/mcp") {
          res.writeHead(404, { "Content-Type": "text/plain" }).end("not found: the MCP endpoint is /mcp\n");
          return;
        }
        const body = req.method === "POST" ? await readBody(req) : undefined;
        let parsed: unknown;
        if (body && body.length > 0) {
          try {
            parsed = JSON.parse(body.toString("utf8"));
          } catch {
            parsed = undefined;
          }
        }
        const abort = new AbortController();
        res.on("close", () => abort.abort());
        const headers = new Headers();
        for (const [key, value] of Object.entries(req.headers)) {
          if (Array.isArray(value)) for (const v of value) headers.append(key, v);
          else if (value !== undefined) headers.set(key, value);
        }
        const request = new Request(url, {
          method: req.method,
          headers,
          body: body && body.length > 0 ? new Uint8Array(body) : undefined,
          signal: abort.signal,
        });
        const refused =
          hostHeaderValidationResponse(request, localhostAllowedHostnames()) ??
          originValidationResponse(request, localhostAllowedOrigins());
        await writeResponse(res, refused ?? (await handle(request, parsed)));
      } catch (error) {
        log(`http: ${(error as Error).message}`);
        if (!res.headersSent) res.writeHead(500, { "Content-Type": "text/plain" });
        res.end();
      }
    })();
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${host}:${address.port}/mcp`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A started generation front (v1.ts / v2.ts). */
export interface RunningFront {
  /** The HTTP endpoint; undefined on stdio. */
  url?: string;
  /** Resolves when the peer has gone (stdio: stdin closed) or after close(). */
  closed: Promise<void>;
  close(): Promise<void>;
}
