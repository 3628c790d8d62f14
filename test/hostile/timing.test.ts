// Timing and identity a server controls: the CLI (in-process; a V1 task's session keeper and a stdio server's broker
// are processes, started by the command) against test/servers/hostile-server.ts cases that lie about poll intervals
// (0, negative, 1e12, flipping every read), about which task a read is of, about a task's outcome (completed with an
// error, completed without a result), that reuse one task id for two tasks, send ids of many KiB, or send absurd ttls
// and timestamps. Each ends with its documented exit code; where a spin was the defect the reads the server counted
// are bounded, where a flood was, the size of stderr, and where disk growth was, the size of the handle and of the
// index. No bound here is in seconds: the pace itself (floor, ceiling, one timer) is test/engine/pacing.test.ts, to
// the millisecond on a fake clock; a hang trips the runner's own timeout (hang-only).
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MAX_POLL_INTERVAL_MS, MAX_TASK_ID_LENGTH, MIN_POLL_INTERVAL_MS } from "../../src/limits.js";
import { events, tempHome } from "../helpers/cli.js";
import { runInProcess } from "../helpers/context.js";
import { BOTH, expectClean, expectError, withHttp } from "../helpers/hostile.js";
import { hostileStdio } from "../helpers/servers.js";

/**
 * Runs a command in-process (helpers/context.ts): nothing here is about a process of mcp-task's own. Its timeoutMs
 * (45 s unless given) is hang-only: past any wait these cases make.
 */
const runCli = runInProcess;

/** How many tasks/get reads the server counted before a timing case's task ended (its result says). */
function reads(result: string, afterMs: number): number {
  const match = new RegExp(`^done after ${afterMs} ms, (\\d+) reads\\n?$`).exec(result);
  expect(match, result).not.toBeNull();
  return Number(match![1]);
}

/** The handle files in a home. */
function handleFiles(home: string): string[] {
  const dir = join(home, "tasks");
  return existsSync(dir) ? readdirSync(dir).filter((name) => name.endsWith(".json") && !name.startsWith(".")) : [];
}

function handles(home: string): Array<Record<string, any>> {
  return handleFiles(home).map((name) => JSON.parse(readFileSync(join(home, "tasks", name), "utf8")));
}

/** The store still lists; returns `list --json`. */
async function listed(home: string): Promise<Array<Record<string, unknown>>> {
  const run = await runCli(["list", "--json"], { home });
  expect(run.code, run.stderr).toBe(0);
  expectClean(run);
  return JSON.parse(run.stdout) as Array<Record<string, unknown>>;
}

// Many commands at once on two shared cores: room for a loaded machine.
// The timeout is a hang-only bound: a loaded machine (a load of 20 on 2 cores) took 90 s for a case.
describe.concurrent("hostile timing", { timeout: 240_000 }, () => {
  for (const generation of BOTH) {
    it(`poll-zero (${generation}): pollInterval 0 and -1000 are read at the floor (${MIN_POLL_INTERVAL_MS} ms), not in a spin`, async () => {
      await withHttp("poll-zero", generation, async ({ url }) => {
        const home = tempHome();
        // The two tasks side by side, each in a home of its own (the server counts each task's reads).
        const [zero, negative] = await Promise.all([
          runCli(["call", "zero", "seconds=2", "-s", url], { home }),
          runCli(["call", "negative", "seconds=2", "--json", "-s", url], { home: tempHome() }),
        ]);
        expect(zero.code, zero.stderr).toBe(0);
        expectClean(zero);
        // A 2 s task read every 200 ms is at most ~10 reads (the server counts them; fewer on a loaded machine, never
        // more: none at all where the command's first read came after 2 s). Before the floor, a 10 s task was read
        // hundreds of times (6.2 CPU-seconds on V1): a spin reads a 2 s task dozens of times at the least, far past
        // this bound. That the command read the interval at all, the handle shows (below).
        expect(reads(zero.stdout, 2000)).toBeLessThanOrEqual(2000 / MIN_POLL_INTERVAL_MS + 2);
        const [handle] = handles(home);
        expect(handle.pollIntervalMs).toBe(MIN_POLL_INTERVAL_MS);
        expect(negative.code, negative.stderr).toBe(0);
        expect(events(negative.stdout)[0]).toMatchObject({ type: "task", pollIntervalMs: MIN_POLL_INTERVAL_MS });
        expect(events(negative.stdout).at(-1)).toMatchObject({ type: "result", status: "completed" });
        expect(reads(String((events(negative.stdout).at(-1) as any).result.content[0].text), 2000)).toBeLessThanOrEqual(
          2000 / MIN_POLL_INTERVAL_MS + 2,
        );
      });
    });

    it(`poll-huge (${generation}): pollInterval 1e12 waits at the ceiling (${MAX_POLL_INTERVAL_MS / 1000} s): no timer overflow, no spin, no flood`, async () => {
      await withHttp("poll-huge", generation, async ({ url }) => {
        const home = tempHome();
        // The task ends on the server after 1 s, but the next read is due in 120 s: --timeout stops the wait. On
        // 2025-11-25 the session's keeper also waits on tasks/result, which the server answers at the end (one
        // request, not a read before the interval): the call ends with the task. hang-only: there the timeout is 30 s,
        // which only a keeper that never delivers trips (a loaded machine may take seconds to start the keeper).
        const timeout = generation === "v1" ? "30s" : "2s";
        const run = await runCli(["call", "huge_poll", "seconds=1", "--timeout", timeout, "-s", url], { home });
        if (generation === "v1") expect(run.code, run.stderr).toBe(0);
        else expectError(run, 7, /keeps running/);
        // No flood of notes or retries (a timer that overflowed fired at once, with a warning each time).
        expect(run.stderr.length, run.stderr.slice(0, 2000)).toBeLessThan(2000);
        expect(run.stderr).not.toMatch(/TimeoutOverflowWarning/);
        expect(handles(home)).toHaveLength(1);
        expect(handles(home)[0].pollIntervalMs).toBe(MAX_POLL_INTERVAL_MS);
      });
    });

    it(`poll-flip (${generation}): an interval and a 4000-character message that change on every read cost a bounded number of handle writes`, async () => {
      await withHttp("poll-flip", generation, async ({ url }) => {
        const home = tempHome();
        const run = await runCli(["call", "flip", "seconds=5", "-s", url], { home });
        expect(run.code, run.stderr.slice(0, 2000)).toBe(0);
        expectClean(run);
        // It changed on every read (V2 reads every third interval: the server acknowledges a subscription): ~20 reads
        // at rest, each a change, so the writes below are bounded far below the reads (beside a second copy of the
        // suite a V2 run made a single read).
        expect(reads(run.stdout, 5000)).toBeGreaterThanOrEqual(1);
        // Written at the start, at most once per 5 s in between, and at the end.
        const index = readFileSync(join(home, "tasks", ".index.ndjson"), "utf8");
        const lines = index.split("\n").filter(Boolean).length;
        expect(lines, `${lines} index lines, ${index.length} bytes`).toBeLessThanOrEqual(5);
        expect(index.length).toBeLessThan(40_000);
        const [file] = handleFiles(home);
        expect(statSync(join(home, "tasks", file)).size).toBeLessThan(512 * 1024);
        expect(await listed(home)).toEqual([expect.objectContaining({ tool: "flip", status: "completed" })]);
      });
    });

    it(`get-other-id (${generation}): a tasks/get that answers with another task is exit 4, not a wait`, async () => {
      await withHttp("get-other-id", generation, async ({ url }) => {
        const home = tempHome();
        const run = await runCli(["call", "other", "-s", url], { home });
        expectError(run, 4, /answered tasks\/get for task \S+ with another task/);
        // Not a wait: the task is not read again after the wrong answer.
        expect(run.stderr).not.toMatch(/reconnecting/);
        expect(await listed(home)).toEqual([expect.objectContaining({ tool: "other", status: "working" })]);
      });
    });

    it(`completed-with-error (${generation}): a task that says completed while its result is an error is exit 4 with the server's error, never a silent success`, async () => {
      await withHttp("completed-with-error", generation, async ({ url }) => {
        const home = tempHome();
        // The text and the JSON call side by side (two tasks).
        const [run, json] = await Promise.all([
          runCli(["call", "bad_done", "-s", url], { home }),
          runCli(["call", "bad_done", "--json", "-s", url], { home }),
        ]);
        expectError(
          run,
          4,
          /says task \S+ completed, but sent an error instead of its result: it broke after all \(code -32000\)/,
        );
        expect(run.stdout).toBe("");
        expect(json.code).toBe(4);
        expect(events(json.stdout).at(-1)).toMatchObject({ type: "error", exitCode: 4, code: "protocol" });
        // Not recorded as a success: a later read says the same.
        const saved = await listed(home);
        expect(saved.map((h) => h.status)).toEqual(["working", "working"]);
        expectError(await runCli(["get", String(saved[0].taskId)], { home }), 4, /completed, but sent an error/);
      });
    });

    it(`completed-no-result (${generation}): a task that says completed without a result is exit 4`, async () => {
      await withHttp("completed-no-result", generation, async ({ url }) => {
        const home = tempHome();
        const run = await runCli(["call", "no_result", "-s", url], { home });
        expectError(
          run,
          4,
          generation === "v2" ? /says task \S+ completed, but sent no result/ : /invalid tasks\/result: content/,
        );
        expect(run.stdout).toBe("");
        expect(await listed(home)).toEqual([expect.objectContaining({ status: "working" })]);
      });
    });

    it(`reused-id (${generation}): a task id the server gave to an earlier task never replaces that task's handle: exit 4 naming the reuse`, async () => {
      await withHttp("reused-id", generation, async ({ url }) => {
        const home = tempHome();
        const first = await runCli(["call", "slow", "n=1", "--detach", "-s", url], { home });
        expect(first.code, first.stderr).toBe(0);
        expect(first.stdout).toBe("reused-task-id\n");
        const second = await runCli(["call", "slow", "n=2", "-s", url], { home });
        expectError(
          second,
          4,
          /gave the new task the id reused-task-id, which it already gave to another task saved here/,
        );
        expect(second.stderr).not.toMatch(/follow it again/);
        const saved = handles(home);
        expect(saved).toHaveLength(1);
        expect(saved[0].arguments).toEqual({ n: 1 });
        expect(await listed(home)).toEqual([expect.objectContaining({ taskId: "reused-task-id" })]);
      });
    });

    it(`huge-id (${generation}): a task id of 64 and 200 KiB is exit 4 before it is stored or shown (at most ${MAX_TASK_ID_LENGTH} characters)`, async () => {
      await withHttp("huge-id", generation, async ({ url }) => {
        const home = tempHome();
        await Promise.all(
          [64, 200].map(async (kb) => {
            const run = await runCli(["call", "huge_id", `kb=${kb}`, "-s", url], { home });
            expectError(
              run,
              4,
              new RegExp(`task id of ${kb * 1024 + 5} characters \\(at most ${MAX_TASK_ID_LENGTH}\\)`),
            );
            expect(run.stderr.length).toBeLessThan(1000);
            expect(run.stdout).toBe("");
          }),
        );
        expect(handleFiles(home)).toEqual([]);
        expect(await listed(home)).toEqual([]);
      });
    });

    it(`bad-timing (${generation}): negative and absurd ttls, a createdAt in year 9999 or of 10 KB of text keep expiry arithmetic sane`, async () => {
      await withHttp("bad-timing", generation, async ({ url }) => {
        const home = tempHome();
        await Promise.all(
          ["negative_ttl", "absurd_ttl", "future", "garbage_time"].map(async (tool) => {
            const run = await runCli(["call", tool, "--detach", "-s", url], { home });
            expect(run.code, run.stderr).toBe(0);
          }),
        );
        const byTool = Object.fromEntries((await listed(home)).map((h) => [h.tool, h]));
        // A negative ttl is no ttl (not "expired before it began"); one past 10 years is unlimited.
        expect(byTool.negative_ttl).toMatchObject({ ttlMs: null, expired: false });
        expect(byTool.absurd_ttl).toMatchObject({ ttlMs: null, expired: false });
        // A createdAt in the future does not keep the task alive forever: its ttl counts from mcp-task's clock (the
        // handle's createdAt, below; expired from exactly a second later: test/engine/expiry.test.ts).
        expect(byTool.future).toMatchObject({ ttlMs: 1000 });
        expect(byTool.future.createdAt).not.toMatch(/^9999/);
        for (const handle of handles(home)) {
          expect(Math.abs(Date.parse(handle.createdAt) - Date.now())).toBeLessThan(60_000); // time-value: first sight, not year 9999
          expect(JSON.stringify(handle).length).toBeLessThan(4000);
        }
        const get = await runCli(["get", String(byTool.garbage_time.taskId)], { home });
        expect(get.code, get.stderr).toBe(0);
        expectClean(get);
        for (const line of get.stdout.split("\n")) expect(line.length).toBeLessThan(300);
      });
    });
  }

  it("huge-id over stdio (v1 and v2, through the broker): exit 4 before anything is stored", async () => {
    await Promise.all(
      BOTH.map(async (generation) => {
        const home = tempHome();
        const run = await runCli(["call", "huge_id", "kb=200", "--stdio", hostileStdio("huge-id", generation)], {
          home,
        });
        expectError(run, 4, /task id of 204805 characters/);
        expect(run.stderr.length).toBeLessThan(1000);
        expect(run.stdout).toBe("");
        expect(handleFiles(home)).toEqual([]);
      }),
    );
  });

  it("poll-zero and poll-huge over stdio (v2, through the broker): read at the floor, waiting at the ceiling", async () => {
    const home = tempHome();
    const hugeHome = tempHome();
    // Side by side: each its own home, server and broker.
    const [zero, huge] = await Promise.all([
      runCli(["call", "zero", "seconds=2", "--stdio", hostileStdio("poll-zero", "v2")], { home }),
      runCli(["call", "huge_poll", "seconds=1", "--timeout", "2s", "--stdio", hostileStdio("poll-huge", "v2")], {
        home: hugeHome,
      }),
    ]);
    expect(zero.code, zero.stderr).toBe(0);
    // The command's reads and the broker's are one (the server counts them): at most one per 200 ms.
    expect(reads(zero.stdout, 2000)).toBeLessThanOrEqual(2000 / MIN_POLL_INTERVAL_MS + 2);
    expect(handles(home)[0].pollIntervalMs).toBe(MIN_POLL_INTERVAL_MS);
    expectError(huge, 7, /keeps running/);
    expect(huge.stderr.length).toBeLessThan(2000);
    expect(huge.stderr).not.toMatch(/TimeoutOverflowWarning/);
    // The broker follows the task on its own, its timer at the ceiling too (no spin: the floor and ceiling of the
    // one follow loop are test/engine/pacing.test.ts); the handle says the interval it keeps to.
    expect(handles(hugeHome)[0].pollIntervalMs).toBe(MAX_POLL_INTERVAL_MS);
  });
});
