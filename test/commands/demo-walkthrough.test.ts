// `mcp-task demo` without a terminal, in-process: its tasks start as `call` starts one (src/tasks/start.ts): the demo
// server's tools are listed and each starter's arguments checked against its tool's inputSchema, and the tools' task
// support is kept for the next call's decision. (The walk-through's printed flow is test/tty/live-view-and-dashboard.test.ts's.)
import { expect, it } from "vitest";
import { descriptorKey } from "../../src/protocol/server.js";
import { tempHome } from "../helpers/cli.js";
import { runInProcess, testContext } from "../helpers/context.js";

it("the demo's tasks start as call's do: the tools' task support is kept for the next call", async () => {
  const home = tempHome();
  // A hang-only bound: the walk-through ends once its four tasks have (the export cancelled 3 s in).
  const run = await runInProcess(["demo", "--speed", "4"], { home, timeoutMs: 120_000 });
  expect(run.code).toBe(0);
  expect(run.stderr).toMatch(/demo done: /);
  const settings = await (await testContext(home)).loadSettings();
  const demo = settings.server("demo");
  expect(demo).toBeDefined();
  const support = settings.taskSupport(descriptorKey(demo!));
  for (const tool of ["process_invoice", "sync_ledger", "export_ledger"]) expect(support).toHaveProperty(tool);
});
