// Replies and results of 3, 12 and 48 MB from a hostile server (test/servers/hostile-server.ts huge-reply), over HTTP
// in-process and, through a broker, over stdio as processes: past 32 MiB a message ends the connection (exit 4), below
// it is read whole, and a big result is not kept in the handle. One case after the other (each is CPU-bound: side by
// side on two cores they only pushed each other past their hang-only bounds).
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { events, runCli as runProcess, tempHome } from "../helpers/cli.js";
import { runInProcess } from "../helpers/context.js";
import { BOTH, expectError, withHttp, stored } from "../helpers/hostile.js";
import { hostileStdio } from "../helpers/servers.js";

/**
 * Runs a command in-process. Its `timeoutMs` (90 s here) is a hang-only bound: the runner fails the test when the
 * command has not ended by then; how fast is the bench's. (48 MB took 45 s on two cores at a load of 16.)
 */
const runCli = (args: string[], options: { home: string }) => runInProcess(args, { timeoutMs: 90_000, ...options });
/** Lines printed: a command that loops where it should stop prints on and on. */
const lines = (text: string) => text.split("\n").filter(Boolean).length;

// Much to read on two shared cores: more room than the default 60 s per test (hang-only).
describe("hostile huge replies", { timeout: 300_000 }, () => {
  for (const generation of BOTH) {
    it(`huge-reply (${generation}): a 48 MB reply is refused with exit 4, a 12 MB one is read, a 3 MB result is not kept in the handle`, async () => {
      await withHttp(
        "huge-reply",
        generation,
        async ({ url }) => {
          const home = tempHome();
          // Refused, and in time: within the harness's 90 s. Not a tighter wall-clock bound: on two loaded cores, V1's
          // two start-ups (this command's, then its session keeper's, which reads the reply) took 25 s once in CI
          // (2 s on a quiet machine).
          const huge = await runCli(["call", "huge", "mb=48", "-s", url], { home });
          expectError(huge, 4, /larger than 32 MiB/);
          const big = await runCli(["call", "huge", "mb=12", "-s", url], { home });
          expect(big.code, big.stderr.slice(0, 500)).toBe(0);
          expect(big.stdout.length).toBeGreaterThanOrEqual(12 * 1024 * 1024);
          const task = await runCli(["call", "huge_task", "--json", "-s", url], { home });
          expect(task.code, task.stderr.slice(0, 500)).toBe(0);
          const taskId = String(events(task.stdout)[0].taskId);
          // The handle records the end, not the 3 MB: listing stays fast, and `result` reads it from the server again.
          const files = readdirSync(join(home, "tasks")).filter(
            (name) => name.endsWith(".json") && !name.startsWith("."),
          );
          expect(files).toHaveLength(1);
          expect(statSync(join(home, "tasks", files[0])).size).toBeLessThan(64 * 1024);
          expect(await stored(home)).toEqual([expect.objectContaining({ taskId, status: "completed" })]);
          const result = await runCli(["result", taskId], { home });
          expect(result.code, result.stderr).toBe(0);
          expect(result.stdout.length).toBeGreaterThanOrEqual(3 * 1024 * 1024);
        },
        "--mb",
        "3",
      );
    });
  }

  // Processes: run in-process one after the other, the 12 MB call reaches the broker of the 48 MB one at once and is
  // refused with its error ("larger than 32 MiB"); as processes the broker has left by then. Left to look into.
  it("huge-reply over stdio (v2, through the broker): a 48 MB line is refused with exit 4, a 12 MB one is read", async () => {
    const home = tempHome();
    const huge = await runProcess(["call", "huge", "mb=48", "--stdio", hostileStdio("huge-reply", "v2")], {
      home,
      timeoutMs: 90_000, // hang-only, as runCli's above
    });
    expectError(huge, 4, /larger than 32 MiB/);
    expect(lines(huge.stderr)).toBeLessThanOrEqual(2); // the runner's 90 s is hang-only
    const big = await runProcess(["call", "huge", "mb=12", "--json", "--stdio", hostileStdio("huge-reply", "v2")], {
      home,
      timeoutMs: 90_000,
    });
    expect(big.code, big.stderr.slice(0, 500) + big.stdout.slice(-500)).toBe(0);
    expect(big.stdout.length).toBeGreaterThanOrEqual(12 * 1024 * 1024);
  });
});
