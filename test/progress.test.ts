// Progress (notifications/progress) from a real server, server-everything's trigger-long-running-operation, over
// stdio through the broker and directly: shown as status lines and NDJSON `progress` events, and each report
// restarts the request's timeout, so a call that outlasts MCP_TASK_REQUEST_TIMEOUT completes while it reports.
import { describe, expect, it } from "vitest";
import { events, runCli, tempHome } from "./helpers/cli.js";
import { everythingStdio } from "./helpers/servers.js";

const call = (home: string, duration: number, steps: number, extra: string[] = [], env: Record<string, string> = {}) =>
  runCli(
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
  it("each report restarts the request's timeout: 4 s of work under a 2 s timeout completes, through the broker and directly", async () => {
    const home = tempHome();
    const env = { MCP_TASK_REQUEST_TIMEOUT: "2s" };
    // First through the broker (the tool's task support is not known yet), then directly (it is now).
    for (const round of ["broker", "direct"]) {
      const run = await call(home, 4, 4, [], env);
      expect(run.code, `${round}: ${run.stderr}`).toBe(0);
      expect(run.stdout).toContain("Long running operation completed");
      // The bar, the percentage, and from the second report on the rate and the time left.
      expect(run.stderr).toMatch(
        /progress 1\/4 ▕█{5} {15}▏ 25 %\n[\s\S]*progress 2\/4 ▕.+▏ 50 % · [\d.]+\/s · ~\d+s left/,
      );
      expect(run.stderr).toMatch(/progress 4\/4 ▕█{20}▏ 100 % · [\d.]+\/s\n/);
    }
    // One step longer than the timeout: no report comes in time, and the call times out (exit 4).
    const slow = await call(home, 3, 1, [], env);
    expect(slow.code, slow.stderr).toBe(4);
    expect(slow.stderr).toMatch(/did not answer tools\/call within 2 s/);
  });

  it("--json: one progress event per report, before the result", async () => {
    const run = await call(tempHome(), 2, 2, ["--json"]);
    expect(run.code, run.stderr).toBe(0);
    const kinds = events(run.stdout).map((e) => (e.type === "progress" ? `progress ${e.progress}/${e.total}` : e.type));
    expect(kinds).toEqual(["progress 1/2", "progress 2/2", "result"]);
  });
});
