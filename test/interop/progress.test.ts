// Progress (notifications/progress) from a real server, server-everything's trigger-long-running-operation, over
// stdio through the broker and directly: shown as status lines and NDJSON `progress` events, and each report
// restarts the request's timeout, so a call that outlasts MCP_TASK_REQUEST_TIMEOUT completes while it reports.
// And progress of a TASK (the SDK v1 test server's `progress` tool reports it with the call's token during the task):
// after `call --detach` the broker keeps it on the handle, and a later `watch` shows the last of it.
import { describe, expect, it } from "vitest";
import { events, tempHome } from "../helpers/cli.js";
import { runInProcess } from "../helpers/context.js";
import { until } from "../helpers/until.js";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Handle } from "../../src/model.js";
import { ROOT, everythingStdio } from "../helpers/servers.js";

const sdkV1Stdio = `node ${join(ROOT, "dist/test-servers/sdk-v1-server.js")} --stdio`;

const call = (home: string, duration: number, steps: number, extra: string[] = [], env: Record<string, string> = {}) =>
  runInProcess(
    [
      "call",
      "trigger-long-running-operation",
      `duration=${duration}`,
      `steps=${steps}`,
      "--stdio",
      everythingStdio,
      ...extra,
    ],
    { home, env },
  );

describe("progress", { timeout: 60_000 }, () => {
  it("each report restarts the request's timeout: 3 s of work under a 2 s timeout completes, through the broker and directly", async () => {
    const home = tempHome();
    const env = { MCP_TASK_REQUEST_TIMEOUT: "2s" };
    // First through the broker (the tool's task support is not known yet), then directly (it is now). A report
    // every second: each comes 1 s inside the timeout it restarts, and 0.5 s past the least a rate is told from; the
    // whole outlasts the timeout, so without the restarts the call would time out.
    for (const round of ["broker", "direct"]) {
      const run = await call(home, 3, 3, [], env);
      expect(run.code, `${round}: ${run.stderr}`).toBe(0);
      expect(run.stdout).toContain("Long running operation completed");
      // The bar, the percentage, and from the second report on the rate and the time left.
      expect(run.stderr).toMatch(
        /progress 1\/3 ▕█{6}▋ {13}▏ 33 %\n[\s\S]*progress 2\/3 ▕.+▏ 66 % · [\d.]+\/s · ~\d+s left/,
      );
      expect(run.stderr).toMatch(/progress 3\/3 ▕█{20}▏ 100 % · [\d.]+\/s\n/);
    }
    // One step longer than the timeout: no report comes in time, and the call times out (exit 4).
    const slow = await call(home, 3, 1, [], env);
    expect(slow.code, slow.stderr).toBe(4);
    expect(slow.stderr).toMatch(/did not answer tools\/call within 2 s/);
  });

  it("--json: one progress event per report, before the result", async () => {
    const run = await call(tempHome(), 0.4, 2, ["--json"]);
    expect(run.code, run.stderr).toBe(0);
    const kinds = events(run.stdout).map((e) => (e.type === "progress" ? `progress ${e.progress}/${e.total}` : e.type));
    expect(kinds).toEqual(["progress 1/2", "progress 2/2", "result"]);
  });

  it("a task's progress after call --detach: the broker keeps the last on the handle; a later watch shows it", async () => {
    const home = tempHome();
    const detached = await runInProcess(
      ["call", "progress", "steps=4", "stepMs=150", "--stdio", sdkV1Stdio, "--detach"],
      {
        home,
      },
    );
    expect(detached.code, detached.stderr).toBe(0);
    const taskId = detached.stdout.trim();
    expect(taskId).not.toBe("");
    expect(detached.stderr).not.toMatch(/progress \d/); // --detach shows none
    // The broker writes the progress with its batch, or with the outcome (it reads the task every 5 s): wait for both.
    const saved = () => {
      const dir = join(home, "tasks");
      const file = readdirSync(dir).find((name) => name.startsWith(taskId) && name.endsWith(".json"));
      return file ? (JSON.parse(readFileSync(join(dir, file), "utf8")) as Handle) : undefined;
    };
    // hang-only: 90 s (beside a second copy of the suite, 30 s was once not enough for the broker's reads).
    await until(() => saved()?.outcome && saved()?.progress, {
      what: "the outcome and the progress saved",
      hangMs: 90_000,
    });
    expect(saved()?.progress).toMatchObject({ progress: 4, total: 4, first: { progress: expect.any(Number) } });
    const watched = await runInProcess(["watch", taskId], { home });
    expect(watched.code, watched.stderr).toBe(0);
    expect(watched.stderr).toMatch(/progress 4\/4 ▕█+▏ 100 % - step 4 of 4\n/);
    const json = await runInProcess(["watch", taskId, "--json"], { home });
    const progress = events(json.stdout).filter((e) => e.type === "progress");
    expect(progress).toEqual([
      { type: "progress", taskId, progress: 4, total: 4, message: "step 4 of 4", at: expect.any(String) },
    ]);
    expect(events(json.stdout).at(-1)).toMatchObject({ type: "result", status: "completed" });
  }, 150_000);

  it("a task's progress while the call follows it: each report on stderr as it comes, with its rate when known", async () => {
    const run = await runInProcess(["call", "progress", "steps=3", "stepMs=400", "--stdio", sdkV1Stdio], {
      home: tempHome(),
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/progress 1\/3 ▕.+▏ 33 % - step 1 of 3\n/);
    // The rate is shown when the reports were seen at least 0.5 s apart (rateOf, tested on set times in
    // test/ui/progress.test.tsx); a loaded machine can deliver the three 400 ms steps together.
    expect(run.stderr).toMatch(/progress 3\/3 ▕█+▏ 100 %( · [\d.]+\/s)? - step 3 of 3\n/);
  });
});
