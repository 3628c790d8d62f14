// `mcp-task demo-server` (the built-in demo MCP server) and `mcp-task demo` (see mcp-task at work on it, with no
// set-up: the dashboard on a terminal, a printed walk-through anywhere else). The demo code is loaded only here.
import { join } from "node:path";
import { Option, type Command } from "commander";
import type { Context } from "../context.js";
import type { Leaf } from "./command.js";
import { UsageError } from "../errors.js";
import { sanitizeLine } from "../sanitize.js";
import { parsePort } from "./args.js";
import { withOptions, type Flags } from "./options.js";

/** The answers the printed demo gives: approve, and post the invoice when asked again. Documented in the README. */
export const DEMO_ANSWERS = {
  approve: true,
  comment: "approved by the mcp-task demo",
  action: "post",
  note: "posted by the mcp-task demo",
};

export interface DemoOptions {
  generation: "v1" | "v2";
  /** How many times faster the workflow runs. */
  speed: number;
}

export interface DemoServerOptions extends DemoOptions {
  /** On stdin/stdout, else Streamable HTTP on 127.0.0.1:`port` (0: any free port). */
  stdio: boolean;
  port: number;
  store?: string;
}

export const demoServer: Leaf<DemoServerOptions, []> = {
  examples: ["mcp-task demo-server --stdio", "mcp-task demo-server --port 3000"],
  declare: (parent: Command) =>
    withOptions(
      parent.command("demo-server").summary("run the built-in demo MCP server: an invoice approval workflow"),
      new Option("--stdio", "serve on stdin/stdout"),
      new Option("--port <n>", "serve Streamable HTTP on 127.0.0.1:<n> (0: any free port)").default("0"),
      new Option(
        "--generation <v1|v2>",
        "the tasks protocol: v2 (2026-07-28 extension) or v1 (2025-11-25 core)",
      ).default("v2"),
      new Option("--speed <n>", "run the workflow this many times faster").default("1"),
      new Option("--store <dir>", "where it keeps its tasks (default: in the mcp-task directory)"),
    ),
  parse: (_args, flags) => ({
    ...demoFlags(flags),
    stdio: Boolean(flags.stdio),
    port: flags.stdio ? 0 : parsePort(flags.port as string, "--port"),
    store: flags.store as string | undefined,
  }),
  run: (options, ctx) => runDemoServer(options, ctx),
};

export const demo: Leaf<DemoOptions, []> = {
  examples: ["mcp-task demo", "mcp-task demo --generation v1"],
  declare: (parent: Command) =>
    withOptions(
      parent.command("demo").summary("see mcp-task at work on the built-in demo server, with no set-up"),
      new Option("--generation <v1|v2>", "the tasks protocol the demo server speaks").default("v2"),
      new Option("--speed <n>", "run the workflow this many times faster").default("1"),
    ),
  parse: (_args, flags) => demoFlags(flags),
  run: async (options, ctx) => {
    const { runDemo } = await import("./demo/walkthrough.js");
    return runDemo(ctx, { ...options, answers: DEMO_ANSWERS });
  },
};

function demoFlags(flags: Flags): DemoOptions {
  const generation = flags.generation as string;
  if (generation !== "v1" && generation !== "v2")
    throw new UsageError(`unknown generation: ${generation}`, "use --generation v1 or v2");
  const speed = Number(flags.speed);
  if (!Number.isFinite(speed) || speed <= 0)
    throw new UsageError(`--speed takes a number above 0, not ${sanitizeLine(String(flags.speed))}`);
  return { generation, speed };
}

async function runDemoServer(options: DemoServerOptions, ctx: Context): Promise<number> {
  const { startDemoServer } = await import("../../demo-server/index.js");
  const server = await startDemoServer(
    options.stdio ? { transport: "stdio" } : { transport: "http", port: options.port },
    {
      generation: options.generation,
      storeDir: options.store ?? join(ctx.home, "demo", options.generation),
      speed: options.speed,
      log: (line) => ctx.io.stderr.write(`demo-server: ${line}\n`),
    },
  );
  if (server.url) ctx.io.stdout.write(`listening ${server.url}\n`);
  ctx.interrupt.addEventListener("abort", () => void server.close(), { once: true });
  await server.closed;
  return 0;
}
