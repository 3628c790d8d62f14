// The dashboard's key paths, rendered with ink-testing-library over a real model: moving, opening a task,
// filtering, sorting, forgetting, and cancelling a live task on our V2 server.
import { act } from "react";
import { afterAll, beforeAll, expect, it } from "vitest";
import { DashboardModel } from "../../src/ui/model.js";
import { events, tempHome } from "../helpers/cli.js";
import { runInProcess, testContext } from "../helpers/context.js";
import { renderDashboard } from "../helpers/dashboard.js";
import { eventually } from "../helpers/ink.js";
import { SDK_V1_SERVER, startListening, startV2Http, type RunningServer } from "../helpers/servers.js";
import { stampedStore } from "../helpers/large-store.js";

let server: RunningServer;
beforeAll(async () => {
  server = await startV2Http();
});
afterAll(async () => {
  await server?.stop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

it("moves, opens, filters, sorts, cancels and forgets with the keyboard", async () => {
  const home = tempHome();
  const detach = async (...args: string[]) =>
    events((await runInProcess(["call", ...args, "--detach", "--json", "-s", server.url], { home })).stdout)[0]
      .taskId as string;
  const done = await detach("task_complete", "ms=100", "text=first-result");
  await runInProcess(["watch", done], { home });
  const slow = await detach("task_slow", "ms=60000");
  const ctx = await testContext(home);
  const model = new DashboardModel(ctx);
  await model.start();
  let exited = false;
  const app = renderDashboard(model, ctx.clock, {
    onExit: () => (exited = true),
    onCopy: (id) => model.notify(`copied ${id}`),
  });
  const press = async (...keys: string[]) => {
    for (const key of keys) {
      await act(async () => {
        app.stdin.write(key);
      });
      await act(() => sleep(30));
    }
  };
  try {
    await eventually(app.lastFrame, /2 tasks, 1 followed/);
    // Newest first: the slow task is on top, selected.
    expect(app.lastFrame()).toMatch(/◐ working\s+task_slow[\s\S]*✓ completed\s+task_complete/);
    await press("j", "\r");
    await eventually(app.lastFrame, /first-result/);
    expect(app.lastFrame()).toMatch(/Timeline[\s\S]*Arguments[\s\S]*"text": "first-result"/);
    await press("\u001b");
    await eventually(app.lastFrame, /STATUS\s+TOOL/);
    await press("/", "s", "l", "o", "w", "\r");
    await eventually(app.lastFrame, /filter all "slow"/);
    expect(app.lastFrame()).not.toMatch(/task_complete/);
    await press("f");
    await eventually(app.lastFrame, /filter live "slow"/);
    await press("/", "\u007f", "\u007f", "\u007f", "\u007f", "\r", "f", "f", "f", "f", "s");
    await eventually(app.lastFrame, /filter all · sort oldest/);
    expect(app.lastFrame()).toMatch(/task_complete[\s\S]*task_slow/);
    // Keys typed faster than a frame is drawn: each is read in the mode the key before it chose.
    await act(async () => {
      for (const key of ["/", "c", "o", "m", "\r"]) app.stdin.write(key);
    });
    await eventually(app.lastFrame, /filter all "com"/);
    await press("/", "\u007f", "\u007f", "\u007f", "\r");
    await eventually(app.lastFrame, /filter all · sort oldest/);
    // The slow task is now second: select it, copy its id, cancel it (y to confirm).
    await press("G", "y");
    await eventually(app.lastFrame, new RegExp(`copied ${slow}`));
    await press("c");
    await eventually(app.lastFrame, /cancel this task\? \(y\/n\)/);
    await press("y");
    await eventually(app.lastFrame, /⊘ cancelled\s+task_slow/);
    // Forget the finished one.
    await press("g", "x", "y");
    await eventually(app.lastFrame, /1 tasks/);
    expect(app.lastFrame()).not.toMatch(/task_complete/);
    expect(await ctx.tracker.store.list()).toHaveLength(1);
    await press("q");
    expect(exited).toBe(true);
  } finally {
    app.unmount();
    await model.close();
  }
});

it("a large store's first page says the rest is being read; keys pressed meanwhile act on every task", async () => {
  const home = tempHome();
  await stampedStore(home, { pad: true }); // past PROVISIONAL_MIN_BYTES
  const ctx = await testContext(home);
  const model = new DashboardModel(ctx);
  await model.start(20);
  const app = renderDashboard(model, ctx.clock);
  try {
    // Drawn before the rest is read (the model reads it at the event loop's next turn).
    expect(app.lastFrame()).toMatch(/3400 tasks \(reading them\)/);
    // "G" (the end) and "/" with a filter, typed at once: the end of every task, and a match off the first page.
    app.stdin.write("G");
    await eventually(app.lastFrame, /3400 tasks, /);
    await eventually(app.lastFrame, /message of t-0\b/);
    expect(app.lastFrame()).not.toMatch(/message of t-3399/);
    await act(async () => {
      for (const key of ["/", ..."t-1777", "\r"]) app.stdin.write(key);
    });
    await eventually(app.lastFrame, /filter all "t-1777"/);
    expect(app.lastFrame()).toMatch(/message of t-1777\b/);
  } finally {
    app.unmount();
    await model.close();
  }
});

it("a question whose server stopped waiting is withdrawn once the task ends: off the count and the form, an answer refused", async () => {
  // The SDK v1 server over HTTP, which gives up on its question after 6 s without a word (no notifications/cancelled):
  // the task completes without the answer.
  const sdk = await startListening([SDK_V1_SERVER, "--port", "0", "--give-up-after", "6000"], "sdk v1 server");
  const home = tempHome();
  const ctx = await testContext(home);
  const model = new DashboardModel(ctx);
  let app: ReturnType<typeof renderDashboard> | undefined;
  try {
    const called = await runInProcess(["call", "confirm", "item=x", "--detach", "--json", "-s", sdk.url], { home });
    expect(called.code, called.stderr).toBe(0);
    await model.start();
    app = renderDashboard(model, ctx.clock);
    await eventually(app.lastFrame, /1 waiting for you/);
    const asked = model.getState().questions[0]!;
    // The person opens the form (a); the server gives up meanwhile, and the task ends.
    await act(async () => {
      app!.stdin.write("a");
    });
    await eventually(app.lastFrame, /Confirm x/);
    await eventually(app.lastFrame, /✓ completed[\s\S]*0 waiting for you/, 20_000);
    expect(model.getState().questions).toEqual([]);
    expect(app.lastFrame()).not.toMatch(/Confirm x/);
    expect(app.lastFrame()).not.toMatch(/!/);
    expect(model.getState().notice).toBe(
      "a question was withdrawn: the task had ended (completed) before it was answered",
    );
    // An answer to it now is refused, and the notice says why (never "answer sent").
    act(() => model.answer(asked.id, { action: "accept", content: { name: "n", count: 1 } }));
    await eventually(app.lastFrame, /not sent: the question was withdr/);
    expect(model.getState().notice).toMatch(/^not sent: the question was withdrawn \(its task ended/);
  } finally {
    app?.unmount();
    await model.close();
    await sdk.stop();
  }
});
