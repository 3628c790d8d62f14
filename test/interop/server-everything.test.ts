// The V1 (2025-11-25) path against a real V1 server: @modelcontextprotocol/server-everything, over stdio and HTTP
// (the commands run in-process: test/helpers/context.ts).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TaskNotFoundError } from "../../src/errors.js";
import { connect } from "../../src/protocol/connect.js";
import type { ServerDescriptor } from "../../src/protocol/server.js";
import type { Wire } from "../../src/protocol/wire.js";
import { TaskEngine } from "../../src/tasks/engine.js";
import { preparedAnswers } from "../../src/tasks/input.js";
import { systemClock } from "../../src/context.js";
import { events, tempHome } from "../helpers/cli.js";
import { runInProcess } from "../helpers/context.js";
import { EVERYTHING, everythingStdio, startEverythingHttp, type RunningServer } from "../helpers/servers.js";

let http: RunningServer;
beforeAll(async () => {
  http = await startEverythingHttp();
});
afterAll(async () => {
  await http?.stop();
});

// The four groups below run side by side (each waits mostly on the server: a research task takes its 4 s), each
// group's tests one after another (`serial`): those of one transport share a home and its broker.
const serial = it.sequential;

const transports = [
  ["stdio", () => ["--stdio", everythingStdio]],
  ["http", () => ["-s", http.url]],
] as const;

describe.each(transports)("server-everything over %s", { concurrent: true }, (_name, server) => {
  // One home for the transport's tests, whose broker stays between them (over stdio: one broker and one
  // server-everything for them all, not one per test); each test's task is its own.
  const home = tempHome();
  const env = { MCP_TASK_BROKER_GRACE: "5m" };

  serial("runs the research task and prints the report", async () => {
    const run = await runInProcess(["call", "simulate-research-query", "topic=python", ...server()], { home, env });
    expect(run.stderr).toMatch(/started task [0-9a-f]+ .*V1/);
    expect(run.stdout).toContain("# Research Report: python");
    expect(run.code).toBe(0);
  });

  serial("answers the ambiguous task's elicitation from --input", async () => {
    const run = await runInProcess(
      [
        "call",
        "simulate-research-query",
        "topic=python",
        "ambiguous=true",
        "--input",
        '{"interpretation":"snake"}',
        ...server(),
      ],
      { home, env },
    );
    expect(run.stdout).toContain("# Research Report: python (snake)");
    expect(run.stdout).toContain("**Clarification**: snake");
    expect(run.code).toBe(0);
  });

  serial("exits 6 at once when input is required and no answer is given (no TTY)", async () => {
    const run = await runInProcess(["call", "simulate-research-query", "topic=python", "ambiguous=true", ...server()], {
      home,
      env,
    });
    expect(run.code).toBe(6);
    expect(run.stderr).toMatch(/input required and no answer given/);
    expect(run.stdout).toBe("");
  });
});

describe("NDJSON and plain calls", { concurrent: true }, () => {
  serial("writes the documented events, ending with the result", async () => {
    const run = await runInProcess(["call", "simulate-research-query", "topic=rust", "--json", "-s", http.url], {
      home: tempHome(),
    });
    expect(run.code).toBe(0);
    const lines = events(run.stdout);
    expect(lines[0]).toMatchObject({
      type: "task",
      tool: "simulate-research-query",
      generation: "v1",
      status: "working",
      ttlMs: 300000,
      pollIntervalMs: 1000,
    });
    for (const line of lines) expect(typeof line.taskId).toBe("string");
    expect(lines.filter((l) => l.type === "status").map((l) => l.status)).toContain("completed");
    const last = lines.at(-1)!;
    expect(last).toMatchObject({ type: "result", status: "completed", error: null });
    expect(JSON.stringify(last.result)).toContain("Research Report: rust");
  });

  serial("makes a plain call for a tool that forbids tasks, with taskId null in JSON", async () => {
    const run = await runInProcess(["call", "echo", "message=hello", "--json", "-s", http.url], { home: tempHome() });
    expect(run.code).toBe(0);
    const lines = events(run.stdout);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      type: "result",
      taskId: null,
      status: "completed",
      result: { content: [{ type: "text", text: "Echo: hello" }] },
    });
  });

  serial("reports a task-required tool called with --no-task as the server's refusal", async () => {
    const run = await runInProcess(["call", "simulate-research-query", "topic=x", "--no-task", "-s", http.url], {
      home: tempHome(),
    });
    expect(run.code).not.toBe(0);
    expect(run.stderr).not.toMatch(/at .*\.js:\d+/); // no stack trace
  });
});

describe("the engine on a V1 wire", { concurrent: true }, () => {
  const descriptor: ServerDescriptor = { transport: "stdio", command: process.execPath, args: [EVERYTHING, "stdio"] };
  // One server-everything for both tests: each works on a task id of its own.
  let wire: Wire;
  beforeAll(async () => {
    wire = await connect(descriptor, { env: process.env });
  });
  afterAll(async () => {
    await wire?.close();
  });

  serial("cancels a running task and reports what the server says afterwards", async () => {
    const engine = new TaskEngine(wire, systemClock, preparedAnswers({}));
    const started = await engine.call("simulate-research-query", { topic: "go" }, { task: "auto" });
    expect(started.kind).toBe("task");
    if (started.kind !== "task") return;
    const after = await engine.cancel(started.snapshot.taskId);
    expect(after.status).toBe("cancelled");
    // Cancelling again: the task is terminal, so the server refuses; the wire reports the task as it is.
    const again = await engine.cancel(started.snapshot.taskId);
    expect(again.status).toBe("cancelled");
    const listed = await wire.listTasks();
    expect(listed.tasks.map((t) => t.taskId)).toContain(started.snapshot.taskId);
  });

  serial("turns an unknown task id into TaskNotFoundError", async () => {
    await expect(wire.getTask("no-such-task")).rejects.toBeInstanceOf(TaskNotFoundError);
  });
});
