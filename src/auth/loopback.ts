// The loopback redirect listener (RFC 8252 §7.3): 127.0.0.1 on a port the system picks, one path, the `state` the
// sign-in sent checked before anything else is read. Hand-written over node:http: the SDK leaves the redirect to
// the application, and a listener is a few lines.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { AuthRequiredError, InterruptedError } from "../errors.js";
import { sanitizeLine } from "../sanitize.js";

const PAGE = (text: string) =>
  `<!doctype html><meta charset="utf-8"><title>mcp-task</title><body style="font-family:sans-serif;margin:3em"><p>${text}</p></body>`;

export interface Loopback {
  redirectUrl: string;
  /** The callback's query (code, iss...), once the browser brings the right state; rejects on `error` or the bound. */
  callback(waitMs: number, signal?: AbortSignal): Promise<URLSearchParams>;
  close(): Promise<void>;
}

export async function listen(state: string): Promise<Loopback> {
  let settle: { resolve(p: URLSearchParams): void; reject(e: Error): void } | undefined;
  let early: { params?: URLSearchParams; error?: Error } | undefined;
  const done = (outcome: { params?: URLSearchParams; error?: Error }) => {
    if (!settle) return void (early ??= outcome);
    if (outcome.error) settle.reject(outcome.error);
    else settle.resolve(outcome.params!);
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const reply = (status: number, text: string) => {
      res.writeHead(status, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
      res.end(PAGE(text));
    };
    if (url.pathname !== "/callback") return reply(404, "Not found.");
    // A request without the state this sign-in sent is not its answer (another page, or a forged redirect): refused,
    // and the listener goes on waiting for the real one.
    if (url.searchParams.get("state") !== state) return reply(400, "This sign-in link is not the one mcp-task sent.");
    const error = url.searchParams.get("error");
    if (error) {
      reply(200, "Sign-in was refused. You can close this tab.");
      const description = url.searchParams.get("error_description");
      return done({
        error: new AuthRequiredError(
          `sign-in refused by the authorization server: ${sanitizeLine(error).slice(0, 100)}${description ? ` (${sanitizeLine(description).slice(0, 300)})` : ""}`,
        ),
      });
    }
    if (!url.searchParams.get("code")) return reply(400, "The sign-in answer has no code.");
    reply(200, "Signed in to mcp-task. You can close this tab.");
    done({ params: url.searchParams });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    redirectUrl: `http://127.0.0.1:${port}/callback`,
    callback: (waitMs, signal) =>
      new Promise<URLSearchParams>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new AuthRequiredError(`no sign-in within ${Math.round(waitMs / 1000)} s`)),
          waitMs,
        );
        const onAbort = () => reject(signal?.reason ?? new InterruptedError("interrupted"));
        signal?.addEventListener("abort", onAbort, { once: true });
        const clear = () => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", onAbort);
        };
        settle = {
          resolve: (p) => (clear(), resolve(p)),
          reject: (e) => (clear(), reject(e)),
        };
        if (early) done(early);
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
