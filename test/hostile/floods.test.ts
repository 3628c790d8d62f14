// Floods a hostile server sends (test/servers/hostile-server.ts): tens of thousands of notifications before each
// reply, 20,000 pings on a call's stream. The notification flood runs in-process (nothing of the process is measured),
// the ping flood as a process (its peak memory is measured); the cases one after the other (each is CPU-bound: side by
// side on two cores they only pushed each other past their hang-only bounds). Each ends in the documented exit code, with nothing of the flood in the output, and a store that lists.
import { describe, expect, it } from "vitest";
import { events, tempHome } from "../helpers/cli.js";
import { runInProcess } from "../helpers/context.js";
import { BOTH, expectClean, runMeasured, withHttp, stored } from "../helpers/hostile.js";

/**
 * Runs a command in-process. Its `timeoutMs` (45 s unless given) is a hang-only bound: the runner fails the test when
 * the command has not ended by then, far past any configured timeout it is meant to keep; how fast is the bench's.
 */
const runCli = runInProcess;

// Much to read on two shared cores: more room than the default 60 s per test (hang-only).
describe("hostile floods", { timeout: 150_000 }, () => {
  for (const generation of BOTH) {
    it(`notification-flood (${generation}): tens of thousands of notifications before each reply do not stop or slow the call`, async () => {
      await withHttp(
        "notification-flood",
        generation,
        async ({ url }) => {
          const home = tempHome();
          // 20,000 notifications before each reply (40,000 once): what is checked is that the call ends, with nothing
          // of the flood in its output, which tens of thousands show as well as twice as many.
          // No time or CPU bound (the speed of this path is not a functional property): the harness's timeout
          // (hang-only) says whether the flood stops the call; the output, that nothing of it leaks into what the
          // person or a script reads.
          // The JSON and the text call one after the other: side by side in this one process, each starved the
          // other's event loop for seconds while it read its flood, past the server's 5 s keep-alive, and a tools/call
          // (never sent twice) went out on a connection the server had closed ("the connection was reset").
          const run = await runCli(["call", "work", "--json", "-s", url], { home, timeoutMs: 120_000 });
          const text = await runCli(["call", "work", "-s", url], { home, timeoutMs: 120_000 });
          expect(run.code, run.stderr).toBe(0);
          expectClean(run);
          expect(run.stderr).toBe("");
          expect(events(run.stdout).at(-1)).toMatchObject({
            type: "result",
            status: "completed",
            result: { content: [{ text: "survived the flood" }] },
          });
          expect(text.code, text.stderr).toBe(0);
          expectClean(text);
          expect(text.stdout).toBe("survived the flood\n");
          expect(text.stderr.split("\n").length).toBeLessThan(12);
          expect(await stored(home)).toHaveLength(2);
        },
        "--flood",
        "20000",
      );
    }, 270_000);

    it(`ping-flood (${generation}): 20,000 pings on a call's stream are answered a few at a time, never all at once: the call ends promptly, in bounded CPU and memory`, async () => {
      await withHttp(
        "ping-flood",
        generation,
        async ({ url }) => {
          // hang-only: the defect was memory (and 27 CPU-seconds), not a hang; two loaded cores took 45 s once.
          const run = await runMeasured(["call", "flooded", "--no-task", "-s", url], {
            home: tempHome(),
            timeoutMs: 120_000,
          });
          expect(run.code, run.stderr).toBe(0);
          expect(run.stdout).toContain("after 20000 pings");
          // Before: 20,000 POSTs at once, 27 s of CPU and 1 GB, and a listener warning per POST. The memory a
          // process holds is what it did (20,000 answers in flight at once held 1 GB), not how fast it went.
          expect(run.rssKb).toBeLessThan(600 * 1024);
          expect(run.stderr).not.toMatch(/MaxListeners/);
        },
        "--count",
        "20000",
      );
    });
  }
});
