// The engine's one timer for its watches' naps (src/tasks/alarms.ts), on a clock moved by hand: a lone alarm rings
// when asked, alarms due close together ring at most once a grain on one timer, never early; an earlier time
// asked re-arms it, a later one does not, and a cleared alarm stays quiet. The watches' own behaviour (polls at the
// server's pace, pushes deferring them) is tested against real servers elsewhere (engine-v2, v1-everything).
import { describe, expect, it } from "vitest";
import { ALARM_GRAIN_MS, Alarms } from "../src/tasks/alarms.js";

/** A clock whose time moves only by `advance`, which ends the sleeps it passes (in time order). */
function handClock(start = 1_000_000) {
  let now = start;
  const sleeps: Array<{ until: number; resolve: () => void }> = [];
  let armed = 0;
  return {
    get armed() {
      return armed;
    },
    /** Sleeps not yet ended: a timer that would hold the process open. */
    get pending() {
      return sleeps.length;
    },
    now: () => now,
    monotonic: () => now,
    sleep: (ms: number, signal?: AbortSignal) =>
      new Promise<void>((resolve) => {
        armed++;
        if (!(ms > 0)) return resolve();
        const sleep = { until: now + ms, resolve };
        sleeps.push(sleep);
        signal?.addEventListener("abort", () => (sleeps.splice(sleeps.indexOf(sleep), 1), resolve()), { once: true });
      }),
    async advance(ms: number) {
      const end = now + ms;
      for (;;) {
        sleeps.sort((a, b) => a.until - b.until);
        const next = sleeps[0];
        if (!next || next.until > end) break;
        sleeps.shift();
        now = next.until;
        next.resolve();
        for (let i = 0; i < 10; i++) await Promise.resolve();
      }
      now = end;
    },
  };
}

describe("alarms", () => {
  it("rings a lone alarm when asked, not earlier or later", async () => {
    const clock = handClock();
    const alarms = new Alarms(clock);
    const rings: number[] = [];
    const t0 = clock.now();
    const alarm = alarms.alarm(() => rings.push(clock.now() - t0));
    alarm.at(t0 + 1003);
    await clock.advance(1002);
    expect(rings).toEqual([]);
    await clock.advance(ALARM_GRAIN_MS);
    alarm.at(t0 + 1203);
    await clock.advance(1000);
    expect(rings).toEqual([1003, 1203]);
  });

  it("rings a thousand alarms spread over a second with a timer per grain, not one each", async () => {
    const clock = handClock();
    const alarms = new Alarms(clock);
    const t0 = clock.now();
    const late: number[] = [];
    for (let i = 0; i < 1000; i++) alarms.alarm(() => late.push(clock.now() - (t0 + 1 + i))).at(t0 + 1 + i);
    const before = clock.armed;
    await clock.advance(1000 + ALARM_GRAIN_MS);
    expect(late).toHaveLength(1000);
    expect(Math.min(...late)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...late)).toBeLessThanOrEqual(ALARM_GRAIN_MS);
    expect(clock.armed - before).toBeLessThanOrEqual(1000 / ALARM_GRAIN_MS + 1);
  });

  it("moves to an earlier time asked, keeps the first of two later ones, and stays quiet once cleared", async () => {
    const clock = handClock();
    const alarms = new Alarms(clock);
    const t0 = clock.now();
    const rings: string[] = [];
    const a = alarms.alarm(() => rings.push(`a ${clock.now() - t0}`));
    const b = alarms.alarm(() => rings.push(`b ${clock.now() - t0}`));
    const c = alarms.alarm(() => rings.push(`c ${clock.now() - t0}`));
    a.at(t0 + 5000);
    a.at(t0 + 100); // earlier: rings then
    b.at(t0 + 200);
    b.at(t0 + 9000); // later than asked: still rings at 200 (its owner asks again if it wants to wait on)
    c.at(t0 + 300);
    c.clear();
    await clock.advance(10_000);
    expect(rings).toEqual(["a 100", "b 200"]);
  });

  it("rings again when asked again from its own ring", async () => {
    const clock = handClock();
    const alarms = new Alarms(clock);
    const t0 = clock.now();
    let count = 0;
    const alarm = alarms.alarm(() => {
      if (++count < 3) alarm.at(clock.now() + 500);
    });
    alarm.at(t0 + 500);
    await clock.advance(2000);
    expect(count).toBe(3);
  });

  it("leaves no timer once every alarm has rung or been cleared (a command's process can exit)", async () => {
    const clock = handClock();
    const alarms = new Alarms(clock);
    const t0 = clock.now();
    const a = alarms.alarm(() => {});
    const b = alarms.alarm(() => {});
    a.at(t0 + 100);
    b.at(t0 + 30_000);
    await clock.advance(200);
    expect(clock.pending).toBe(1); // b's
    b.clear();
    expect(clock.pending).toBe(0);
    a.at(t0 + 60_000);
    a.clear();
    expect(clock.pending).toBe(0);
  });
});
