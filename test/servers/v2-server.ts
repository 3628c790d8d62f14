// mcp-task's V2 test server: MCP 2026-07-28 (no initialize, per-request _meta envelope) with the
// "io.modelcontextprotocol/tasks" extension, built on @modelcontextprotocol/server 2.4.
//
//   node dist/test-servers/v2-server.js --stdio
//   node dist/test-servers/v2-server.js --port 0 [--poll-interval 200] [--ttl 300000] [--store DIR]
//
// In HTTP mode the only stdout output is one line, `listening http://127.0.0.1:PORT/mcp`, once ready.
// Everything else (one line per request: `[v2-server] rpc <method> count=<n>`, task transitions)
// goes to stderr. See v2/tools.ts for the tools and v2/listen.ts for task subscriptions.

import { randomBytes } from "node:crypto";
import { ListenHub } from "./v2/listen.js";
import { SERVER_INFO, createServerFactory } from "./v2/mcp.js";
import { USAGE, parseOptions } from "./v2/options.js";
import type { ServerOptions } from "./v2/options.js";
import { TaskRuntime } from "./v2/runtime.js";
import { log, setRequestLogging } from "./v2/stats.js";
import { TaskFileStore } from "./v2/store.js";
import { makeStateCodec, taskPrograms } from "./v2/tools.js";
import { startHttp } from "./v2/http.js";
import { startStdio } from "./v2/stdio.js";

async function main(): Promise<void> {
  let opts: ServerOptions;
  try {
    opts = parseOptions(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`v2-server: ${(error as Error).message}\n${USAGE}`);
    process.exit(2);
  }
  setRequestLogging(opts.logRequests);

  const store = opts.storeDir ? new TaskFileStore(opts.storeDir) : undefined;
  const runtime = new TaskRuntime({
    pollIntervalMs: opts.pollIntervalMs,
    ttlMs: opts.ttlMs,
    store,
    programs: taskPrograms(),
  });
  // requestState is HMAC-protected; with --store the key survives a restart (so does a pending round).
  const stateCodec = makeStateCodec(store?.secret("request-state-key", () => randomBytes(32).toString("hex")));
  const hub = new ListenHub(runtime, SERVER_INFO);
  const factory = createServerFactory(runtime, stateCodec);

  let shuttingDown = false;
  const shutdown = async (code: number, close?: () => Promise<void>) => {
    if (shuttingDown) return;
    shuttingDown = true;
    try {
      await close?.();
    } catch {
      /* ignore */
    }
    runtime.close();
    process.exit(code);
  };

  if (opts.mode === "http") {
    const front = await startHttp(opts.port, factory, hub);
    log(`serving MCP 2026-07-28 + ${"io.modelcontextprotocol/tasks"} at ${front.url} (poll ${opts.pollIntervalMs} ms, ttl ${opts.ttlMs} ms${store ? `, store ${store.dir}` : ""})`);
    process.stdout.write(`listening ${front.url}\n`);
    for (const sig of ["SIGINT", "SIGTERM"] as const) process.on(sig, () => void shutdown(0, front.close));
  } else {
    const handle = startStdio(factory, hub, () => void shutdown(0));
    log(`serving MCP 2026-07-28 + io.modelcontextprotocol/tasks on stdio (poll ${opts.pollIntervalMs} ms, ttl ${opts.ttlMs} ms${store ? `, store ${store.dir}` : ""})`);
    for (const sig of ["SIGINT", "SIGTERM"] as const) process.on(sig, () => void shutdown(0, () => handle.close()));
  }
}

main().catch((error) => {
  process.stderr.write(`v2-server: fatal: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
