// The V2 (2026-07-28 tasks extension) path against our own V2 test server, over stdio and HTTP (the commands run
// in-process: test/helpers/context.ts; over stdio their tasks go through a broker process).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { events, tempHome } from "../helpers/cli.js";
import { runInProcess } from "../helpers/context.js";
import { startV2Http, v2Stdio, type RunningServer } from "../helpers/servers.js";

let http: RunningServer;
beforeAll(async () => {
  http = await startV2Http();
});
afterAll(async () => {
  await http?.stop();
});

// The three groups below run side by side (each on a server of its own, waiting mostly on it), each group's tests
// one after another (`serial`): those of one transport share a home and its broker.
const serial = it.sequential;

const transports = [
  ["stdio", () => ["--stdio", v2Stdio()]],
  ["http", () => ["-s", http.url]],
] as const;

describe.each(transports)("V2 test server over %s", { concurrent: true }, (_name, server) => {
  // One home for the transport's tests, whose broker stays between them (over stdio: one broker and one server
  // process for the file, not one per call); each test's task is its own, and none reads the others'.
  const home = tempHome();
  const call = (...args: string[]) =>
    runInProcess(["call", ...args, ...server()], { home, env: { MCP_TASK_BROKER_GRACE: "5m" } });

  serial("detects V2 and follows a task to completion", async () => {
    const run = await call("task_complete", "text=finished-ok", "--json");
    expect(run.code).toBe(0);
    const lines = events(run.stdout);
    expect(lines[0]).toMatchObject({ type: "task", generation: "v2", status: "working" });
    expect(lines.at(-1)).toMatchObject({ type: "result", status: "completed", error: null });
    expect(JSON.stringify(lines.at(-1)!.result)).toContain("finished-ok");
  });

  serial("exits 1 for a task that fails with a JSON-RPC error, and shows the error", async () => {
    const run = await call("task_fail");
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/failed: task_fail: simulated failure \(code -?\d+\)/);
  });

  serial("exits 1 for a task that completes with isError", async () => {
    const run = await call("task_tool_error", "--json");
    expect(run.code).toBe(1);
    expect(events(run.stdout).at(-1)).toMatchObject({ type: "result", status: "completed", result: { isError: true } });
  });

  serial("checks structuredContent against the outputSchema: a valid result passes", async () => {
    const run = await call("task_structured", "--json");
    expect(run.code).toBe(0);
    const last = events(run.stdout).at(-1)!;
    expect(last.outputSchemaError).toBeUndefined();
    expect((last.result as { structuredContent: unknown }).structuredContent).toMatchObject({ value: 42 });
  });

  serial("reports a result that breaks the outputSchema", async () => {
    const text = await call("task_structured_bad");
    expect(text.stderr).toMatch(/warning: the result does not match the tool's outputSchema: .*unit/);
    const json = await call("task_structured_bad", "--json");
    expect(events(json.stdout).at(-1)!.outputSchemaError).toMatch(/outputSchema/);
  });

  serial("answers a task's input once", async () => {
    const run = await call("task_input_once", "--input", '{"name":"Ada"}');
    expect(run.stdout.trim()).toBe("Hello, Ada");
    expect(run.code).toBe(0);
  });

  serial("answers two rounds of input from one --input object, each key once", async () => {
    const run = await call("task_input_twice", "--input", '{"color":"green","confirm":false}', "--json");
    expect(run.code).toBe(0);
    const lines = events(run.stdout);
    expect(JSON.stringify(lines.at(-1)!.result)).toMatch(/color=green, confirm=false/);
    expect(lines.filter((l) => l.type === "status" && l.status === "input_required")).toHaveLength(2);
  });

  serial("answers request-level input before the task exists", async () => {
    const run = await call("request_input", "--input", '{"city":"Oslo"}');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Oslo/);
  });

  serial("exits 6 when input is required and nothing can answer it", async () => {
    const taskLevel = await call("task_input_once");
    expect(taskLevel.code).toBe(6);
    const requestLevel = await call("request_input");
    expect(requestLevel.code).toBe(6);
  });

  serial("exits 6 when the given answer does not fit the requested form", async () => {
    const run = await call("task_input_twice", "--input", '{"color":"purple","confirm":true}');
    expect(run.code).toBe(6);
    expect(run.stderr).toMatch(/does not fit the requested form/);
  });

  serial("declines with --decline", async () => {
    const run = await call("task_input_once", "--decline");
    expect(run.code).not.toBe(6);
    expect(run.stdout + run.stderr).toMatch(/declin/i);
  });

  serial("stops waiting at --timeout with exit 7 while the task runs on", async () => {
    const run = await call("task_slow", "ms=20000", "--timeout", "1s");
    expect(run.code).toBe(7);
    expect(run.stderr).toMatch(/keeps running/);
  });
});

describe("polling cost", { concurrent: true }, () => {
  /** The task's own time: four of the server's intervals (500 ms), enough for polls to be counted. */
  const TASK_MS = 2000;
  let paced: RunningServer;
  beforeAll(async () => {
    paced = await startV2Http("--poll-interval", "500");
  });
  afterAll(async () => {
    await paced?.stop();
  });

  async function stats(home: string): Promise<Record<string, number>> {
    const run = await runInProcess(["call", "_stats", "-s", paced.url], { home });
    return JSON.parse(run.stdout);
  }

  serial("never polls a task faster than the server's interval (polling only)", async () => {
    const home = tempHome();
    const beforeStats = await stats(home);
    const before = beforeStats["tasks/get"] ?? 0;
    const run = await runInProcess(["call", "task_complete", `ms=${TASK_MS}`, "-s", paced.url], {
      home,
      env: { MCP_TASK_PUSH: "off" },
    });
    expect(run.code).toBe(0);
    const afterStats = await stats(home);
    const gets = afterStats["tasks/get"] - before;
    // Polling only: no push stream was asked for.
    expect(afterStats["subscriptions/listen"] ?? 0).toBe(beforeStats["subscriptions/listen"] ?? 0);
    // A 2 s task (the server's own time) polled every 500 ms: at most one read per interval, plus the first and the
    // final read. Bounded by the requests counted, not by the wall time of the run.
    expect(gets).toBeLessThanOrEqual(TASK_MS / 500 + 2);
    // At least one read: on a loaded machine the first can come after the task's end, and it is the last.
    expect(gets).toBeGreaterThanOrEqual(1);
  });

  serial("spends (almost) no polls while the server confirms it pushes", async () => {
    const home = tempHome();
    const before = (await stats(home))["tasks/get"] ?? 0;
    const run = await runInProcess(["call", "task_complete", `ms=${TASK_MS}`, "-s", paced.url], { home });
    expect(run.code).toBe(0);
    // A safety poll every three intervals at most; the final push carries the result.
    expect((await stats(home))["tasks/get"] - before).toBeLessThanOrEqual(2);
  });
});
