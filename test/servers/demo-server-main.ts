// The demo server (demo-server/) as a process, for the tests and the conformance runner: the test-only entry point,
// with the conformance fixtures (--conformance-fixtures) and fault hooks (--crash-on, --forget-sessions).
//
//   node dist/test-servers/demo-server-main.js --stdio --store DIR [--generation v1|v2] [--speed N] ...
//   node dist/test-servers/demo-server-main.js --port 0 --store DIR [...]
//
// HTTP: the only stdout output is one line, `listening http://127.0.0.1:PORT/mcp`, once ready. Log lines go to
// stderr (--quiet: none). SIGINT/SIGTERM stop it; on stdio it stops when stdin closes.

import { rmSync } from "node:fs";
import { join } from "node:path";
import { startDemoServer, type DemoServerOptions, type DemoTransportOptions } from "../../demo-server/index.js";
import { conformanceFixtures } from "./fixtures/conformance.js";

const USAGE = `usage: demo-server-main (--stdio | --port <n>) --store <dir> [--generation v1|v2] [--speed <x>]
                        [--poll-interval <ms>] [--ttl <ms>] [--conformance-fixtures] [--quiet]
                        [--crash-on tasks-result|elicitation-answer] [--forget-sessions]

  --crash-on <point>  fault injection for tests (over HTTP): exit (code 70) on the first inbound tasks/result
                      request (a question still pending on the server), or on the first answer to a question the
                      server asked (elicitation/create), before the server takes it
  --forget-sessions   test hook (V1 over HTTP): start without the sessions an earlier process saved in the store,
                      like a server that keeps its tasks on disk and its sessions in memory; a client coming back
                      with an old session id gets 404 "Session not found", and finds its task in a new session
`;

type CrashPoint = "tasks-result" | "elicitation-answer";

/** Fault injection for tests (--crash-on): the process exits when the chosen message arrives, before it is served. */
function crashOn(point: CrashPoint): (message: unknown) => void {
  return (message) => {
    const m = message as { id?: unknown; method?: unknown; result?: unknown; error?: unknown } | undefined;
    const hit =
      point === "tasks-result"
        ? m?.method === "tasks/result"
        : m?.method === undefined && m?.id !== undefined && (m?.result !== undefined || m?.error !== undefined);
    if (!hit) return;
    process.stderr.write(
      `[demo-server] fault injection: exiting on ${point === "tasks-result" ? "tasks/result" : "the answer to elicitation/create"}, before serving it\n`,
    );
    process.exit(70);
  };
}

function parse(argv: string[]): {
  transport: DemoTransportOptions;
  options: DemoServerOptions;
  quiet: boolean;
  forgetSessions: boolean;
} {
  let transport: DemoTransportOptions | undefined;
  let storeDir: string | undefined;
  const options: Omit<DemoServerOptions, "storeDir"> = {};
  let quiet = false;
  let forgetSessions = false;
  let fixtures = false;
  const value = (i: number, name: string): string => {
    const v = argv[i];
    if (v === undefined) throw new Error(`${name} needs a value`);
    return v;
  };
  const number = (i: number, name: string): number => {
    const n = Number(value(i, name));
    if (!Number.isFinite(n)) throw new Error(`${name} needs a number`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    switch (arg) {
      case "--stdio":
        transport = { transport: "stdio" };
        break;
      case "--port":
        transport = { transport: "http", port: number(++i, arg) };
        break;
      case "--store":
        storeDir = value(++i, arg);
        break;
      case "--generation": {
        const g = value(++i, arg);
        if (g !== "v1" && g !== "v2") throw new Error("--generation is v1 or v2");
        options.generation = g;
        break;
      }
      case "--speed":
        options.speed = number(++i, arg);
        break;
      case "--poll-interval":
        options.pollIntervalMs = number(++i, arg);
        break;
      case "--ttl":
        options.ttlMs = number(++i, arg);
        break;
      case "--conformance-fixtures":
        fixtures = true;
        break;
      case "--quiet":
        quiet = true;
        break;
      case "--crash-on": {
        const point = value(++i, arg);
        if (point !== "tasks-result" && point !== "elicitation-answer")
          throw new Error("--crash-on is tasks-result or elicitation-answer");
        options.onInbound = crashOn(point);
        break;
      }
      case "--forget-sessions":
        forgetSessions = true;
        break;
      default:
        throw new Error(`unknown argument: ${arg}`);
    }
  }
  if (!transport) throw new Error("choose --stdio or --port <n>");
  if (!storeDir) throw new Error("--store <dir> is required");
  // The fixtures speak V2 (request-level input, the tasks extension's envelope): on V1 they are left out.
  if (fixtures && options.generation !== "v1") options.extraTools = conformanceFixtures();
  else if (fixtures) process.stderr.write("[demo-server] --conformance-fixtures applies to V2 only: ignored\n");
  return { transport, options: { ...options, storeDir }, quiet, forgetSessions };
}

async function main(): Promise<void> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`demo-server: ${(error as Error).message}\n${USAGE}`);
    process.exit(2);
  }
  // Test hook (--forget-sessions): the sessions saved by an earlier process are dropped (demo-server/store.ts keeps them
  // in <store>/sessions), so this process does not revive them; the tasks stay.
  if (parsed.forgetSessions) rmSync(join(parsed.options.storeDir, "sessions"), { recursive: true, force: true });
  const log = parsed.quiet ? undefined : (line: string) => process.stderr.write(`[demo-server] ${line}\n`);
  const server = await startDemoServer(parsed.transport, { ...parsed.options, log });
  if (server.url) process.stdout.write(`listening ${server.url}\n`);
  const stop = () => void server.close().then(() => process.exit(0));
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  await server.closed;
  await server.close();
  process.exit(0);
}

main().catch((error) => {
  process.stderr.write(`demo-server: fatal: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
