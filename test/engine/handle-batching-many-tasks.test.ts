// Batched handle writes (src/tasks/tracker.ts): message-only changes of many tasks wait longer the more tasks batch
// (HANDLE_BATCH_WRITES_PER_S), and a terminal status is written at once with whatever was pending. No server: the
// tracker sees only snapshots, made here by hand; the clock (a FakeClock never moved) ends no sleep, so that only what
// the tracker writes at once (or on flush) reaches the files. The batches' timing on a moving clock:
// test/engine/handle-batching.test.ts.
import { describe, expect, it } from "vitest";
import { HandleStore } from "../../src/store/handles.js";
import { Tracker, type TrackedTask } from "../../src/tasks/tracker.js";
import type { Snapshot, Wire } from "../../src/protocol/wire.js";
import {
  HANDLE_BATCH_MS,
  HANDLE_BATCH_WRITES_PER_S,
  MAX_HISTORY_ENTRIES,
  MAX_HISTORY_MESSAGES,
} from "../../src/limits.js";
import { trimHistory } from "../../src/tasks/handle-changes.js";
import type { HistoryEntry } from "../../src/model.js";
import { tempHome } from "../helpers/cli.js";
import { FakeClock } from "../helpers/fake-clock.js";

/** A fake clock never moved: its sleeps end only when aborted (`asked`: the waits asked of it). */
const heldClock = () => new FakeClock();

const wire = {
  resumeToken: () => ({ generation: "v2", protocolVersion: "2026-07-28", serverName: "test" }),
} as unknown as Wire;
const server = { name: "test", descriptor: { transport: "http" as const, url: "http://127.0.0.1:1/mcp" } };
const snapshot = (taskId: string, status: Snapshot["status"], statusMessage: string): Snapshot => ({
  taskId,
  status,
  statusMessage,
  pollIntervalMs: 1000,
  inputRequests: [],
});

describe("batched handle writes", () => {
  it("spread many tasks' message changes out and never lose a terminal status", async () => {
    const home = tempHome();
    const store = new HandleStore(home);
    const clock = heldClock();
    const tracker = new Tracker(store, clock);
    const count = HANDLE_BATCH_WRITES_PER_S * 10; // enough that the last ones wait past HANDLE_BATCH_MS
    const tasks: TrackedTask[] = [];
    for (let i = 0; i < count; i++)
      tasks.push(await tracker.start(server, wire, "slow", {}, snapshot(`t-${i}`, "working", "0 s")));
    for (const task of tasks) await task.observe(snapshot(task.taskId, "working", "1 s"));
    // Kept in memory, not written yet; the later a task's batch starts, the longer it waits.
    expect(tasks[0].handle.last.statusMessage).toBe("1 s");
    expect(store.load(tasks[0].stem)?.last.statusMessage).toBe("0 s");
    expect(clock.asked[0].ms).toBe(HANDLE_BATCH_MS);
    expect(clock.asked.at(-1)!.ms).toBe((count * 1000) / HANDLE_BATCH_WRITES_PER_S);

    // A terminal status is written at once, with the message change still pending before it.
    const last = tasks.at(-1)!;
    await last.observe(snapshot(last.taskId, "working", "2 s"));
    await last.observe(snapshot(last.taskId, "completed", "done"));
    const saved = store.load(last.stem)!;
    expect(saved.last.status).toBe("completed");
    expect(saved.history.map((entry) => entry.statusMessage)).toEqual(["0 s", "1 s", "2 s", "done"]);

    // What is still pending is written by a flush (the dashboard's close).
    await Promise.all(tasks.map((task) => task.flush()));
    expect(store.load(tasks[0].stem)?.last.statusMessage).toBe("1 s");

    // A batch writes what its newest observation says, a ttl that became unlimited (null) included.
    const first = tasks[0];
    await first.observe({ ...snapshot(first.taskId, "working", "2 s"), ttlMs: 60_000 });
    await first.observe({ ...snapshot(first.taskId, "working", "3 s"), ttlMs: null });
    await first.observe(snapshot(first.taskId, "working", "4 s"));
    await first.flush();
    expect(store.load(first.stem)).toMatchObject({ ttlMs: null, last: { statusMessage: "4 s" } });
  });
});

describe("a handle's history", () => {
  it("keeps every status change and only the newest message-only changes, written and in memory", async () => {
    const store = new HandleStore(tempHome());
    const tracker = new Tracker(store, heldClock());
    const task = await tracker.start(server, wire, "slow", {}, snapshot("t-h", "working", "0 s"));
    for (let i = 1; i <= 150; i++) await task.observe(snapshot("t-h", "working", `${i} s`));
    // Not written yet (the clock's sleeps never end): only the changes that can still show are held.
    expect(store.load(task.stem)?.history).toHaveLength(1);
    const held = (task as unknown as { observed: { entries: unknown[] } }).observed;
    expect(held.entries).toHaveLength(MAX_HISTORY_MESSAGES);
    await task.observe(snapshot("t-h", "input_required", "asks"));
    for (let i = 1; i <= 5; i++) await task.observe(snapshot("t-h", "input_required", `asks ${i}`));
    await task.observe(snapshot("t-h", "completed", "done"));
    const saved = store.load(task.stem)!;
    for (const history of [saved.history, task.handle.history]) {
      expect(history.map((entry) => entry.status)).toEqual([
        "working",
        ...Array(MAX_HISTORY_MESSAGES - 5).fill("working"),
        "input_required",
        ...Array(5).fill("input_required"),
        "completed",
      ]);
      // The first entry, then the newest messages: the oldest message-only entries went first.
      expect(history[0].statusMessage).toBe("0 s");
      expect(history[1].statusMessage).toBe(`${150 - (MAX_HISTORY_MESSAGES - 5) + 1} s`);
      expect(history.at(-2)?.statusMessage).toBe("asks 5");
    }
  });

  it("keeps a history within both bounds as entries come one at a time, the first entry and the newest status change kept", () => {
    // Three message changes, then a status change, 200 times: both bounds are crossed, each many times.
    const history: HistoryEntry[] = [{ status: "working", at: "0" }];
    for (let i = 1; i <= 800; i++) {
      const status =
        i % 4 === 0 ? (history.at(-1)!.status === "working" ? "input_required" : "working") : history.at(-1)!.status;
      history.push({ status, statusMessage: `m${i}`, at: String(i) });
      trimHistory(history);
      const messages = history.filter((entry, at) => at > 0 && history[at - 1].status === entry.status).length;
      expect(messages).toBeLessThanOrEqual(MAX_HISTORY_MESSAGES);
      expect(history.length).toBeLessThanOrEqual(MAX_HISTORY_ENTRIES);
      expect(history[0].at).toBe("0");
      // A status change is what a history is for: the newest one always stays (a message alone may go, when every
      // other entry is a status change; the handle's last state still has it).
      if (i % 4 === 0) expect(history.at(-1)!.at).toBe(String(i));
    }
    expect(history.length).toBe(MAX_HISTORY_ENTRIES);
  });
});
