// The dashboard's model against a real V2 server: it follows saved tasks, queues their questions, sends answers,
// records outcomes, and starts new calls.
import { afterAll, beforeAll, expect, it } from "vitest";
import { DashboardModel } from "../../src/ui/model.js";
import type { DashboardState } from "../../src/ui/state.js";
import { events } from "../helpers/cli.js";
import { runInProcess, testContext } from "../helpers/context.js";
import { startV2Http, type RunningServer } from "../helpers/servers.js";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { fileStem } from "../../src/store/handle-file.js";
import { stampedStore } from "../helpers/large-store.js";
import { until as waitFor } from "../helpers/until.js";

let server: RunningServer;
beforeAll(async () => {
  server = await startV2Http();
});
afterAll(async () => {
  await server?.stop();
});

/** The model's state once `test` holds of it; the bound is hang-only, and its error shows the rows as they were. */
async function until(
  model: DashboardModel,
  test: (s: DashboardState) => boolean,
  hangMs = 30_000,
): Promise<DashboardState> {
  try {
    return await waitFor(() => test(model.getState()) && model.getState(), { hangMs, everyMs: 50, what: "the state" });
  } catch (error) {
    const rows = model.getState().rows.map((r) => [r.summary.tool, r.summary.status, r.connection, r.error]);
    throw new Error(`${(error as Error).message}; state: ${JSON.stringify(rows)}`);
  }
}

it("follows saved tasks, asks their questions, and records the outcome", async () => {
  const ctx = await testContext();
  const home = ctx.home;
  const detach = async (...args: string[]) =>
    events((await runInProcess(["call", ...args, "--detach", "--json", "-s", server.url], { home })).stdout)[0]
      .taskId as string;
  const asking = await detach("task_input_once", "ms=100");
  const quick = await detach("task_complete", "ms=300");
  const model = new DashboardModel(ctx);
  await model.start();
  try {
    expect(model.getState().rows).toHaveLength(2);
    const withQuestion = await until(model, (s) => s.questions.length === 1);
    const question = withQuestion.questions[0];
    expect(question.taskId).toBe(asking);
    expect(question.request.method).toBe("elicitation/create");
    model.answer(question.id, { action: "accept", content: { name: "Ada" } });
    const done = await until(model, (s) => s.rows.every((r) => r.summary.outcome));
    // Rows hold summaries; the full handle is read by stem where it is needed.
    const byId = new Map(done.rows.map((r) => [r.summary.taskId, model.handleOf(r.stem)!]));
    expect(byId.get(asking)!.outcome!.result!.content[0].text).toBe("Hello, Ada");
    expect(byId.get(quick)!.outcome!.status).toBe("completed");
    // The store agrees: a command with a context of its own (sharing nothing with the model but the disk) reads it.
    expect((await runInProcess(["result", asking], { home })).stdout.trim()).toBe("Hello, Ada");
  } finally {
    await model.close();
  }
});

it("starts a call from the dashboard and follows it; cancel and forget act on the task", async () => {
  const ctx = await testContext();
  const model = new DashboardModel(ctx);
  await model.start();
  try {
    const target = { name: "v2", descriptor: { transport: "http" as const, url: server.url } };
    expect((await model.tools(target)).map((t) => t.name)).toContain("task_slow");
    await model.startCall(target, "task_slow", { ms: 30000 });
    const started = await until(model, (s) => s.rows.length === 1 && s.rows[0].connection === "following");
    await model.cancel(started.rows[0].stem);
    await until(model, (s) => s.rows[0].summary.outcome && s.rows[0].summary.status === "cancelled");
    await model.forget(started.rows[0].stem);
    expect(model.getState().rows).toHaveLength(0);
    expect(await ctx.tracker.store.list()).toHaveLength(0);
  } finally {
    await model.close();
  }
});

it("a large store's first frame is its newest page; the rest is read after it, and its unfinished tasks followed", async () => {
  const ctx = await testContext();
  const home = ctx.home;
  // 3,400 saved handles (t-0, t-100... unfinished, of a server that is not there), then a live task on the real one.
  await stampedStore(home, { pad: true }); // past PROVISIONAL_MIN_BYTES
  const live = events(
    (await runInProcess(["call", "task_complete", "ms=1500", "--detach", "--json", "-s", server.url], { home })).stdout,
  )[0].taskId as string;
  // A file removed by hand (not forgotten: the index still has it) shows on the first page, and goes with the read.
  rmSync(join(home, "tasks", `${fileStem("t-3399", "00000000")}.json`));
  const model = new DashboardModel(ctx);
  await model.start(10);
  try {
    const first = model.getState();
    expect(first.rows.map((r) => r.summary.taskId)).toEqual([
      live,
      ...Array.from({ length: 9 }, (_, i) => `t-${3399 - i}`),
    ]);
    expect(first.unread).toBe(3391);
    expect(first.rows.every((r) => r.connection === "idle")).toBe(true); // nothing followed before the rest is read
    const all = await until(model, (s) => s.unread === 0);
    expect(all.rows).toHaveLength(3400);
    expect(all.rows.some((r) => r.summary.taskId === "t-3399")).toBe(false);
    // The oldest task, unfinished and far off the first page, is followed (its server is not there).
    await until(model, (s) => s.rows.find((r) => r.summary.taskId === "t-0")!.connection !== "idle");
    const done = await until(model, (s) => s.rows.find((r) => r.summary.taskId === live)!.summary.outcome);
    expect(done.rows.find((r) => r.summary.taskId === live)!.summary.status).toBe("completed");
  } finally {
    await model.close();
  }
});

it("a store under PROVISIONAL_MIN_BYTES is read whole before the first frame (a key then waits for nothing)", async () => {
  const ctx = await testContext();
  await stampedStore(ctx.home);
  const model = new DashboardModel(ctx);
  await model.start(10);
  try {
    expect(model.getState().rows).toHaveLength(3400);
    expect(model.getState().unread).toBe(0);
    expect(model.reading).toBeUndefined();
  } finally {
    await model.close();
  }
});
