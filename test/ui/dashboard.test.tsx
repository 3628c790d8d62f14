// The dashboard's key paths, rendered with ink-testing-library over a real model: moving, opening a task,
// filtering, sorting, forgetting, and cancelling a live task on our V2 server; keys sent at once; an empty home; a
// call answered at once.
import { act } from "react";
import { afterAll, beforeAll, expect, it } from "vitest";
import { DashboardModel } from "../../src/ui/model.js";
import { events, tempHome } from "../helpers/cli.js";
import { runInProcess, testContext } from "../helpers/context.js";
import { renderDashboard } from "../helpers/dashboard.js";
import { eventually, KEY, press as pressKeys, tick, actEnvironment } from "../helpers/ink.js";
import { saveHandle, taskDir } from "../helpers/large-store.js";
import { EMPTY_HOME } from "../../src/ui/TaskList.js";
import { SDK_V1_SERVER, startListening, startV2Http, type RunningServer } from "../helpers/servers.js";
import { stampedStore } from "../helpers/large-store.js";

actEnvironment();

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
    await eventually(app.lastFrame, new RegExp(`cancel task ${slow.slice(0, 8)}… \\(task_slow\\)\\? \\(y/n\\)`));
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

/** A home with the finished tasks `ids` (the last one the newest), and the dashboard on it at `width` columns. */
async function dashboardOf(ids: readonly string[], width = 110) {
  const home = tempHome();
  const dir = taskDir(home);
  ids.forEach((id, i) => saveHandle(dir, id, i, true));
  const ctx = await testContext(home);
  const model = new DashboardModel(ctx);
  await model.start();
  const app = renderDashboard(model, ctx.clock, { width });
  /** Writes each string in one write, all in one act: no frame is drawn between them. */
  const burst = (...writes: string[]) =>
    act(async () => {
      for (const text of writes) app.stdin.write(text);
      await tick();
      await tick();
    });
  const selected = () =>
    app
      .lastFrame()!
      .split("\n")
      .find((line) => line.startsWith("›")) ?? "";
  return { app, model, burst, selected, close: async () => (app.unmount(), await model.close()) };
}

it("keys sent at once all act, in order, each on what the key before it left", async () => {
  // Newest first: demo5 on top... demo0, then other1, other0.
  const ids = ["other0-task", "other1-task", ...[0, 1, 2, 3, 4, 5].map((i) => `demo${i}-task`)];
  const { app, burst, selected, close } = await dashboardOf(ids);
  try {
    await eventually(app.lastFrame, /8 tasks, 0 followed/);
    expect(selected()).toMatch(/^›✓ completed +bench +demo5-ta…/);
    // Four Down keys in one write (Ink: four events, before any frame), then two j in one write (one event).
    await burst(KEY.down.repeat(4));
    expect(selected()).toMatch(/^›✓ completed +bench +demo1-ta…/);
    await burst("jj");
    expect(selected()).toMatch(/^›✓ completed +bench +other1-t…/);
    // Up twice, in two writes with no frame between them.
    await burst(KEY.up, "k");
    expect(selected()).toMatch(/^›✓ completed +bench +demo1-ta…/);
    // "/demo1" in one write, then two Backspaces in one: the filter shows and filters the same text, "dem".
    await burst("/demo1");
    expect(app.lastFrame()).toMatch(/mcp-task dashboard {2}\/ demo1▏/);
    await burst(KEY.backspace.repeat(2));
    let frame = app.lastFrame()!;
    expect(frame).toMatch(/mcp-task dashboard {2}\/ dem▏/);
    expect(frame).toMatch(/filter all "dem" · sort newest/);
    expect(frame.match(/bench +demo\d-ta…/g)).toHaveLength(6);
    expect(frame).not.toMatch(/other\d-t…/);
    // Ctrl-H is a Backspace too; Enter ends the filter and the keys after it in the same write act on the list:
    // f twice (the status filter: live, then input), s twice (the sort: oldest, then status).
    await burst("\b\rffss");
    frame = app.lastFrame()!;
    expect(frame).toMatch(/filter input "de" · sort status/);
    expect(frame).toMatch(/no tasks match/);
    await burst("fff", KEY.esc);
    await eventually(app.lastFrame, /filter all · sort status/);
    expect(app.lastFrame()!.match(/bench +(demo|other)\d-t/g)).toHaveLength(8);
    // G (the last row) and c in one write: the confirmation names the task G selected.
    await burst("Gc");
    expect(app.lastFrame()).toMatch(/cancel task other0-t… \(bench\)\? \(y\/n\)/);
    await burst("n");
    expect(app.lastFrame()).not.toMatch(/\(y\/n\)/);
    // x asks to forget, naming it too.
    await burst("gx");
    expect(app.lastFrame()).toMatch(/forget task demo5-ta… \(bench\)\? \(y\/n\)/);
    await burst(KEY.esc);
    await eventually(app.lastFrame, /↑↓ move/);
  } finally {
    await close();
  }
});

it("an empty home says how to start; a filter that hides every task says that no task matches", async () => {
  const empty = await dashboardOf([]);
  try {
    const frame = await eventually(empty.app.lastFrame, /0 tasks, 0 followed/);
    for (const line of EMPTY_HOME) expect(frame).toContain(line.trim());
    expect(frame).toMatch(/mcp-task demo .*\n.*mcp-task call <tool> -s <server>/);
    expect(frame).not.toMatch(/no tasks match/);
    // A filter on an empty home: still how to start (there is nothing to match).
    await empty.burst("/zz\r");
    expect(empty.app.lastFrame()).toContain(EMPTY_HOME[0].trim());
  } finally {
    await empty.close();
  }
  const some = await dashboardOf(["demo0-task"]);
  try {
    await eventually(some.app.lastFrame, /1 tasks, 0 followed/);
    await some.burst("/zz\r");
    const frame = some.app.lastFrame()!;
    expect(frame).toMatch(/filter all "zz"/);
    expect(frame).toMatch(/no tasks match/);
    expect(frame).not.toContain(EMPTY_HOME[0].trim());
  } finally {
    await some.close();
  }
});

it("a new call the server answers at once (no task) shows its result; esc goes back to the list", async () => {
  const ctx = await testContext(tempHome());
  const model = new DashboardModel(ctx);
  await model.start();
  const servers = [{ name: "v2", descriptor: { transport: "http" as const, url: server.url } }];
  const paged: string[] = [];
  const app = renderDashboard(model, ctx.clock, { servers, onPager: (text) => paged.push(text) });
  try {
    await pressKeys(app, "n", KEY.enter); // a new call, on the one server
    await eventually(app.lastFrame, /New call on v2: which tool\?[\s\S]*echo/);
    await pressKeys(app, KEY.enter); // echo: the first tool
    await eventually(app.lastFrame, /Arguments of echo \(v2\)/);
    await pressKeys(app, ..."said at once", KEY.tab, KEY.enter);
    const frame = await eventually(app.lastFrame, /echo on v2 answered at once: no task was made, nothing is saved/);
    expect(frame).toMatch(/Arguments[\s\S]*"text": "said at once"[\s\S]*Result[\s\S]*said at once/);
    expect(frame).toMatch(/echo answered at once \(no task\)/);
    expect(frame).toMatch(/esc back {2}p pager/);
    expect(await ctx.tracker.store.list()).toHaveLength(0);
    // p: the whole result in the pager.
    await pressKeys(app, "p");
    expect(paged).toHaveLength(1);
    expect(paged[0]).toMatch(/^echo on v2 answered at once: [\s\S]*Result\n {2}said at once/);
    await pressKeys(app, KEY.esc);
    await eventually(app.lastFrame, /↑↓ move/);
    expect(app.lastFrame()).not.toMatch(/answered at once:/);
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
    await eventually(app.lastFrame, /^›◐ working +bench +t-0 /m); // the oldest, selected (its message is cut)
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
    // hang-only: the server gives up after 6 s; the bound is a task that never ends.
    await eventually(app.lastFrame, /✓ completed[\s\S]*0 waiting for you/, 60_000);
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
