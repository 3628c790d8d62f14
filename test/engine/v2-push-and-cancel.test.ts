// The engine on a V2 wire, in-process, against our V2 test server: push notifications, cancel, unknown ids.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemClock } from "../../src/context.js";
import { TaskNotFoundError, UsageError } from "../../src/errors.js";
import { READS_AT_ONCE } from "../../src/limits.js";
import { connect } from "../../src/protocol/connect.js";
import type { Snapshot, Wire } from "../../src/protocol/wire.js";
import { TaskEngine } from "../../src/tasks/engine.js";
import { preparedAnswers } from "../../src/tasks/input.js";
import { startV2Http, type RunningServer } from "../helpers/servers.js";

let server: RunningServer;
let wire: Wire;
let engine: TaskEngine;

beforeAll(async () => {
  // A slow poll interval (5 s), so that anything seen sooner than that came by push.
  server = await startV2Http("--poll-interval", "5000");
  wire = await connect({ transport: "http", url: server.url }, { env: {} });
  engine = new TaskEngine(wire, systemClock, preparedAnswers({}));
});
afterAll(async () => {
  await wire?.close();
  await server?.stop();
});

async function stats(): Promise<Record<string, number>> {
  const started = await engine.call("_stats", {}, { task: "auto" });
  if (started.kind !== "result") throw new Error("_stats made a task");
  return JSON.parse(String(started.outcome.result!.content[0].text));
}

describe("push notifications (subscriptions/listen + notifications/tasks)", () => {
  it("shows status changes as they happen and ends without waiting for the next poll", async () => {
    const before = (await stats())["tasks/get"] ?? 0;
    const started = await engine.call("task_slow", { ms: 3000 }, { task: "auto" });
    expect(started.kind).toBe("task");
    if (started.kind !== "task") return;
    const seen: Snapshot[] = [];
    for await (const snapshot of engine.watch(started.snapshot.taskId)) seen.push(snapshot);
    // task_slow changes its status message every second: those changes arrive between polls 5 s apart.
    const messages = new Set(seen.filter((s) => s.status === "working").map((s) => s.statusMessage));
    expect(messages.size).toBeGreaterThanOrEqual(2);
    expect(seen.at(-1)!.status).toBe("completed");
    // The first read, and the early read that fetched the result after the terminal push: no extra polls (a
    // poll-only client would have read at 5 s for the end). The timing itself: test/engine/pacing.test.ts.
    const gets = (await stats())["tasks/get"] - before;
    expect(gets).toBeLessThanOrEqual(2);
    // More was seen than was read: the rest came by push.
    expect(seen.length).toBeGreaterThan(gets);
  });
});

describe("cancel and unknown tasks", () => {
  it("cancels a running task; the server's own report says cancelled", async () => {
    const started = await engine.call("task_slow", { ms: 30000 }, { task: "auto" });
    if (started.kind !== "task") throw new Error("expected a task");
    const after = await engine.cancel(started.snapshot.taskId);
    expect(after.status).toBe("cancelled");
    const final = await engine.final(after);
    expect(final.status).toBe("cancelled");
  });

  it("turns an unknown id into TaskNotFoundError", async () => {
    await expect(wire.getTask("00000000-0000-0000-0000-000000000000")).rejects.toBeInstanceOf(TaskNotFoundError);
  });

  it("says plainly that V2 has no tasks/list", async () => {
    await expect(wire.listTasks()).rejects.toBeInstanceOf(UsageError);
  });
});

describe("many tasks read at once", () => {
  it("reads 100 tasks together over at most READS_AT_ONCE connections, and a read given up leaves its turn", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 100; i++) {
      const started = await engine.call("task_slow", { ms: 60_000 }, { task: "auto" });
      if (started.kind !== "task") throw new Error("expected a task");
      ids.push(started.snapshot.taskId);
    }
    // Sockets this process has open, counted each turn of the event loop while the reads are out: each request in
    // flight over HTTP holds a connection of its own.
    const sockets = () => process.getActiveResourcesInfo().filter((kind) => kind === "TCPSocketWrap").length;
    const before = sockets();
    let most = before;
    let reading = true;
    const count = () => {
      most = Math.max(most, sockets());
      if (reading) setImmediate(count);
    };
    count();
    // One read given up while it waits its turn: it fails with its own reason and the others still come.
    const giveUp = new AbortController();
    const reads = ids.map((id, i) => wire.getTask(id, i === 99 ? giveUp.signal : undefined));
    giveUp.abort(new Error("given up"));
    const settled = await Promise.allSettled(reads);
    reading = false;
    expect(settled.slice(0, 99).every((r) => r.status === "fulfilled" && r.value.status === "working")).toBe(true);
    expect(settled[99]).toMatchObject({ status: "rejected", reason: { message: "given up" } });
    // 100 at once took 99 connections. Now READS_AT_ONCE (16) more than were open before, or a few more where a
    // response's stream ends after the next read has gone out (15 seen here; the bound allows for a loaded machine).
    expect(most - before).toBeLessThanOrEqual(2 * READS_AT_ONCE);
    expect(most - before).toBeGreaterThan(1);
    await Promise.all(ids.map((id) => engine.cancel(id).catch(() => {})));
  }, 60_000);
});
