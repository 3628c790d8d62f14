// mcp-task's V2 test server: MCP 2026-07-28 (no initialize, per-request _meta envelope) with the
// "io.modelcontextprotocol/tasks" extension. The machinery (task runtime, store, V2 wire, HTTP front,
// task subscriptions) is the demo server's (demo-server/); this server adds its own tools (v2/tools.ts),
// request counting (v2/stats.ts) and command line (v2/options.ts).
//
//   node dist/test-servers/v2-server.js --stdio
//   node dist/test-servers/v2-server.js --port 0 [--poll-interval 200] [--ttl 300000] [--store DIR]
//
// In HTTP mode the only stdout output is one line, `listening http://127.0.0.1:PORT/mcp`, once ready.
// Everything else (one line per request: `[v2-server] rpc <method> count=<n>`, task transitions)
// goes to stderr.

import { existsSync } from "node:fs";
import { catalogue } from "../../demo-server/tools/tool.js";
import { DemoStore } from "../../demo-server/store.js";
import { TaskRuntime } from "../../demo-server/runtime.js";
import { startV2 } from "../../demo-server/v2.js";
import type { RunningFront } from "../../demo-server/http.js";
import { USAGE, parseOptions } from "./v2/options.js";
import type { ServerOptions } from "./v2/options.js";
import { countMessage, log, setRequestLogging } from "./v2/stats.js";
import { testTools } from "./v2/tools.js";

const SERVER_INFO = { name: "mcp-task-v2-test-server", version: "0.1.0" };
const INSTRUCTIONS = "Test server for mcp-task: MCP 2026-07-28 with the io.modelcontextprotocol/tasks extension.";

async function main(): Promise<void> {
  let opts: ServerOptions;
  try {
    opts = parseOptions(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`v2-server: ${(error as Error).message}\n${USAGE}`);
    process.exit(2);
  }
  setRequestLogging(opts.logRequests);

  // With --store, tasks and the requestState HMAC key survive a restart (so does a pending round).
  const store = opts.storeDir ? new DemoStore(opts.storeDir, log) : undefined;
  const { tools, programs } = catalogue(testTools());
  const runtime = new TaskRuntime({
    pollIntervalMs: opts.pollIntervalMs,
    ttlMs: opts.ttlMs,
    store,
    programs,
    toolErrorStatus: "completed",
    log,
  });
  const setup = {
    runtime,
    tools,
    store,
    serverInfo: SERVER_INFO,
    instructions: INSTRUCTIONS,
    log,
    onInbound: crashAfter(opts, crashOnUpdate(opts, runtime, countMessage)),
  };

  let front: RunningFront;
  try {
    front = await startV2(
      opts.mode === "http" ? { transport: "http", port: opts.port, host: "127.0.0.1" } : { transport: "stdio" },
      setup,
    );
  } catch (error) {
    runtime.close();
    throw error;
  }
  log(
    `serving MCP 2026-07-28 + io.modelcontextprotocol/tasks ${front.url ? `at ${front.url}` : "on stdio"} ` +
      `(poll ${opts.pollIntervalMs} ms, ttl ${opts.ttlMs} ms${store ? `, store ${store.dir}` : ""})`,
  );
  if (front.url) process.stdout.write(`listening ${front.url}\n`);

  let shuttingDown: Promise<void> | undefined;
  const shutdown = () =>
    (shuttingDown ??= (async () => {
      await front.close().catch(() => {});
      runtime.close();
      process.exit(0);
    })());
  for (const sig of ["SIGINT", "SIGTERM"] as const) process.on(sig, () => void shutdown());
  // stdio: the client closed stdin.
  void front.closed.then(() => shutdown());
}

/**
 * Fault injection for tests (--crash-on-update): the process exits on the first tasks/update, before the server
 * applies it, or after the runtime applied and stored it (its change listeners run inside the update) but before
 * the reply is written. The client sees the connection drop either way and cannot tell which.
 */
function crashOnUpdate(
  opts: ServerOptions,
  runtime: TaskRuntime,
  count: (message: unknown) => void,
): (message: unknown) => void {
  const when = opts.crashOnUpdate;
  if (!when) return count;
  let armed: string | undefined;
  const crash = (why: string) => {
    process.stderr.write(`[v2-server] fault injection: exiting ${why}\n`);
    process.exit(70);
  };
  runtime.onChange((task) => {
    if (task.taskId === armed) crash("after applying tasks/update, before replying");
  });
  return (message) => {
    count(message);
    const m = message as { method?: unknown; params?: { taskId?: unknown } } | undefined;
    if (m?.method !== "tasks/update" || armed !== undefined) return;
    if (when === "before") crash("on tasks/update, before applying it");
    armed = typeof m.params?.taskId === "string" ? m.params.taskId : "";
  };
}

/**
 * Fault injection for tests (--crash-after, --crash-when): the process exits on its own (code 70, a line on stderr)
 * that long after the first tools/call came, or once the file exists after it, while the call or its task runs, with
 * no request of the client's in flight.
 */
function crashAfter(opts: ServerOptions, inbound: (message: unknown) => void): (message: unknown) => void {
  const { crashAfterMs: ms, crashWhen: file } = opts;
  if (ms === undefined && file === undefined) return inbound;
  let armed = false;
  const crash = (why: string) => {
    process.stderr.write(`[v2-server] fault injection: exiting ${why}\n`);
    process.exit(70);
  };
  return (message) => {
    inbound(message);
    if (armed || (message as { method?: unknown } | undefined)?.method !== "tools/call") return;
    armed = true;
    if (file === undefined) setTimeout(() => crash(`${ms} ms after the first tools/call`), ms);
    else {
      const look = setInterval(() => {
        if (!existsSync(file)) return;
        clearInterval(look);
        crash("when asked to, after the first tools/call");
      }, 20);
    }
  };
}

main().catch((error) => {
  process.stderr.write(`v2-server: fatal: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
