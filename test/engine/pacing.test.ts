// The watch's pace (src/tasks/watch.ts), on a fake clock and a scripted wire: reads at the server's pollInterval,
// within MIN_POLL_INTERVAL_MS and MAX_POLL_INTERVAL_MS (0, negative and 1e12 included), never faster than the user's
// floor, the first read at once or an interval after a known state, spread within the first interval for many tasks;
// pushes that postpone the polls by PUSH_GRACE intervals but never past the trust window (PUSH_TRUST_MS). Exact
// times: the reads came at t=0, 200, 400.
import { describe, expect, it } from "vitest";
import { MAX_POLL_INTERVAL_MS, MAX_TIMER_MS, MIN_POLL_INTERVAL_MS } from "../../src/limits.js";
import type { Snapshot } from "../../src/protocol/wire.js";
import { TaskEngine } from "../../src/tasks/engine.js";
import type { WatchOptions } from "../../src/tasks/watch.js";
import { FakeClock, fixedRandom } from "../helpers/fake-clock.js";
import { done, FakeWire, snap, type FakeWireOptions } from "../helpers/fake-wire.js";

function setup(options: FakeWireOptions & { random?: () => number } = {}) {
  const clock = new FakeClock();
  const wire = new FakeWire(clock, options);
  const engine = new TaskEngine(wire, clock, undefined, options.random ?? fixedRandom(0.5));
  /** Watches `id` to its end: each snapshot yielded, with its time. */
  const watch = async (id: string, watchOptions: WatchOptions = {}) => {
    const seen: Array<{ at: number; snapshot: Snapshot }> = [];
    const run = (async () => {
      for await (const snapshot of engine.watch(id, watchOptions)) seen.push({ at: clock.monotonic(), snapshot });
    })();
    await clock.runUntil(run);
    return seen;
  };
  return { clock, wire, engine, watch };
}

const working = (pollIntervalMs?: number, statusMessage?: string) =>
  snap("t1", { pollIntervalMs, ...(statusMessage ? { statusMessage } : {}) });

describe("polls at the server's pace", () => {
  it("reads at its pollInterval: the first at once, then one each 500 ms, and ends with the terminal read", async () => {
    const { wire, watch } = setup();
    wire.onGet("t1", working(500, "a"), working(500, "b"), working(500, "c"), done("t1"));
    const seen = await watch("t1", { push: false });
    expect(wire.times("getTask")).toEqual([0, 500, 1000, 1500]);
    expect(seen.map((s) => [s.at, s.snapshot.status, s.snapshot.statusMessage])).toEqual([
      [0, "working", "a"],
      [500, "working", "b"],
      [1000, "working", "c"],
      [1500, "completed", undefined],
    ]);
    wire.verify();
  });

  it("keeps to the newest interval the server gives", async () => {
    const { wire, watch } = setup();
    wire.onGet("t1", working(300), working(1000), working(250), done("t1"));
    await watch("t1", { push: false });
    expect(wire.times("getTask")).toEqual([0, 300, 1300, 1550]);
    wire.verify();
  });

  it("reads once a second when the server gives no interval", async () => {
    const { wire, watch } = setup();
    wire.onGet("t1", working(), working(), done("t1"));
    await watch("t1", { push: false });
    expect(wire.times("getTask")).toEqual([0, 1000, 2000]);
    wire.verify();
  });

  it("yields only what changed: the same status and message read again is not shown again", async () => {
    const { wire, watch } = setup();
    wire.onGet("t1", working(200, "same"), working(200, "same"), working(200, "same"), done("t1"));
    const seen = await watch("t1", { push: false });
    expect(seen.map((s) => s.at)).toEqual([0, 600]);
    expect(wire.times("getTask")).toHaveLength(4);
    wire.verify();
  });

  it("waits an interval before the first read when the state is known (the create reply)", async () => {
    const { wire, watch } = setup();
    wire.onGet("t1", done("t1"));
    await watch("t1", { push: false, initial: working(700) });
    expect(wire.times("getTask")).toEqual([700]);
    wire.verify();
  });

  it("spreads the first read of one of many tasks within the first interval (the random source's draw)", async () => {
    const { wire, watch } = setup({ random: fixedRandom(0.25) });
    wire.onGet("t1", working(1000), done("t1"));
    await watch("t1", { push: false, spread: true });
    // A quarter of the default interval (no state known): 250 ms, then the server's interval.
    expect(wire.times("getTask")).toEqual([250, 1250]);
    wire.verify();
  });
});

describe(`the interval's bounds: ${MIN_POLL_INTERVAL_MS} ms to ${MAX_POLL_INTERVAL_MS / 1000} s`, () => {
  it(`poll-zero: pollInterval 0 is read at the floor (${MIN_POLL_INTERVAL_MS} ms), not in a spin`, async () => {
    const { wire, watch } = setup();
    wire.onGet("t1", working(0), working(0), working(0), done("t1"));
    await watch("t1", { push: false });
    expect(wire.times("getTask")).toEqual([0, 200, 400, 600]);
    wire.verify();
  });

  it("poll-zero: a negative pollInterval (-1000) and one that is not a number are read at the floor too", async () => {
    const { wire, watch } = setup();
    wire.onGet("t1", working(-1000), working(Number.NaN), working(-Infinity), done("t1"));
    await watch("t1", { push: false });
    expect(wire.times("getTask")).toEqual([0, 200, 400, 600]);
    wire.verify();
  });

  it(`poll-huge: pollInterval 1e12 waits at the ceiling (${MAX_POLL_INTERVAL_MS / 1000} s): one timer, no overflow`, async () => {
    const { clock, wire, watch } = setup();
    wire.onGet("t1", working(1e12), working(1e12), done("t1"));
    await watch("t1", { push: false });
    expect(wire.times("getTask")).toEqual([0, MAX_POLL_INTERVAL_MS, 2 * MAX_POLL_INTERVAL_MS]);
    // Each wait asked of the clock is one timer's worth, and there are as few as the reads.
    expect(Math.max(...clock.asked.map((s) => s.ms))).toBe(MAX_POLL_INTERVAL_MS);
    expect(Math.max(...clock.asked.map((s) => s.ms))).toBeLessThan(MAX_TIMER_MS); // fake-clock
    expect(clock.asked).toHaveLength(2);
    wire.verify();
  });

  it("the user's floor (--poll) wins over a faster server, and not over a slower one", async () => {
    const { wire, watch } = setup();
    wire.onGet("t1", working(200), working(200), working(5000), done("t1"));
    await watch("t1", { push: false, floorMs: 700 });
    expect(wire.times("getTask")).toEqual([0, 700, 1400, 6400]);
    wire.verify();
  });

  it("the user's floor holds for the first read after a known state too", async () => {
    const { wire, watch } = setup();
    wire.onGet("t1", done("t1"));
    await watch("t1", { push: false, floorMs: 2000, initial: working(0) });
    expect(wire.times("getTask")).toEqual([2000]);
    wire.verify();
  });
});

describe("pushes postpone the polls", () => {
  it("a push is shown at once and moves the next read PUSH_GRACE (3) intervals after it", async () => {
    const { wire, watch } = setup();
    wire.onGet("t1", working(1000, "read"), done("t1"));
    wire.pushAt(500, working(1000, "pushed"));
    const seen = await watch("t1");
    expect(seen.map((s) => [s.at, s.snapshot.statusMessage ?? s.snapshot.status])).toEqual([
      [0, "read"],
      [500, "pushed"],
      [3500, "completed"],
    ]);
    expect(wire.times("getTask")).toEqual([0, 3500]);
    expect(wire.times("watchNotifications")).toEqual([0]);
    wire.verify();
  });

  it("with a confirmed subscription, polls come PUSH_GRACE intervals apart from the start", async () => {
    const { wire, watch } = setup({ pushConfirmed: true });
    wire.onGet("t1", working(1000, "a"), working(1000, "b"), done("t1"));
    await watch("t1");
    expect(wire.times("getTask")).toEqual([0, 3000, 6000]);
    wire.verify();
  });

  it("pushes that never stop still leave a read of our own within the trust window (PUSH_TRUST_MS, drawn)", async () => {
    // The trust window is 30 s (one task): the first drawn within 10 % to 110 % of it (0.5: 18 s), the next ones
    // 90 % to 110 % (0.5: 30 s). A push every second would otherwise postpone the reads for ever.
    const { wire, watch } = setup({ random: fixedRandom(0.5) });
    wire.onGet("t1", working(1000, "read 0"), working(1000, "read 1"), working(1000, "read 2"));
    for (let at = 500; at < 50_000; at += 1000) wire.pushAt(at, working(1000, `push ${at}`));
    wire.pushAt(50_500, done("t1"));
    const seen = await watch("t1");
    expect(wire.times("getTask")).toEqual([0, 18_000, 48_000]);
    // Every push shown as it came, the terminal one (with its result) ending the watch without a read.
    expect(seen.filter((s) => s.snapshot.statusMessage?.startsWith("push"))).toHaveLength(50);
    expect(seen.at(-1)).toMatchObject({ at: 50_500, snapshot: { status: "completed" } });
    wire.verify();
  });

  it("a terminal push without its result is read at once for it", async () => {
    const { wire, watch } = setup();
    wire.onGet("t1", working(5000), done("t1", "the result"));
    wire.pushAt(1200, snap("t1", { status: "completed" }));
    const seen = await watch("t1");
    expect(wire.times("getTask")).toEqual([0, 1200]);
    expect(seen.at(-1)!.snapshot.result).toEqual({ content: [{ type: "text", text: "the result" }] });
    wire.verify();
  });

  it("with pushes off (MCP_TASK_PUSH=off) nothing is subscribed and the pace is the server's", async () => {
    const { wire, watch } = setup({ pushConfirmed: true });
    wire.onGet("t1", working(400), done("t1"));
    await watch("t1", { push: false });
    expect(wire.times("watchNotifications")).toEqual([]);
    expect(wire.times("getTask")).toEqual([0, 400]);
    wire.verify();
  });
});
