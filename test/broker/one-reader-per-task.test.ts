// One reader per task: a command behind a broker (the keeper of a V1 session, a stdio server's broker) takes the
// broker's reads of a task instead of adding its own, and the broker's own following reads a task only when nobody
// has for its pace (src/broker/reads.ts). The server sees the reads its pollInterval asks for over the task's life,
// not the command's and the keeper's both (9 where 5 were due).
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startDemoServer, type DemoServer } from "../../demo-server/index.js";
import { events, runCli, tempHome } from "../helpers/cli.js";
import { runInProcess } from "../helpers/context.js";

const POLL_MS = 5000;
let server: DemoServer;
/** The tasks/get each task got, as the server counts them. */
const reads = new Map<string, number>();

beforeAll(async () => {
  server = await startDemoServer(
    { transport: "http", port: 0 },
    {
      generation: "v1",
      storeDir: mkdtempSync(join(tmpdir(), "mcp-task-reads-")),
      pollIntervalMs: POLL_MS,
      log: () => {},
      onInbound: (message) => {
        const m = message as { method?: unknown; params?: { taskId?: unknown } } | undefined;
        if (m?.method !== "tasks/get") return;
        const taskId = String(m.params?.taskId);
        reads.set(taskId, (reads.get(taskId) ?? 0) + 1);
      },
    },
  );
});
afterAll(async () => {
  await server?.close();
});

it(
  "a V1 task followed through its session's keeper is read once per pollInterval, not by the command and the keeper",
  { timeout: 90_000 },
  async () => {
    const home = tempHome();
    // export_ledger at 800 rows a second: 15,200 rows take 19 s, three reads at 5 s intervals while it works. Pushes
    // off: the command polls (as on a server that pushes nothing), and so does the keeper, at max(pollInterval, 5 s).
    const run = await runCli(["call", "export_ledger", "--args", '{"rows":15200}', "-s", server.url!, "--json"], {
      home,
      env: { MCP_TASK_PUSH: "off" },
      timeoutMs: 60_000,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(reads.size).toBe(1);
    const [count] = [...reads.values()];
    // The task's life as its handle saw it (created to completed): longer on a loaded machine, and with it the
    // reads due. One reader: one read per POLL_MS of that life, and at its end the keeper's tasks/result answered
    // and the tasks/get that confirms it ended (v1-results.ts), the command's read of the end, and one read that was
    // on its way as the end was learnt (seen once at a load of 8: seven reads over 19 s). Both readers, as before the
    // keeper read for the command, made nine over the same life: this bound still fails them.
    const [taskEvent] = events(run.stdout);
    const exported = await runInProcess(["export", String(taskEvent.taskId)], { home });
    const history = (JSON.parse(exported.stdout) as { history: Array<{ at: string }> }).history;
    const life = Date.parse(history.at(-1)!.at) - Date.parse(history[0].at);
    expect(count).toBeGreaterThanOrEqual(3);
    expect(count, `${count} reads over ${life} ms`).toBeLessThanOrEqual(Math.floor(life / POLL_MS) + 4);
  },
);
