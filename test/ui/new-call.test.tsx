// The dashboard's new call: its picker lists a chosen server's tools once (the dashboard renders every second, each
// time with a new loadTools function, and an effect on that function had listed them again at every render); the call
// it starts is checked as `call` checks one.
import { act } from "react";
import { expect, it } from "vitest";
import { NewCall } from "../../src/ui/NewCall.js";
import { KEY, mount, press, tick, actEnvironment } from "../helpers/ink.js";
import { DashboardModel } from "../../src/ui/model.js";
import { descriptorKey } from "../../src/protocol/server.js";
import { runInProcess, testContext } from "../helpers/context.js";
import { tempHome } from "../helpers/cli.js";
import { startV2Http } from "../helpers/servers.js";

actEnvironment();

it("lists a chosen server's tools once, however often the dashboard renders it", async () => {
  let listed = 0;
  const servers = [{ name: "api", descriptor: { transport: "http" as const, url: "http://127.0.0.1:1/mcp" } }];
  const picker = () => (
    <NewCall
      servers={servers}
      loadTools={async () => (listed++, [])}
      onStart={() => {}}
      onClose={() => {}}
      width={100}
      height={20}
    />
  );
  const view = await mount(picker());
  await press(view, KEY.enter);
  for (let i = 0; i < 5; i++)
    await act(async () => {
      view.rerender(picker());
      await tick();
    });
  expect(listed).toBe(1);
  view.unmount();
});

// The new call starts as `call` does (src/tasks/start.ts): arguments that break the tool's inputSchema are refused
// before the call, with the message `call` gives, and the tools' task support is kept for the next call's decision.
it("a new call whose arguments break the tool's inputSchema is refused with call's message, nothing started", async () => {
  const server = await startV2Http();
  const ctx = await testContext();
  const model = new DashboardModel(ctx);
  try {
    await model.start();
    const descriptor = { transport: "http" as const, url: server.url };
    await model.startCall({ name: "v2", descriptor }, "task_slow", { ms: "slow" });
    const notice = model.getState().notice ?? "";
    expect(notice).toMatch(/^call failed: the arguments do not fit task_slow's inputSchema: /);
    expect(model.getState().rows).toHaveLength(0);
    expect(await ctx.tracker.store.list()).toHaveLength(0);
    // The task support of every tool listed, kept as `call` keeps it.
    const support = (await ctx.loadSettings()).taskSupport(descriptorKey(descriptor));
    expect(support?.task_slow).toBe("server"); // a V2 server decides per call
    const call = await runInProcess(["call", "task_slow", "ms=slow", "-s", server.url], { home: tempHome() });
    expect(call.code).toBe(2);
    expect(notice).toBe(`call failed: ${/mcp-task: error: (.*)/.exec(call.stderr)?.[1]}`);
  } finally {
    await model.close();
    await server.stop();
  }
});
