// The demo MCP server shipped with mcp-task: an invoice-approval workflow (purchase order -> goods received ->
// invoice) that shows every part of MCP Tasks. It speaks the 2026-07-28 tasks extension (V2, the default) or the
// 2025-11-25 core tasks (V1), over stdio or Streamable HTTP on 127.0.0.1, and keeps its tasks on disk so that a
// restarted server still knows them and carries on.
//
//   const server = await startDemoServer({ transport: "http", port: 0 }, { generation: "v2", storeDir });
//   server.url   // http://127.0.0.1:PORT/mcp
//   await server.close();
//
// Tools (tools/): lookup_po (immediate), process_invoice (approval questions, structured result), sync_ledger
// (fails), export_ledger (long, for cancelling). `extraTools` serves more beside them: the tests pass the tools the
// official conformance suite's tasks-* scenarios call (test/servers/fixtures/conformance.ts) that way.
//
// On stdio, stdout carries the MCP channel and nothing else: log lines go to `log` (the caller picks stderr).

import { DemoStore } from "./store.js";
import type { RunningFront } from "./http.js";
import { TaskRuntime } from "./runtime.js";
import { demoTools } from "./tools/index.js";
import { catalogue, type ToolDef } from "./tools/tool.js";
import { startV1 } from "./v1.js";
import { startV2 } from "./v2.js";

export type DemoGeneration = "v1" | "v2";

export type DemoTransportOptions = { transport: "stdio" } | { transport: "http"; port: number; host?: "127.0.0.1" };

export interface DemoServerOptions {
  /** `v2` (default): the 2026-07-28 tasks extension; `v1`: 2025-11-25 core tasks. */
  generation?: DemoGeneration;
  /** Where tasks (and V1 HTTP sessions) are kept, one JSON file each. Created when missing. */
  storeDir: string;
  /** One line per event worth knowing (start, task transitions, problems). Default: silent. */
  log?: (line: string) => void;
  /** Divides every delay of the demo tools: 5 runs the invoice in about 1.5 s plus the answers. Default 1. */
  speed?: number;
  /** The poll interval the server asks clients to respect (ms). Default 1000. */
  pollIntervalMs?: number;
  /** How long a task is kept after its creation (ms). Default 3,600,000 (1 h). V1 clients may ask for less or more. */
  ttlMs?: number;
  /** More tools, served after the demo's (a name the demo has is refused). The tests' fixtures come this way. */
  extraTools?: ToolDef[];
  /**
   * Sees every inbound JSON-RPC message before it is served (over HTTP; V2 on stdio too). `mcp-task demo-server`
   * passes none; the test entry point (test/servers/demo-server-main.ts) hangs its fault injection here.
   */
  onInbound?: (message: unknown) => void;
}

export interface DemoServer {
  generation: DemoGeneration;
  /** The Streamable HTTP endpoint (`http://127.0.0.1:PORT/mcp`); undefined on stdio. */
  url?: string;
  /** Resolves when the server stops: on stdio when the client closes stdin, or after close(). */
  closed: Promise<void>;
  close(): Promise<void>;
}

export const DEMO_SERVER_INFO = { name: "mcp-task-demo", version: "0.1.0" } as const;
export const DEMO_DEFAULTS = { speed: 1, pollIntervalMs: 1000, ttlMs: 3_600_000 } as const;

const INSTRUCTIONS =
  "Demo server shipped with mcp-task: a purchase-order-to-invoice workflow on a simulated ERP. " +
  "lookup_po answers at once; process_invoice is a task that asks for approval (and again when the invoice does not match its PO); " +
  "sync_ledger is a task that fails; export_ledger is a long task made to be cancelled.";

export async function startDemoServer(
  transport: DemoTransportOptions,
  options: DemoServerOptions,
): Promise<DemoServer> {
  const generation = options.generation ?? "v2";
  if (generation !== "v1" && generation !== "v2") throw new Error(`unknown generation: ${String(generation)}`);
  const speed = options.speed ?? DEMO_DEFAULTS.speed;
  if (!(speed > 0 && speed <= 1000)) throw new Error("speed must be > 0 and <= 1000");
  const pollIntervalMs = options.pollIntervalMs ?? DEMO_DEFAULTS.pollIntervalMs;
  const ttlMs = options.ttlMs ?? DEMO_DEFAULTS.ttlMs;
  if (!(Number.isInteger(pollIntervalMs) && pollIntervalMs >= 1))
    throw new Error("pollIntervalMs must be a positive integer");
  if (!(Number.isInteger(ttlMs) && ttlMs >= 1000)) throw new Error("ttlMs must be an integer >= 1000");
  if (transport.transport === "http" && (transport.host ?? "127.0.0.1") !== "127.0.0.1")
    throw new Error("the demo server listens on 127.0.0.1 only");

  const log = options.log ?? (() => {});
  const store = new DemoStore(options.storeDir, log);
  const extraTools = options.extraTools ?? [];
  const own = demoTools(speed);
  const clash = extraTools.find((extra) => own.some((tool) => tool.name === extra.name));
  if (clash) throw new Error(`extraTools: ${clash.name} is a demo tool already`);
  const { tools, programs } = catalogue([...own, ...extraTools]);
  const runtime = new TaskRuntime({
    pollIntervalMs,
    ttlMs,
    store,
    programs,
    toolErrorStatus: generation === "v1" ? "failed" : "completed",
    log,
  });
  const setup = {
    runtime,
    tools,
    store,
    serverInfo: { ...DEMO_SERVER_INFO },
    instructions: INSTRUCTIONS,
    log,
    onInbound: options.onInbound,
  };
  const where =
    transport.transport === "http"
      ? { transport: "http" as const, port: transport.port, host: "127.0.0.1" as const }
      : { transport: "stdio" as const };

  let front: RunningFront;
  try {
    front = generation === "v1" ? await startV1(where, setup) : await startV2(where, setup);
  } catch (error) {
    runtime.close();
    throw error;
  }
  const protocol =
    generation === "v1" ? "MCP 2025-11-25 core tasks (V1)" : "MCP 2026-07-28 + io.modelcontextprotocol/tasks (V2)";
  log(
    `demo server: ${protocol} on ${front.url ?? "stdio"}; poll ${pollIntervalMs} ms, ttl ${ttlMs} ms, speed ${speed}, store ${store.dir}` +
      (extraTools.length > 0
        ? `, with ${extraTools.length} extra tools (${extraTools.map((tool) => tool.name).join(", ")})`
        : ""),
  );

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      try {
        await front.close();
      } finally {
        runtime.close();
        log("demo server: stopped");
      }
    })());
  // The stdio peer went away: stop the tasks' timers too.
  void front.closed.then(() => close());
  return { generation, url: front.url, closed: front.closed, close };
}
