// `mcp-task demo`: starts the demo server in this process, registers it as the server `demo`, starts a few tasks
// on it (unless saved ones are still running: then they are picked up again), and shows them: the dashboard on a
// terminal, a printed walk-through anywhere else (answering the approval with documented defaults). On leaving,
// it stops the server; the tasks' handles stay, and the server keeps its tasks on disk.
import { join } from "node:path";
import type { Context } from "../../context.js";
import { createPrinter } from "../../output/printer.js";
import { httpDescriptor } from "../../protocol/server.js";
import { isTerminal, type Wire } from "../../protocol/wire.js";
import { TaskEngine } from "../../tasks/engine.js";
import { preparedAnswers } from "../../tasks/input.js";
import { exitCodeOf, followSettings, followTask, printerHooks } from "../../tasks/run.js";
import type { TrackedTask } from "../../tasks/tracker.js";
import { planStart, startTask } from "../../tasks/start.js";
import { demoPort } from "./port.js";
import { startDemoServer, type DemoServer } from "../../../demo-server/index.js";

const STARTERS: Array<{ tool: string; args: Record<string, unknown>; what: string }> = [
  {
    tool: "process_invoice",
    args: { invoice_id: "INV-2041", po_number: "PO-1001", amount: 1250 },
    what: "an invoice that matches its PO: one approval",
  },
  {
    tool: "process_invoice",
    args: { invoice_id: "INV-2042", po_number: "PO-1001", amount: 1287.4 },
    what: "an invoice 37.40 over its PO: approval, then a second question",
  },
  { tool: "sync_ledger", args: {}, what: "a ledger sync that fails" },
  { tool: "export_ledger", args: { rows: 50000 }, what: "a long export, cancelled on the way" },
];

async function startServer(ctx: Context, generation: "v1" | "v2", speed: number): Promise<DemoServer> {
  const storeDir = join(ctx.home, "demo", generation);
  const first = demoPort(ctx.home, generation);
  for (let port = first; port < first + 20; port++) {
    try {
      return await startDemoServer({ transport: "http", port }, { generation, storeDir, speed });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EADDRINUSE") throw error;
    }
  }
  return startDemoServer({ transport: "http", port: 0 }, { generation, storeDir, speed });
}

export async function runDemo(
  ctx: Context,
  options: { generation: "v1" | "v2"; speed: number; answers: Record<string, unknown> },
): Promise<number> {
  const server = await startServer(ctx, options.generation, options.speed);
  const name = options.generation === "v2" ? "demo" : "demo-v1";
  const descriptor = httpDescriptor(server.url!);
  const settings = await ctx.loadSettings();
  settings.saveServer(name, descriptor);
  const printer = createPrinter(ctx.io, false);
  let wire: Wire | undefined;
  try {
    // Tasks of an earlier demo still running are picked up again rather than started anew.
    const running = (await ctx.tracker.store.list()).filter(
      ({ handle }) => handle.server.name === name && !handle.outcome && !handle.gone && !isTerminal(handle.last.status),
    );
    wire = await ctx.connect(descriptor, name);
    const interactive = Boolean(ctx.io.terminal);
    const engine = new TaskEngine(wire, ctx.clock, preparedAnswers({ input: options.answers }), ctx.random);
    const started: Array<{ tracked: TrackedTask; what: string }> = [];
    if (running.length === 0) {
      printer.note(
        `demo server (${options.generation.toUpperCase()}) at ${server.url}, saved as "${name}"; starting ${STARTERS.length} tasks`,
      );
      for (const { tool, args, what } of STARTERS) {
        const plan = planStart(settings, { server: { name, descriptor }, tool, args, task: "auto" });
        const call = await startTask(engine, plan, ctx);
        if (call.kind === "task") started.push({ tracked: call.tracked, what });
      }
    } else {
      printer.note(`demo server at ${server.url}: picking up ${running.length} task(s) of the last demo`);
      for (const { handle } of running)
        started.push({ tracked: await ctx.tracker.open(handle.taskId), what: "picked up from the last demo" });
    }
    if (interactive) {
      await wire.close();
      wire = undefined;
      const { runDashboard } = await import("../../ui/index.js");
      return await runDashboard(ctx, ctx.io.terminal!, DEMO_GOODBYE);
    }
    return await walkThrough(ctx, engine, started);
  } finally {
    await wire?.close();
    await server.close();
  }
}

/**
 * Said on leaving the demo's dashboard: the demo server runs in this process and stops with it (runDemo's finally),
 * so its unfinished tasks wait in its store until the next `mcp-task demo` starts it and picks them up.
 */
export const DEMO_GOODBYE =
  "mcp-task: left the demo; its server stopped with it, so unfinished demo tasks wait (kept on disk) until you run" +
  " mcp-task demo again, which picks them up (mcp-task list shows them)\n";

/** Without a terminal: follow every task with status lines, answer with the defaults, cancel the export. */
async function walkThrough(
  ctx: Context,
  engine: TaskEngine,
  tasks: Array<{ tracked: TrackedTask; what: string }>,
): Promise<number> {
  const printer = createPrinter(ctx.io, false);
  const outcomes = await Promise.all(
    tasks.map(async ({ tracked, what }) => {
      printer.note(`${tracked.handle.tool} ${tracked.taskId.slice(0, 8)}: ${what}`);
      if (tracked.handle.tool === "export_ledger") {
        void ctx.clock.sleep(3000).then(async () => {
          printer.note(`cancelling the export ${tracked.taskId.slice(0, 8)}`);
          await engine.cancel(tracked.taskId).catch(() => {});
        });
      }
      const { outcome } = await followTask(engine, tracked, undefined, {
        clock: ctx.clock,
        settings: followSettings(ctx),
        hooks: printerHooks(printer, ctx.clock),
      });
      return outcome;
    }),
  );
  printer.note(
    `demo done: ${outcomes.map((o, i) => `${tasks[i].tracked.handle.tool} ${o!.status} (a command would exit ${exitCodeOf(o!)})`).join("; ")}`,
  );
  printer.note(
    "see them again with: mcp-task list; mcp-task result <id>; on a terminal, mcp-task demo opens the dashboard",
  );
  return 0;
}
