// One reader per task: a command behind a broker (the keeper of a V1 session, a stdio server's broker) takes the
// broker's reads of a task instead of adding its own, and the broker's own following reads a task only when nobody
// has for its pace (src/broker/reads.ts). The server sees the reads its pollInterval asks for over the task's life,
// not the command's and the keeper's both. The broker's least pace (5 s) is set to the server's pollInterval, 1 s
// (MCP_TASK_BROKER_PACE), as the 5 s pace met a 5 s pollInterval: the same count of periods, a fifth of the wait.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startDemoServer, type DemoServer } from "../../demo-server/index.js";
import { events, tempHome } from "../helpers/cli.js";
import { runInProcess } from "../helpers/context.js";

const POLL_MS = 1000;
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
    // export_ledger at 800 rows a second: 4,400 rows take 5.5 s, five reads at 1 s intervals while it works. Pushes
    // off: the command polls (as on a server that pushes nothing), and so does the keeper, at max(pollInterval, its
    // pace), here both 1 s.
    const run = await runInProcess(["call", "export_ledger", "--args", '{"rows":4400}', "-s", server.url!, "--json"], {
      home,
      env: { MCP_TASK_PUSH: "off", MCP_TASK_BROKER_PACE: `${POLL_MS}ms` },
      timeoutMs: 60_000,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(reads.size).toBe(1);
    const [count] = [...reads.values()];
    // The task's life as its handle saw it (created to completed): longer on a loaded machine, and with it the
    // reads due. One reader: one read per POLL_MS of that life, and at its end the keeper's tasks/result answered
    // and the tasks/get that confirms it ended (v1-results.ts), the command's read of the end, and one read that was
    // on its way as the end was learnt (seen once at a load of 8: seven reads over 19 s at 5 s). Both readers, as
    // before the keeper read for the command, made nine where five were due (about two per period): this bound,
    // five periods and four more, still fails them (a broker that read on its own pace as well: 11 over 5 s).
    const [taskEvent] = events(run.stdout);
    const exported = await runInProcess(["export", String(taskEvent.taskId)], { home });
    const history = (JSON.parse(exported.stdout) as { history: Array<{ at: string }> }).history;
    const life = Date.parse(history.at(-1)!.at) - Date.parse(history[0].at);
    expect(count).toBeGreaterThanOrEqual(3);
    expect(count, `${count} reads over ${life} ms`).toBeLessThanOrEqual(Math.floor(life / POLL_MS) + 4);
  },
);
