// The watch's backoff and give-up (src/tasks/watch.ts), on a fake clock and a scripted wire: transient failures
// retried after half the ceiling plus up to half again (the jitter: the context's random source), the ceiling
// doubling from 1 s up to MAX_BACKOFF_MS (30 s), never below the user's floor; a success starts over; past giveUpMs
// of failures the failure is thrown (exit 4), and a failure that is not transient at once.
import { describe, expect, it } from "vitest";
import { ServerError } from "../../src/errors.js";
import type { Snapshot } from "../../src/protocol/wire.js";
import { TaskEngine } from "../../src/tasks/engine.js";
import type { WatchOptions } from "../../src/tasks/watch.js";
import { FakeClock, fixedRandom, seededRandom } from "../helpers/fake-clock.js";
import { done, FakeWire, snap, transient } from "../helpers/fake-wire.js";

function setup(random: () => number = fixedRandom(0.5)) {
  const clock = new FakeClock();
  const wire = new FakeWire(clock);
  const engine = new TaskEngine(wire, clock, undefined, random);
  const retries: Array<{ at: number; ms: number; message: string }> = [];
  const watch = async (watchOptions: WatchOptions = {}) => {
    const seen: Snapshot[] = [];
    const run = (async () => {
      for await (const snapshot of engine.watch("t1", {
        push: false,
        onRetry: (error, ms) => retries.push({ at: clock.monotonic(), ms, message: error.message }),
        ...watchOptions,
      }))
        seen.push(snapshot);
    })();
    await clock.runUntil(run);
    return seen;
  };
  return { clock, wire, watch, retries };
}

const working = snap("t1", { pollIntervalMs: 1000 });
const failures = (n: number) => Array.from({ length: n }, () => transient());

describe("backoff on transient failures", () => {
  it("waits 750, 1500, 3000 ms (ceilings of 1, 2, 4 s; jitter 0.5) and goes back to the server's pace once a read comes", async () => {
    const { wire, watch, retries } = setup();
    wire.onGet("t1", ...failures(3), working, done("t1"));
    const seen = await watch();
    expect(wire.times("getTask")).toEqual([0, 750, 2250, 5250, 6250]);
    expect(retries.map((r) => [r.at, r.ms])).toEqual([
      [0, 750],
      [750, 1500],
      [2250, 3000],
    ]);
    expect(retries[0].message).toBe("connection refused");
    expect(seen.map((s) => s.status)).toEqual(["working", "completed"]);
    wire.verify();
  });

  it("the jitter spans half the ceiling (draw 0) to the whole of it (draw near 1)", async () => {
    const low = setup(fixedRandom(0));
    low.wire.onGet("t1", ...failures(3), done("t1"));
    await low.watch();
    expect(low.retries.map((r) => r.ms)).toEqual([500, 1000, 2000]);
    low.wire.verify();
    const high = setup(fixedRandom(0.999));
    high.wire.onGet("t1", ...failures(3), done("t1"));
    await high.watch();
    expect(high.retries.map((r) => r.ms)).toEqual([1000, 1999, 3998]);
    high.wire.verify();
  });

  it("the ceiling stops at MAX_BACKOFF_MS (30 s): 22.5 s with a draw of 0.5, however many failures", async () => {
    const { wire, watch, retries } = setup();
    wire.onGet("t1", ...failures(9), done("t1"));
    await watch({ giveUpMs: 3_600_000 });
    expect(retries.map((r) => r.ms)).toEqual([750, 1500, 3000, 6000, 12_000, 22_500, 22_500, 22_500, 22_500]);
    wire.verify();
  });

  it("draws its jitter from the context's source: the same seed, the same waits", async () => {
    const waits = async (seed: number) => {
      const run = setup(seededRandom(seed));
      run.wire.onGet("t1", ...failures(5), done("t1"));
      await run.watch();
      run.wire.verify();
      return run.retries.map((r) => r.ms);
    };
    const first = await waits(42);
    expect(await waits(42)).toEqual(first);
    expect(await waits(7)).not.toEqual(first);
    // Each within its ceiling's half and whole.
    first.forEach((ms, i) => {
      const ceiling = 500 * 2 ** (i + 1);
      expect(ms).toBeGreaterThanOrEqual(ceiling / 2);
      expect(ms).toBeLessThanOrEqual(ceiling);
    });
  });

  it("never retries sooner than the user's floor", async () => {
    const { wire, watch, retries } = setup();
    wire.onGet("t1", ...failures(3), done("t1"));
    await watch({ floorMs: 2000 });
    expect(retries.map((r) => r.ms)).toEqual([2000, 2000, 3000]);
    wire.verify();
  });

  it("a read that comes starts the backoff over", async () => {
    const { wire, watch } = setup();
    wire.onGet("t1", transient(), transient(), working, transient(), done("t1"));
    await watch();
    // 0 fails, 750 fails, 2250 reads, 3250 fails (the first failure again: 750), 4000.
    expect(wire.times("getTask")).toEqual([0, 750, 2250, 3250, 4000]);
    wire.verify();
  });
});

describe("giving up", () => {
  it("throws the failure once failures have lasted past giveUpMs, counted from the first", async () => {
    const { clock, wire, watch, retries } = setup();
    // Failing from t=0: tries at 0, 750, 2250, 5250 (5.25 s: not past 10 s), 11250 (past it): thrown then.
    wire.onGet("t1", ...failures(5));
    const error = await watch({ giveUpMs: 10_000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServerError);
    expect((error as ServerError).transient).toBe(true);
    expect(clock.monotonic()).toBe(11_250);
    expect(wire.times("getTask")).toEqual([0, 750, 2250, 5250, 11_250]);
    expect(retries).toHaveLength(4);
    wire.verify();
  });

  it("counts the window from the first failure after the last read, not from the start", async () => {
    const { clock, wire, watch } = setup();
    // Reads at 0 and 1000, failing from 2000: the window of 3 s ends after 5000, tries at 2000, 2750, 4250, 7250.
    wire.onGet("t1", working, working, ...failures(4));
    await expect(watch({ giveUpMs: 3000 })).rejects.toBeInstanceOf(ServerError);
    expect(wire.times("getTask")).toEqual([0, 1000, 2000, 2750, 4250, 7250]);
    expect(clock.monotonic()).toBe(7250);
    wire.verify();
  });

  it("a failure at exactly giveUpMs is still retried; the window is passed only after it", async () => {
    const { wire, watch } = setup(fixedRandom(0));
    // Draw 0: waits 500, 1000, 2000: tries at 0, 500, 1500, 3500. giveUpMs 1500: 1500 is not past it.
    wire.onGet("t1", ...failures(4));
    await expect(watch({ giveUpMs: 1500 })).rejects.toBeInstanceOf(ServerError);
    expect(wire.times("getTask")).toEqual([0, 500, 1500, 3500]);
    wire.verify();
  });

  it("a failure that is not transient ends the watch at once, without a retry", async () => {
    const { clock, wire, watch, retries } = setup();
    wire.onGet("t1", working, new ServerError("the server broke"));
    await expect(watch()).rejects.toThrow("the server broke");
    expect(wire.times("getTask")).toEqual([0, 1000]);
    expect(retries).toEqual([]);
    expect(clock.monotonic()).toBe(1000);
    wire.verify();
  });
});
