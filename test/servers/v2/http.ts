// Streamable HTTP front: node:http on 127.0.0.1 only, path /mcp, in front of the SDK's
// createMcpHandler (web-standard fetch face). Counts every inbound JSON-RPC message and serves
// task subscriptions (see listen.ts) before the SDK sees them.

import { createServer } from "node:http";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  createMcpHandler,
  hostHeaderValidationResponse,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  originValidationResponse,
} from "@modelcontextprotocol/server";
import type { Server } from "@modelcontextprotocol/server";
import type { ListenHub } from "./listen.js";
import { countBody, log } from "./stats.js";

const MAX_BODY = 4 * 1024 * 1024;

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
    /* stream cancelled */
  }
  res.end();
}

function sseResponse(hub: ListenHub, message: Parameters<ListenHub["open"]>[0], signal: AbortSignal): Response {
  const encoder = new TextEncoder();
  let closed = false;
  let keepAlive: NodeJS.Timeout | undefined;
  let sub: ReturnType<ListenHub["open"]> | undefined;
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      const write = (frame: string) => {
        if (closed) return;
        try {
          controller.enqueue(encoder.encode(frame));
        } catch {
          /* closed */
        }
      };
      const end = () => {
        if (closed) return;
        closed = true;
        if (keepAlive) clearInterval(keepAlive);
        if (sub) hub.close(sub);
        try {
          controller.close();
        } catch {
          /* already closed */
        }
      };
      sub = hub.open(message, (m) => write(`event: message\ndata: ${JSON.stringify(m)}\n\n`), end);
      if (!closed) {
        keepAlive = setInterval(() => write(": keepalive\n\n"), 15_000);
        keepAlive.unref();
        signal.addEventListener("abort", end, { once: true });
      }
    },
    cancel() {
      closed = true;
      if (keepAlive) clearInterval(keepAlive);
      if (sub) hub.close(sub);
    },
  });
  return new Response(stream, {
    status: 200,
    headers: { "Content-Type": "text/event-stream", "Cache-Control": "no-cache, no-transform", Connection: "keep-alive" },
  });
}

export interface HttpFront {
  url: string;
  close(): Promise<void>;
}

export async function startHttp(port: number, factory: () => Server, hub: ListenHub): Promise<HttpFront> {
  const handler = createMcpHandler(factory, {
    legacy: "reject",
    onerror: (error) => log(`sdk: ${error.message}`),
  });

  const server = createServer((req, res) => {
    void (async () => {
      try {
        const host = req.headers.host ?? "127.0.0.1";
        const url = new URL(req.url ?? "/", `http://${host}`);
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
        countBody(parsed);

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

        let response =
          hostHeaderValidationResponse(request, localhostAllowedHostnames()) ??
          originValidationResponse(request, localhostAllowedOrigins());
        if (
          !response &&
          req.method === "POST" &&
          hub.wants(parsed) &&
          headers.get("mcp-protocol-version")?.trim() === "2026-07-28" &&
          headers.get("mcp-method")?.trim() === "subscriptions/listen"
        ) {
          response = sseResponse(hub, parsed, abort.signal);
        }
        response ??= await handler.fetch(request, parsed !== undefined ? { parsedBody: parsed } : undefined);
        await writeResponse(res, response);
      } catch (error) {
        log(`http: ${(error as Error).message}`);
        if (!res.headersSent) res.writeHead(500, { "Content-Type": "text/plain" });
        res.end();
      }
    })();
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}/mcp`,
    close: async () => {
      hub.closeAll();
      await new Promise((resolve) => setTimeout(resolve, 50)); // let the final listen frames flush
      await handler.close();
      server.closeAllConnections?.();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
