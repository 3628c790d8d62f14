// `mcp-task wait <id>...` against real servers: several tasks started with --detach, waited for together from a
// later command (in-process); the exit code is that of the first task (in the order given) that did not complete; --any ends at
// the first; --timeout leaves them running with a hint that works; a task that asks for input is exit 6 at once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { events, tempHome } from "../helpers/cli.js";
import { runInProcess } from "../helpers/context.js";
import { startV2Http, v2Stdio, type RunningServer } from "../helpers/servers.js";

let server: RunningServer;
beforeAll(async () => {
  server = await startV2Http();
});
afterAll(async () => {
  await server?.stop();
});

async function detach(home: string, args: string[]): Promise<string> {
  const run = await runInProcess(["call", ...args, "--detach", "--json"], { home });
  expect(run.code, run.stderr).toBe(0);
  return events(run.stdout)[0]!.taskId as string;
}

describe("wait", { timeout: 90_000 }, () => {
  it("waits for all: one line each, and the exit code of the first that did not complete", async () => {
    const home = tempHome();
    const done = await detach(home, ["task_complete", "ms=600", "-s", server.url]);
    const failed = await detach(home, ["task_fail", "ms=300", "-s", server.url]);
    const slow = await detach(home, ["task_complete", "ms=1000", "-s", server.url]);
    const run = await runInProcess(["wait", done, failed, slow], { home });
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toMatch(new RegExp(`task ${done} \\(task_complete\\) completed`));
    expect(run.stderr).toMatch(new RegExp(`task ${failed} \\(task_fail\\) failed: task_fail: simulated failure`));
    expect(run.stderr).toMatch(new RegExp(`task ${slow} \\(task_complete\\) completed`));
    // Come back after they all ended, in JSON: the outcomes from the handles, no server needed.
    await server.stop();
    const again = await runInProcess(["wait", done, slow, "--json"], { home });
    expect(again.code, again.stderr).toBe(0);
    expect(events(again.stdout).map((e) => [e.type, e.taskId, e.status])).toEqual([
      ["result", done, "completed"],
      ["result", slow, "completed"],
    ]);
    server = await startV2Http();
  });

  it("--any ends at the first to end; --timeout leaves the rest running, with a hint that works", async () => {
    const home = tempHome();
    const quick = await detach(home, ["task_complete", "ms=600", "-s", server.url]);
    // Long enough to outlive the --any wait and the 1 s --timeout after it, then waited for to its end.
    const long = await detach(home, ["task_complete", "ms=5000", "-s", server.url]);
    const any = await runInProcess(["wait", "--any", long, quick], { home });
    expect(any.code, any.stderr).toBe(0);
    expect(any.stderr).toMatch(new RegExp(`task ${quick} .*completed`));
    expect(any.stderr).not.toMatch(new RegExp(`task ${long}`));

    const timedOut = await runInProcess(["wait", long, "--timeout", "1s"], { home });
    expect(timedOut.code, timedOut.stderr).toBe(7);
    expect(timedOut.stderr).toMatch(/1 task\(s\) keep running/);
    const hint = /wait for them again with: (mcp-task wait .+)/.exec(timedOut.stderr)?.[1];
    expect(hint).toBe(`mcp-task wait ${long}`);
    const resumed = await runInProcess(hint!.split(" ").slice(1), { home });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(new RegExp(`task ${long} .*completed`));
  });

  it("a task that asks for input is exit 6 at once, the others still waited for; stdio tasks through their broker", async () => {
    const home = tempHome();
    const asks = await detach(home, ["task_input_once", "-s", server.url]);
    const stdio = await detach(home, ["task_complete", "ms=1200", "--stdio", v2Stdio()]);
    const run = await runInProcess(["wait", stdio, asks], { home });
    expect(run.code, run.stderr).toBe(6);
    expect(run.stderr).toMatch(new RegExp(`task ${stdio} .*completed`));
    expect(run.stderr).toMatch(/input required/);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    const unknown = await runInProcess(["wait", "zzzz-no-such-task"], { home });
    expect(unknown.code).toBe(5);
  });
});
