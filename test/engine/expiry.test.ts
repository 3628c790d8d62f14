// A task's ttl on the fake clock (src/tasks/expiry.ts, as `list` and `get` show it): expired exactly once the ttl
// has passed from when it starts counting (the server's createdAt where believable, else when mcp-task first saw
// the task), never for an unlimited one or one that ended; a createdAt far in the future does not keep a task alive.
// The tasks are made by `call --detach` on a scripted wire; the listing reads only the store.
import { describe, expect, it } from "vitest";
import { MAX_CLOCK_SKEW_MS } from "../../src/limits.js";
import type { Snapshot } from "../../src/protocol/wire.js";
import { tempHome } from "../helpers/cli.js";
import { FakeClock, WALL_START } from "../helpers/fake-clock.js";
import { FAKE_URL, runFake } from "../helpers/fake-run.js";
import { created, done, FakeWire, tool } from "../helpers/fake-wire.js";

function setup() {
  const clock = new FakeClock();
  const wire = new FakeWire(clock, { tools: [tool("slow")] });
  const home = tempHome();
  const options = { home, clock, wire };
  /** Starts a task (detached) with the create reply's fields. */
  const start = async (id: string, fields: Partial<Snapshot>) => {
    wire.onCall(created(id, fields));
    const run = await runFake(["call", "slow", "--detach", "-s", FAKE_URL], options);
    expect(run.code, run.stderr).toBe(0);
  };
  /** `list --json` now: each task's expired, by id. */
  const expired = async () => {
    const run = await runFake(["list", "--json"], options);
    expect(run.code, run.stderr).toBe(0);
    const rows = JSON.parse(run.stdout) as Array<{ taskId: string; expired: boolean }>;
    return Object.fromEntries(rows.map((row) => [row.taskId, row.expired]));
  };
  return { clock, wire, options, start, expired };
}

const iso = (ms: number) => new Date(ms).toISOString();

describe("ttl and expiry", () => {
  it("a task is expired from exactly its ttl after the server's createdAt, not a millisecond before", async () => {
    const { clock, start, expired, wire } = setup();
    await start("t1", { ttlMs: 60_000, createdAt: iso(WALL_START) });
    await clock.advanceTo(60_000);
    expect(await expired()).toEqual({ t1: false });
    await clock.advanceTo(60_001);
    expect(await expired()).toEqual({ t1: true });
    wire.verify();
  });

  it("counts from mcp-task's first sight when the server's createdAt is not believable (year 9999, or past the skew)", async () => {
    const { clock, start, expired, wire } = setup();
    await start("future", { ttlMs: 1000, createdAt: "9999-01-01T00:00:00.000Z" });
    await start("skewed", { ttlMs: 1000, createdAt: iso(WALL_START + MAX_CLOCK_SKEW_MS + 1) });
    await start("near", { ttlMs: 1000, createdAt: iso(WALL_START + 500) });
    await clock.advanceTo(1000);
    expect(await expired()).toEqual({ future: false, skewed: false, near: false });
    await clock.advanceTo(1001);
    // `near`'s createdAt is believed (within the skew): its ttl ends at 1500.
    expect(await expired()).toEqual({ future: true, skewed: true, near: false });
    await clock.advanceTo(1501);
    expect(await expired()).toEqual({ future: true, skewed: true, near: true });
    wire.verify();
  });

  it("a task without a ttl (unlimited) or one that ended never expires", async () => {
    const { clock, start, expired, wire, options } = setup();
    await start("unlimited", { ttlMs: null, createdAt: iso(WALL_START) });
    await start("ended", { ttlMs: 1000, createdAt: iso(WALL_START), pollIntervalMs: 200 });
    wire.onGet("ended", done("ended"));
    expect((await runFake(["watch", "ended"], options)).code).toBe(0);
    await clock.advanceTo(3_600_000);
    expect(await expired()).toEqual({ unlimited: false, ended: false });
    wire.verify();
  });

  it("the wall clock stepping forward expires a task; monotonic time alone does not decide it", async () => {
    const { clock, start, expired, wire } = setup();
    await start("t1", { ttlMs: 10_000, createdAt: iso(WALL_START) });
    clock.stepWall(10_001);
    expect(clock.monotonic()).toBe(0);
    expect(await expired()).toEqual({ t1: true });
    wire.verify();
  });
});
