// A person answers an agent's task in a real terminal (tmux): `mcp-task serve`, spawned by the SDK's v1 client as an
// agent spawns it, starts a task that asks a question (our V2 test server over HTTP); the agent sees input_required
// in task_status; the dashboard, in another terminal, shows the task among the others and answers its question
// through the form; the agent then gets the result. Waits are hang-only (waitFor, until).
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { tempHome } from "../helpers/cli.js";
import { runInProcess } from "../helpers/context.js";
import { agent, call, textOf, untilAsking } from "../helpers/serve-agent.js";
import { startV2Http, type RunningServer } from "../helpers/servers.js";
import { bin, sleep, tmuxTerminal } from "../helpers/tmux.js";
import { until } from "../helpers/until.js";

const { keys, waitFor, terminal, close } = tmuxTerminal("mcp-task-serve-tty");
/** hang-only: a dashboard started (a process, Ink) and drawn on a machine at a load of 14 is seconds, not a minute. */
const HANG_MS = 60_000;

let v2: RunningServer;
beforeAll(async () => {
  v2 = await startV2Http();
});
afterEach(() => close());
afterAll(async () => {
  await v2?.stop();
});

it("the dashboard shows a task an agent started through serve and answers its question; the agent gets the result", async () => {
  const home = tempHome();
  const added = await runInProcess(["server", "add", "v2", "--url", v2.url], { home });
  expect(added.code, added.stderr).toBe(0);
  const client = await agent(home, ["-s", "v2", "--wait", "0s"]);
  try {
    const taskId = String((await call(client, "task_input_once", { ms: 100 })).structuredContent?.taskId);
    const status = await untilAsking(client, taskId);
    expect(String(status.structuredContent?.answeredBy)).toMatch(/mcp-task dashboard/);
    terminal(home, `${bin} dashboard`);
    const list = await waitFor(/1 waiting for you/, HANG_MS);
    expect(list).toMatch(/task_input_once/);
    keys("a");
    await waitFor(/asks for input[\s\S]*What is your name/, HANG_MS);
    for (const ch of "Dash") keys(ch);
    await sleep(200);
    keys("Enter");
    await waitFor(/answer (sent|delivered)/, HANG_MS);
    const result = await until(
      async () => {
        const r = await call(client, "task_result", { taskId });
        return r.structuredContent?.taskId === undefined ? r : undefined;
      },
      { hangMs: 60_000, everyMs: 200, what: "the answered task's result, through the agent's task_result" },
    );
    expect(textOf(result)).toBe("Hello, Dash");
    await waitFor(/✓ completed/, HANG_MS);
    keys("q");
    expect(await waitFor(/EXIT=\d+/, HANG_MS)).toMatch(/EXIT=0/);
  } finally {
    await client.close();
  }
}, 240_000); // hang-only: the waits above, each bounded by HANG_MS
