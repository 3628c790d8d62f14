// The engine's one timer for its watches' naps (src/tasks/alarms.ts), on a clock moved by hand: a lone alarm rings
// when asked, alarms due close together ring at most once a grain on one timer, never early; an earlier time
// asked re-arms it, a later one does not, and a cleared alarm stays quiet. The watches' own behaviour on it (polls at
// the server's pace, pushes deferring them) is test/engine/pacing.test.ts, on the same fake clock.
import { describe, expect, it } from "vitest";
import { ALARM_GRAIN_MS, Alarms } from "../../src/tasks/alarms.js";
import { FakeClock } from "../helpers/fake-clock.js";

/** A fake clock (test/helpers/fake-clock.ts) with `armed`: how many timers were asked of it. */
function handClock() {
  const clock = new FakeClock();
  return Object.defineProperty(clock, "armed", { get: () => clock.asked.length }) as FakeClock & {
    readonly armed: number;
  };
}

describe("alarms", () => {
  it("rings a lone alarm when asked, not earlier or later", async () => {
    const clock = handClock();
    const alarms = new Alarms(clock);
    const rings: number[] = [];
    const t0 = clock.monotonic();
    const alarm = alarms.alarm(() => rings.push(clock.monotonic() - t0));
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
    const t0 = clock.monotonic();
    const late: number[] = [];
    for (let i = 0; i < 1000; i++) alarms.alarm(() => late.push(clock.monotonic() - (t0 + 1 + i))).at(t0 + 1 + i);
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
    const t0 = clock.monotonic();
    const rings: string[] = [];
    const a = alarms.alarm(() => rings.push(`a ${clock.monotonic() - t0}`));
    const b = alarms.alarm(() => rings.push(`b ${clock.monotonic() - t0}`));
    const c = alarms.alarm(() => rings.push(`c ${clock.monotonic() - t0}`));
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
    const t0 = clock.monotonic();
    let count = 0;
    const alarm = alarms.alarm(() => {
      if (++count < 3) alarm.at(clock.monotonic() + 500);
    });
    alarm.at(t0 + 500);
    await clock.advance(2000);
    expect(count).toBe(3);
  });

  it("leaves no timer once every alarm has rung or been cleared (a command's process can exit)", async () => {
    const clock = handClock();
    const alarms = new Alarms(clock);
    const t0 = clock.monotonic();
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
