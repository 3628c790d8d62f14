// The dashboard's wire view (key w in the detail view): the last JSON-RPC messages about the selected task, from the
// dashboard's own connections, one safe line each; and the last log messages of the task's server under its detail.
// The view over a real model and our V2 server; the wire log (src/ui/wire-log.ts) as a pure sink of trace events,
// with hostile text and its bounds.
import { join } from "node:path";
import { render } from "ink-testing-library";
import { act } from "react";
import { afterAll, beforeAll, expect, it } from "vitest";
import { MAX_DASHBOARD_LOGS, MAX_WIRE_VIEW_MESSAGES } from "../../src/limits.js";
import { parseLog } from "../../src/protocol/logging.js";
import { Dashboard } from "../../src/ui/Dashboard.js";
import { logLines, wireLines } from "../../src/ui/Detail.js";
import { helpKeys } from "../../src/ui/modes.js";
import { DashboardModel } from "../../src/ui/model.js";
import { WireLog, taskOf } from "../../src/ui/wire-log.js";
import { events, tempHome } from "../helpers/cli.js";
import { runInProcess, testContext } from "../helpers/context.js";
import { renderDashboard } from "../helpers/dashboard.js";
import { eventually, actEnvironment } from "../helpers/ink.js";
import { ROOT, startV2Http, type RunningServer } from "../helpers/servers.js";

actEnvironment();

let server: RunningServer;
beforeAll(async () => {
  server = await startV2Http();
});
afterAll(async () => {
  await server?.stop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const T = "2026-12-01T12:00:01.234Z";

it("w in the detail view shows the task's last messages on the wire, and w again the details", async () => {
  const home = tempHome();
  const run = await runInProcess(["call", "task_slow", "ms=60000", "--detach", "--json", "-s", server.url], { home });
  const taskId = events(run.stdout)[0].taskId as string;
  const ctx = await testContext(home);
  const wire = new WireLog();
  ctx.wireTap = wire;
  const model = new DashboardModel(ctx);
  await model.start();
  const app = renderDashboard(model, ctx.clock, { height: 24, wire });
  const press = async (key: string) => {
    await act(async () => void app.stdin.write(key));
    await act(() => sleep(30));
  };
  try {
    await eventually(app.lastFrame, /1 tasks, 1 followed/);
    await press("\r");
    await eventually(app.lastFrame, /Timeline/);
    expect(app.lastFrame()).toMatch(/w wire/);
    await press("w");
    // The dashboard's reads of the task: the request with its id, and the reply with the status it gave.
    const frame = await eventually(app.lastFrame, /→ tasks\/get #"mt-\d+"[\s\S]*← #"mt-\d+" working/);
    expect(frame).toContain(`Wire: the last`);
    expect(frame).toContain(taskId);
    expect(frame).toMatch(/w details/);
    await press("w");
    await eventually(app.lastFrame, /Timeline/);
  } finally {
    app.unmount();
    await model.cancel(model.getState().rows[0].stem);
    await model.close();
  }
});

it("a V1 task reached through its broker: the server's log messages in the detail, the broker's wire in the wire view", async () => {
  const home = tempHome();
  const stdio = `node ${join(ROOT, "dist/test-servers/sdk-v1-server.js")} --stdio`;
  const run = await runInProcess(["call", "progress", "steps=40", "stepMs=250", "--stdio", stdio, "--detach"], {
    home,
  });
  expect(run.code, run.stderr).toBe(0);
  const ctx = await testContext(home);
  const wire = new WireLog();
  ctx.wireTap = wire;
  const model = new DashboardModel(ctx);
  await model.start();
  const props = { model, clock: ctx.clock, servers: [], width: 110, height: 30, wire };
  const app = render(<Dashboard {...props} onExit={() => {}} onPager={() => {}} onCopy={() => {}} />);
  try {
    await eventually(app.lastFrame, /1 tasks, 1 followed/);
    await act(async () => void app.stdin.write("\r"));
    const frame = await eventually(
      app.lastFrame,
      /Server log \(last \d+\)[\s\S]*info \[progress-tool\] \{"step":\d+,"of":40\}/,
    );
    expect(frame).toMatch(/\d\d:\d\d:\d\d info \[progress-tool\]/);
    // Its wire is the broker's: the broker's trace comes over, and the wire view shows the task's reads there.
    await act(async () => void app.stdin.write("w"));
    await eventually(app.lastFrame, /→ tasks\/get #"mt-\d+" \{"taskId":"[^"]+"\}[\s\S]*← #"mt-\d+" working/);
  } finally {
    app.unmount();
    await model.close();
  }
});

it("the wire log files messages by task (params, related-task metadata, results, replies by id), made safe", () => {
  const log = new WireLog();
  const write = (dir: "in" | "out", message: unknown) => log.write({ t: T, server: "s", dir, message });
  write("out", { jsonrpc: "2.0", id: "mt-1", method: "tools/call", params: { name: "x" } });
  write("in", { jsonrpc: "2.0", id: "mt-1", result: { task: { taskId: "t1", status: "working" } } });
  write("out", { jsonrpc: "2.0", id: "mt-2", method: "tasks/result", params: { taskId: "t1" } });
  write("in", {
    jsonrpc: "2.0",
    id: 7,
    method: "elicitation/create",
    params: { message: "hi\u001b[2J", _meta: { "io.modelcontextprotocol/related-task": { taskId: "t1" } } },
  });
  write("in", { jsonrpc: "2.0", id: "mt-2", error: { code: -32602, message: "gone\u0007" } });
  write("in", { jsonrpc: "2.0", method: "notifications/tasks/status", params: { taskId: "t2", status: "completed" } });
  expect(log.messages("t1")).toEqual([
    '12:00:01.234 ← #"mt-1" working',
    '12:00:01.234 → tasks/result #"mt-2" {"taskId":"t1"}',
    expect.stringMatching(/^12:00:01\.234 ← elicitation\/create #7 \{"message":"hi.*"\}$/),
    '12:00:01.234 ← #"mt-2" error -32602 gone',
  ]);
  for (const line of log.messages("t1")) expect(line).not.toMatch(/[\u0000-\u001f\u007f]/);
  expect(log.messages("t2")).toEqual([
    '12:00:01.234 ← notifications/tasks/status {"taskId":"t2","status":"completed"}',
  ]);
  expect(taskOf({ params: {} })).toBeUndefined();
  // Bounded: the newest messages of a task, the newest logs of a server.
  for (let i = 0; i < MAX_WIRE_VIEW_MESSAGES + 10; i++)
    write("in", { jsonrpc: "2.0", method: "notifications/tasks/status", params: { taskId: "t3", status: `s${i}` } });
  expect(log.messages("t3")).toHaveLength(MAX_WIRE_VIEW_MESSAGES);
  expect(log.messages("t3").at(-1)).toContain(`s${MAX_WIRE_VIEW_MESSAGES + 9}`);
  // Notifications in a row that say the same status are one line: the latest, and how many.
  const status = (taskId: string, status: string, statusMessage: string) =>
    write("in", { jsonrpc: "2.0", method: "notifications/tasks/status", params: { taskId, status, statusMessage } });
  for (let i = 1; i <= 50; i++) status("t4", "working", `${i}/50`);
  expect(log.messages("t4")).toEqual([
    '12:00:01.234 ← notifications/tasks/status x50 {"taskId":"t4","status":"working","statusMessage":"50/50"}',
  ]);
  write("in", { jsonrpc: "2.0", method: "notifications/tasks", params: { taskId: "t5", status: "working" } });
  write("in", { jsonrpc: "2.0", method: "notifications/tasks", params: { taskId: "t5", status: "working" } });
  expect(log.messages("t5")).toEqual([expect.stringMatching(/← notifications\/tasks x2 \{"taskId":"t5"/)]);
  write("out", { jsonrpc: "2.0", id: "mt-9", method: "tasks/get", params: { taskId: "t4" } });
  status("t4", "working", "again");
  status("t4", "input_required", "asks");
  const t4 = log.messages("t4");
  expect(t4).toHaveLength(4);
  [/status x50 .*"50\/50"/, /→ tasks\/get /, /status \{.*"again"/, /status \{.*"input_required"/].forEach((line, i) =>
    expect(t4[i]).toMatch(line),
  );

  for (let i = 0; i < MAX_DASHBOARD_LOGS + 5; i++)
    log.log("s", { level: "error", logger: "db\u001b]0;x\u0007", data: `boom ${i}\u001b[31m` }, new Date(T));
  // Log messages come through log(), from the wire (a broker relays them), not from the trace: never twice.
  write("in", { jsonrpc: "2.0", method: "notifications/message", params: { level: "error", data: "traced" } });
  expect(parseLog({ level: "loud", data: "not a level" })).toBeUndefined();
  const logs = log.logs("s");
  expect(logs).toHaveLength(MAX_DASHBOARD_LOGS);
  expect(logs.at(-1)).toMatch(/^12:00:01 error \[db.*\] boom 24/);
  expect(logs.join("\n")).not.toContain("traced");
  for (const line of logs) expect(line).not.toMatch(/[\u0000-\u001f\u007f]/);
  expect(log.messages("s")).toEqual([]); // log messages are not a task's
});

it("the detail's lines: the server log under the facts, the wire view's head, and the help line in step", () => {
  expect(logLines([])).toEqual([]);
  expect(logLines(["12:00:01 warning disk"]).map((l) => l.text)).toEqual([
    "",
    "Server log (last 1)",
    "  12:00:01 warning disk",
  ]);
  expect(wireLines("t1", []).map((l) => l.text)).toEqual([
    "Wire: the last 0 messages about task t1",
    "  none seen since this dashboard connected",
  ]);
  expect(helpKeys({ kind: "detail" })).toContainEqual(["w", "wire"]);
  expect(helpKeys({ kind: "detail", wire: true })).toContainEqual(["w", "details"]);
});
