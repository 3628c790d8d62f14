// `mcp-task demo-server` (the built-in demo MCP server) and `mcp-task demo` (see mcp-task at work on it, with no
// set-up: the dashboard on a terminal, a printed walk-through anywhere else). The demo code is loaded only here.
import { join } from "node:path";
import type { Command } from "commander";
import type { Context } from "../context.js";
import type { Run } from "./run.js";
import { UsageError } from "../errors.js";
import { parseMilliseconds } from "./common.js";

/** The answers the printed demo gives: approve, and post the invoice when asked again. Documented in the README. */
export const DEMO_ANSWERS = {
  approve: true,
  comment: "approved by the mcp-task demo",
  action: "post",
  note: "posted by the mcp-task demo",
};

export function registerDemo(program: Command, ctx: Context, run: Run): void {
  program
    .command("demo-server")
    .summary("run the built-in demo MCP server: an invoice approval workflow")
    .option("--stdio", "serve on stdin/stdout")
    .option("--port <n>", "serve Streamable HTTP on 127.0.0.1:<n> (0: any free port)", "0")
    .option("--generation <v1|v2>", "the tasks protocol: v2 (2026-07-28 extension) or v1 (2025-11-25 core)", "v2")
    .option("--speed <n>", "run the workflow this many times faster", "1")
    .option("--store <dir>", "where it keeps its tasks (default: in the mcp-task directory)")
    .action((flags: { stdio?: boolean; port: string; generation: string; speed: string; store?: string }) =>
      run(async () => {
        const generation = checkGeneration(flags.generation);
        const { startDemoServer } = await import("../../demo-server/index.js");
        const server = await startDemoServer(
          flags.stdio
            ? { transport: "stdio" }
            : { transport: "http", port: Number(parseMilliseconds(flags.port, "--port")) },
          {
            generation,
            storeDir: flags.store ?? join(ctx.home, "demo", generation),
            speed: Number(flags.speed) > 0 ? Number(flags.speed) : 1,
            log: (line) => ctx.io.stderr.write(`demo-server: ${line}\n`),
          },
        );
        if (server.url) ctx.io.stdout.write(`listening ${server.url}\n`);
        ctx.interrupt.addEventListener("abort", () => void server.close(), { once: true });
        await server.closed;
        return 0;
      }),
    );
  program
    .command("demo")
    .summary("see mcp-task at work on the built-in demo server, with no set-up")
    .option("--generation <v1|v2>", "the tasks protocol the demo server speaks", "v2")
    .option("--speed <n>", "run the workflow this many times faster", "1")
    .action((flags: { generation: string; speed: string }) =>
      run(async () => {
        const { runDemo } = await import("./demo/walkthrough.js");
        return runDemo(ctx, {
          generation: checkGeneration(flags.generation),
          speed: Number(flags.speed) > 0 ? Number(flags.speed) : 1,
          answers: DEMO_ANSWERS,
        });
      }),
    );
}

function checkGeneration(value: string): "v1" | "v2" {
  if (value !== "v1" && value !== "v2")
    throw new UsageError(`unknown generation: ${value}`, "use --generation v1 or v2");
  return value;
}
