// The tracker's batched handle writes (src/tasks/tracker.ts) on the fake clock: a message-only change is kept in
// memory and written HANDLE_BATCH_MS after the first change of its batch, not a millisecond before; many tasks
// batching at once are spread to HANDLE_BATCH_WRITES_PER_S writes a second; a new status is written at once with
// what was pending. And a command following a server that changes its message on every read (hostile poll-flip)
// writes the handle a counted number of times, not once per read.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { HANDLE_BATCH_MS, HANDLE_BATCH_WRITES_PER_S } from "../../src/limits.js";
import type { Snapshot, Wire } from "../../src/protocol/wire.js";
import { HandleStore } from "../../src/store/handles.js";
import { Tracker, type TrackedTask } from "../../src/tasks/tracker.js";
import { tempHome } from "../helpers/cli.js";
import { FakeClock, settle } from "../helpers/fake-clock.js";
import { FAKE_URL, startFake } from "../helpers/fake-run.js";
import { created, done, FakeWire, snap, tool } from "../helpers/fake-wire.js";

const wire = {
  resumeToken: () => ({ generation: "v2", protocolVersion: "2026-07-28", serverName: "test" }),
} as unknown as Wire;
const server = { name: "test", descriptor: { transport: "http" as const, url: "http://127.0.0.1:1/mcp" } };
const working = (taskId: string, statusMessage: string): Snapshot =>
  snap(taskId, { statusMessage, pollIntervalMs: 1000 });

async function setup() {
  const clock = new FakeClock();
  const store = new HandleStore(tempHome());
  const tracker = new Tracker(store, clock);
  const saved = (task: TrackedTask) => store.load(task.stem)?.last.statusMessage;
  return { clock, store, tracker, saved };
}

describe("batched handle writes on the fake clock", () => {
  it(`writes a message-only change ${HANDLE_BATCH_MS} ms after the batch's first change, with what followed it`, async () => {
    const { clock, tracker, saved } = await setup();
    const task = await tracker.start(server, wire, "slow", {}, working("t1", "0"));
    task.observe(working("t1", "1"));
    await clock.advanceTo(3000);
    task.observe(working("t1", "2"));
    await clock.advanceTo(HANDLE_BATCH_MS - 1);
    expect(saved(task)).toBe("0");
    expect(task.handle.last.statusMessage).toBe("2");
    await clock.advanceTo(HANDLE_BATCH_MS);
    expect(saved(task)).toBe("2");
    // The next change starts a new batch, from its own time.
    await clock.advanceTo(6000);
    task.observe(working("t1", "3"));
    await clock.advanceTo(6000 + HANDLE_BATCH_MS - 1);
    expect(saved(task)).toBe("2");
    await clock.advanceTo(6000 + HANDLE_BATCH_MS);
    expect(saved(task)).toBe("3");
    expect(clock.pending).toBe(0);
  });

  it(`spreads many tasks' batches to ${HANDLE_BATCH_WRITES_PER_S} writes a second`, async () => {
    const { clock, tracker, saved } = await setup();
    const count = HANDLE_BATCH_WRITES_PER_S * 10;
    const tasks: TrackedTask[] = [];
    for (let i = 0; i < count; i++) tasks.push(await tracker.start(server, wire, "slow", {}, working(`t-${i}`, "0")));
    for (const task of tasks) task.observe(working(task.taskId, "1"));
    // The k-th batch (from 1) waits max(HANDLE_BATCH_MS, k / HANDLE_BATCH_WRITES_PER_S s).
    const due = tasks.map((_, i) => Math.max(HANDLE_BATCH_MS, ((i + 1) * 1000) / HANDLE_BATCH_WRITES_PER_S));
    expect(clock.asked.map((s) => s.ms)).toEqual(due);
    await clock.advanceTo(HANDLE_BATCH_MS - 1);
    expect(tasks.filter((task) => saved(task) === "1")).toHaveLength(0);
    await clock.advanceTo(HANDLE_BATCH_MS);
    // Those whose batch waits the least: HANDLE_BATCH_WRITES_PER_S * HANDLE_BATCH_MS / 1000 of them.
    expect(tasks.filter((task) => saved(task) === "1")).toHaveLength(
      (HANDLE_BATCH_WRITES_PER_S * HANDLE_BATCH_MS) / 1000,
    );
    await clock.advanceTo(HANDLE_BATCH_MS + 1000);
    expect(tasks.filter((task) => saved(task) === "1")).toHaveLength(
      (HANDLE_BATCH_WRITES_PER_S * (HANDLE_BATCH_MS + 1000)) / 1000,
    );
    await clock.advanceTo(due.at(-1)! - 1);
    expect(saved(tasks.at(-1)!)).toBe("0");
    await clock.advanceTo(due.at(-1)!);
    expect(tasks.every((task) => saved(task) === "1")).toBe(true);
  });

  it("writes a new status at once, with the message change pending before it, and drops the batch's timer", async () => {
    const { clock, tracker, store } = await setup();
    const task = await tracker.start(server, wire, "slow", {}, working("t1", "0"));
    task.observe(working("t1", "1"));
    await clock.advanceTo(100);
    expect(clock.pending).toBe(1);
    await task.observe(snap("t1", { status: "input_required", statusMessage: "asks", pollIntervalMs: 1000 }));
    expect(clock.pending).toBe(0);
    expect(store.load(task.stem)!.history.map((entry) => entry.statusMessage)).toEqual(["0", "1", "asks"]);
  });
});

describe("a command following a message that changes on every read (poll-flip)", () => {
  it("writes the handle at the start, once per batch and at the end: 4 index lines for 30 reads", async () => {
    const clock = new FakeClock();
    const flips = new FakeWire(clock, { tools: [tool("flip")] });
    const home = tempHome();
    flips.onCall(created("t1", { pollIntervalMs: 200, statusMessage: "read 0" }));
    // Reads every 200 ms for 6 s, each with a new message (and an interval that flips), then the end.
    for (let i = 1; i < 30; i++)
      flips.onGet(
        "t1",
        snap("t1", { pollIntervalMs: i % 2 ? 200 : 201, statusMessage: `read ${i} ${"x".repeat(4000)}` }),
      );
    flips.onGet("t1", done("t1"));
    const run = startFake(["call", "flip", "-s", FAKE_URL], {
      home,
      clock,
      wire: flips,
      env: { MCP_TASK_PUSH: "off" },
      drive: false,
    });
    const index = () =>
      readFileSync(join(home, "tasks", ".index.ndjson"), "utf8")
        .split("\n")
        .filter(Boolean);
    await settle();
    expect(index()).toHaveLength(1);
    // The first change at 200: its batch is written at 200 + HANDLE_BATCH_MS, not before.
    await clock.advanceTo(200 + HANDLE_BATCH_MS - 1);
    expect(index()).toHaveLength(1);
    await clock.advanceTo(200 + HANDLE_BATCH_MS);
    expect(index()).toHaveLength(2);
    expect(await clock.runUntil(run.exited)).toBe(0);
    expect(flips.times("getTask")).toHaveLength(30);
    // The end: the completed status (with the batch pending since 5200) and the outcome.
    expect(index()).toHaveLength(4);
    flips.verify();
  });
});
