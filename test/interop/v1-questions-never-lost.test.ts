// A question, once handed over, is never lost (2025-11-25 "V1" servers hand each question over once, on a stream).
// Against servers nobody here wrote: a server on the official SDK's v1 line (test/servers/sdk-v1-server.ts, its
// public tasks API only) over stdio and Streamable HTTP, and the SDK's own example servers, run unmodified. Every
// case comes back LATER, from a new command, after the command that saw the question has ended: an --input that
// does not fit, no --input at all, Ctrl-C, --detach, and questions asked without the related-task metadata. The
// commands run in-process (the question is kept by the broker or the session's keeper, a process either way); Ctrl-C
// (a signal) and Esc (a terminal) are the binary's.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { describe, expect, it } from "vitest";
import { connectBroker } from "../../src/broker/client.js";
import { systemClock } from "../../src/context.js";
import type { Snapshot } from "../../src/protocol/wire.js";
import { TaskEngine } from "../../src/tasks/engine.js";
import { Tracker } from "../../src/tasks/tracker.js";
import { HandleStore } from "../../src/store/handles.js";
import type { InputProvider } from "../../src/tasks/input.js";
import { events, expectAnsweredAndMovedOn, startCli, tempHome, type CliResult } from "../helpers/cli.js";
import { runInProcess } from "../helpers/context.js";
import { until } from "../helpers/until.js";
import { freePort, ROOT, SDK_V1_SERVER, sdkV1Transports, type RunningServer } from "../helpers/servers.js";

// The package's export map sends `…/package.json` to its dist/cjs copy: the examples are found from the root.
const SDK_EXAMPLES = join(ROOT, "node_modules/@modelcontextprotocol/sdk/dist/esm/examples/server");
const FITS = JSON.stringify({ name: "Ada", count: 2 });
const UNFIT = JSON.stringify({ name: "Ada", count: "two" });

/** The command's stderr says one error and gives no stack trace, and no raw control bytes reach it. */
function oneError(run: CliResult): void {
  expect(run.stderr.match(/^mcp-task: error:/gm) ?? [], run.stderr).toHaveLength(1);
  expect(run.stderr).not.toMatch(/\n\s+at /);
  expect(run.stderr + run.stdout).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f]/);
}

/** The hint of an exit-6 error: a respond command for this very task. */
function respondHint(run: CliResult, taskId: string): void {
  expect(run.stderr).toMatch(new RegExp(`^hint: mcp-task respond --input '\\{\\.\\.\\.\\}' ${taskId}`, "m"));
}

async function taskIdOf(home: string, tool: string): Promise<string> {
  const rows = JSON.parse((await runInProcess(["list", "--json"], { home })).stdout) as Array<{
    taskId: string;
    tool: string;
    createdAt: string;
  }>;
  const mine = rows.filter((row) => row.tool === tool);
  expect(mine.length).toBeGreaterThan(0);
  return mine.sort((a, b) => b.createdAt.localeCompare(a.createdAt))[0].taskId;
}

/** The answer the SDK server put in its result: {"item", "action", "content"}. */
async function answerIn(home: string, taskId: string): Promise<Record<string, unknown>> {
  const result = await runInProcess(["result", taskId, "--json"], { home });
  expect(result.code, result.stderr).toBe(0);
  const last = events(result.stdout).at(-1) as { result: { content: Array<{ text: string }> } };
  return JSON.parse(last.result.content[0].text) as Record<string, unknown>;
}

/** An SDK example server, unmodified, on a free port; ready once it says where it listens. */
async function startExample(file: string, portVariable: string): Promise<RunningServer & { port: number }> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [join(SDK_EXAMPLES, file)], {
    env: { ...process.env, [portVariable]: String(port) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stderr?.resume();
  await new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on(
      "line",
      (line) => /listening|Starting server/i.test(line) && resolve(),
    );
    child.once("exit", (code) => reject(new Error(`${file} exited with ${code}`)));
  });
  child.stdout?.resume();
  const stop = () =>
    new Promise<void>((done) => {
      if (child.exitCode !== null || child.signalCode !== null) return done();
      child.once("exit", () => done());
      child.kill("SIGKILL");
    });
  return { url: `http://127.0.0.1:${port}/mcp`, process: child, stop, port };
}

const { http, transports } = sdkV1Transports();
// The groups up to the SDK's examples run side by side (each on server processes of its own: over stdio a server per
// home, over HTTP the one server of this file, which no other group of them uses), each group's tests one after
// another (`serial`); the rest after them, one at a time.
const serial = it.sequential;

describe.each(transports)("SDK v1 server over $name", { concurrent: true }, ({ server }) => {
  serial(
    "a question that comes before its call's reply, the call --detach: kept for its task; a later respond answers it",
    async () => {
      const home = tempHome();
      // The command refuses the question (--detach) while the call is still on its way; the reply then makes the task
      // whose question it is (nothing else could have asked it): held for that task, not refused to the server.
      const call = await runInProcess(["call", "ask-beside", "item=beside", ...server(), "--detach"], { home });
      expect(call.code, call.stderr).toBe(0);
      const taskId = call.stdout.trim();
      const unfit = await runInProcess(["respond", taskId, "--input", UNFIT], { home, timeoutMs: 15_000 });
      expect(unfit.code, unfit.stderr).toBe(6);
      oneError(unfit);
      const fit = await runInProcess(["respond", taskId, "--input", FITS], { home, timeoutMs: 15_000 });
      expect(fit.code, fit.stderr).toBe(0);
      expect(await answerIn(home, taskId)).toMatchObject({ item: "beside", action: "accept" });
    },
  );

  serial("an --input that does not fit exits 6 with the question kept; a later respond answers it", async () => {
    const home = tempHome();
    const call = await runInProcess(["call", "confirm", "item=unfit", ...server(), "--input", UNFIT], { home });
    expect(call.code, call.stderr).toBe(6);
    expect(call.stderr).toMatch(/does not fit the requested form \(expected name: string; count: integer\)/);
    oneError(call);
    const taskId = await taskIdOf(home, "confirm");
    respondHint(call, taskId);
    // Checked before it is sent: respond with another answer that does not fit leaves it waiting too.
    const again = await runInProcess(["respond", taskId, "--input", UNFIT], { home });
    expect(again.code, again.stderr).toBe(6);
    const responded = await runInProcess(["respond", taskId, "--input", FITS, "--json"], { home });
    expect(responded.code, responded.stderr).toBe(0);
    expect(await answerIn(home, taskId)).toEqual({
      item: "unfit",
      action: "accept",
      content: { name: "Ada", count: 2 },
    });
  });

  serial("no --input exits 6 with the question kept; a later watch --input completes with that answer", async () => {
    const home = tempHome();
    const call = await runInProcess(["call", "confirm", "item=later", ...server()], { home });
    expect(call.code, call.stderr).toBe(6);
    oneError(call);
    const taskId = await taskIdOf(home, "confirm");
    respondHint(call, taskId);
    const watched = await runInProcess(["watch", taskId, "--input", FITS], { home });
    expect(watched.code, watched.stderr).toBe(0);
    expect(await answerIn(home, taskId)).toMatchObject({ item: "later", content: { name: "Ada", count: 2 } });
  });

  serial("a question without the related-task metadata: exit 6 with it kept, answered by a later respond", async () => {
    const home = tempHome();
    const call = await runInProcess(["call", "confirm-bare", "item=bare", ...server()], { home });
    expect(call.code, call.stderr).toBe(6);
    expect(call.stderr).toMatch(/input required and no answer given: Confirm bare \(bare\)/);
    oneError(call);
    const taskId = await taskIdOf(home, "confirm-bare");
    respondHint(call, taskId);
    // The server's status says working; the question held for it makes it wait for input.
    const got = await runInProcess(["get", taskId, "--json"], { home });
    expect(JSON.parse(got.stdout)).toMatchObject({ status: "input_required" });
    const responded = await runInProcess(["respond", taskId, "--input", FITS], { home });
    expect(responded.code, responded.stderr).toBe(0);
    expect(await answerIn(home, taskId)).toMatchObject({
      item: "bare",
      action: "accept",
      content: { name: "Ada", count: 2 },
    });
  });

  serial(
    "--detach while the server asks at once: the id, exit 0, the question unanswered for a later respond",
    async () => {
      const home = tempHome();
      const call = await runInProcess(["call", "confirm-bare", "item=detached", ...server(), "--detach", "--json"], {
        home,
      });
      expect(call.code, call.stderr).toBe(0);
      const taskId = events(call.stdout)[0].taskId as string;
      const responded = await runInProcess(["respond", taskId, "--input", FITS], { home });
      expect(responded.code, responded.stderr).toBe(0);
      expect(await answerIn(home, taskId)).toMatchObject({ item: "detached", action: "accept" });
    },
  );

  serial(
    "a question the server asks before it replies to the call, with nobody to answer: exit 6 in bounded time, the server told",
    async () => {
      const home = tempHome();
      // HELD_CALL_QUESTION_MS (5 s; here 300 ms: MCP_TASK_HELD_QUESTION, read by the broker this command starts), not
      // for ever (the server waits 10 minutes for its answer): the call has no task to keep the question for. The 50 s
      // is a hang-only bound, far above the wait and far below the server's.
      const call = await runInProcess(["call", "ask-first", "item=first", ...server()], {
        home,
        timeoutMs: 50_000,
        env: { MCP_TASK_HELD_QUESTION: "300ms" },
      });
      expect(call.code, call.stderr).toBe(6);
      expect(call.stderr).toMatch(/^hint: call again with --input '\{\.\.\.\}' or --decline/m);
      oneError(call);
      const answered = await runInProcess(["call", "ask-first", "item=first", ...server(), "--input", FITS, "--json"], {
        home,
      });
      expect(answered.code, answered.stderr).toBe(0);
      expect(events(answered.stdout).at(-1)).toMatchObject({ type: "result", status: "completed" });
    },
  );

  serial(
    "Ctrl-C before the question comes: it waits for the next command, and a later watch --input answers it",
    async () => {
      const home = tempHome();
      const call = startCli(["call", "confirm-bare", "item=interrupted", "delayMs=1500", ...server()], { home });
      await until(() => /started task/.test(call.output.stderr), { what: "the call's task started" });
      call.child.kill("SIGINT");
      expect(await call.exited).toBe(130);
      expect(call.output.stderr).toMatch(/^hint: resume with: mcp-task watch /m);
      const taskId = await taskIdOf(home, "confirm-bare");
      const watched = await runInProcess(["watch", taskId, "--input", FITS], { home });
      expect(watched.code, watched.stderr).toBe(0);
      expect(await answerIn(home, taskId)).toMatchObject({ item: "interrupted", content: { name: "Ada", count: 2 } });
    },
  );
});

describe("questions without the related-task metadata from two tasks of one stdio server", { concurrent: true }, () => {
  serial(
    "each is held for both tasks, marked, and each respond answers one: no answer reaches the other task's question",
    async () => {
      const home = tempHome();
      const stdio = ["--stdio", `node ${SDK_V1_SERVER} --stdio`];
      // Each asks once the test opens its gate: both tasks run before either asks, and B asks only after the reads
      // below (on a loaded machine B's call once came after A's question, which was then rightly A's alone).
      const gates = mkdtempSync(join(tmpdir(), "mcp-task-gates-"));
      const [gateA, gateB] = [join(gates, "A"), join(gates, "B")];
      const a = await runInProcess(["call", "confirm-bare", "item=A", `gate=${gateA}`, ...stdio, "--detach"], { home });
      expect(a.code, a.stderr).toBe(0);
      const b = await runInProcess(["call", "confirm-bare", "item=B", `gate=${gateB}`, ...stdio, "--detach"], { home });
      expect(b.code, b.stderr).toBe(0);
      const [taskA, taskB] = [a.stdout.trim(), b.stdout.trim()];
      writeFileSync(gateA, "");
      const heldFor = async (taskId: string) =>
        (JSON.parse((await runInProcess(["get", taskId, "--json"], { home })).stdout) as { status: string }).status ===
        "input_required";
      await until(async () => (await heldFor(taskA)) && (await heldFor(taskB)), {
        everyMs: 100,
        what: "A's question held for both tasks",
      });
      // Neither question says whose it is: each task's reads show the one waiting longest, marked as such.
      for (const taskId of [taskA, taskB]) {
        const got = await runInProcess(["get", taskId, "--json"], { home });
        expect(JSON.parse(got.stdout), taskId).toMatchObject({
          status: "input_required",
          inputRequests: [{ message: "Confirm A (bare)", unattributed: true }],
        });
      }
      const text = await runInProcess(["get", taskA], { home });
      expect(text.stdout).toMatch(/asks \(v1:\S+\): Confirm A \(bare\) \(the server did not say which task asks this/);
      writeFileSync(gateB, ""); // B's own question, waited for by its respond
      const forA = await runInProcess(["respond", taskA, "--input", JSON.stringify({ name: "for-A", count: 1 })], {
        home,
        timeoutMs: 15_000,
      });
      expect(forA.code, forA.stderr).toBe(0);
      const forB = await runInProcess(
        ["respond", taskB, "--input", JSON.stringify({ name: "for-B", count: 1 }), "--json"],
        {
          home,
          timeoutMs: 15_000,
        },
      );
      expect(forB.code, forB.stderr).toBe(0);
      expectAnsweredAndMovedOn(forB.stdout);
      expect(await answerIn(home, taskA)).toMatchObject({ item: "A", content: { name: "for-A" } });
      expect(await answerIn(home, taskB)).toMatchObject({ item: "B", content: { name: "for-B" } });
    },
  );

  serial(
    "a call whose server asks before it replies, while another task runs: the call's own command is handed the question",
    async () => {
      const home = tempHome();
      const stdio = ["--stdio", `node ${SDK_V1_SERVER} --stdio`];
      const running = await runInProcess(["call", "work", "ms=20000", ...stdio, "--detach"], { home });
      expect(running.code, running.stderr).toBe(0);
      // Either could have asked (the server says not which): the command there to answer gets it, marked; held for
      // nobody, the call would have waited as long as the server does (here 10 minutes).
      const call = await runInProcess(["call", "ask-first", "item=first", ...stdio, "--input", FITS, "--json"], {
        home,
        timeoutMs: 20_000,
      });
      expect(call.code, call.stderr).toBe(0);
      expect(events(call.stdout).at(-1)).toMatchObject({ type: "result", status: "completed" });
      await runInProcess(["cancel", running.stdout.trim()], { home });
    },
  );
});

describe("the SDK's example servers, unmodified", { concurrent: true }, () => {
  serial(
    "simpleTaskInteractive: call --detach, then watch --input from a later command completes (questions on the GET stream)",
    async () => {
      const server = await startExample("simpleTaskInteractive.js", "PORT");
      try {
        const home = tempHome();
        const call = await runInProcess(
          ["call", "confirm_delete", "filename=notes.txt", "-s", server.url, "--detach"],
          {
            home,
          },
        );
        expect(call.code, call.stderr).toBe(0);
        const taskId = call.stdout.trim();
        const watched = await runInProcess(["watch", taskId, "--input", JSON.stringify({ confirm: true })], { home });
        expect(watched.code, watched.stderr).toBe(0);
        expect(watched.stdout).toMatch(/Deleted 'notes\.txt'/);
      } finally {
        await server.stop();
      }
    },
  );

  serial(
    "simpleStreamableHttp: collect-user-info-task --detach prints the id, exits 0, and a later respond completes it",
    async () => {
      const server = await startExample("simpleStreamableHttp.js", "MCP_PORT");
      try {
        const home = tempHome();
        const call = await runInProcess(
          ["call", "collect-user-info-task", "infoType=contact", "-s", server.url, "--detach"],
          {
            home,
          },
        );
        expect(call.code, call.stderr).toBe(0);
        const taskId = call.stdout.trim();
        expect(taskId).toMatch(/^[0-9a-f-]{8,}$/);
        // Unfit first (email missing): kept; then the fitting answer.
        const unfit = await runInProcess(["respond", taskId, "--input", JSON.stringify({ name: "Ada" })], { home });
        expect(unfit.code, unfit.stderr).toBe(6);
        oneError(unfit);
        const responded = await runInProcess(
          ["respond", taskId, "--input", JSON.stringify({ name: "Ada", email: "ada@example.com" })],
          { home },
        );
        expect(responded.code, responded.stderr).toBe(0);
        const result = await runInProcess(["result", taskId], { home });
        expect(result.code, result.stderr).toBe(0);
        expect(result.stdout).toMatch(/Collected contact info:[\s\S]*"email": "ada@example\.com"/);
      } finally {
        await server.stop();
      }
    },
  );
});

// Over HTTP these share the SDK v1 server with the group above: they run after the groups that run side by side.
describe.each(transports)("respond answers the question it was for, not the next one, over $name", ({ server }) => {
  it("the task asks again at once, the same form: respond answers only the first; a later respond the second", async () => {
    const home = tempHome();
    const call = await runInProcess(["call", "ask-twice", "item=twice", ...server(), "--detach"], { home });
    expect(call.code, call.stderr).toBe(0);
    const taskId = call.stdout.trim();
    const first = await runInProcess(["respond", taskId, "--input", FITS, "--json"], { home });
    expect(first.code, first.stderr).toBe(0);
    const doc = JSON.parse(first.stdout) as Record<string, unknown>;
    // One answer, and the task asks again: the next question is left for a later command.
    expect(doc).toMatchObject({ taskId, status: "input_required", outcome: null });
    expect(doc.answered).toHaveLength(1);
    expect(doc.inputRequests).toEqual([expect.objectContaining({ message: "Again twice" })]);
    const text = await runInProcess(["get", taskId, "--json"], { home });
    expect(JSON.parse(text.stdout)).toMatchObject({ inputRequests: [{ message: "Again twice" }] });
    const second = await runInProcess(["respond", taskId, "--input", JSON.stringify({ name: "Bo", count: 3 })], {
      home,
    });
    expect(second.code, second.stderr).toBe(0);
    expectAnsweredAndMovedOn(second.stdout);
    expect(await answerIn(home, taskId)).toMatchObject({
      content: { name: "Ada", count: 2 },
      again: { action: "accept", content: { name: "Bo", count: 3 } },
    });
  });

  it("the next question has other fields: respond exits 0 with its document and says the task asks again", async () => {
    const home = tempHome();
    const call = await runInProcess(["call", "ask-twice", "item=other", "other=true", ...server(), "--detach"], {
      home,
    });
    expect(call.code, call.stderr).toBe(0);
    const taskId = call.stdout.trim();
    const first = await runInProcess(["respond", taskId, "--input", FITS], { home });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/^answered; task \S+ asks again: Color for other$/m);
    expect(first.stdout).toMatch(/mcp-task respond /);
    const declined = await runInProcess(["respond", taskId, "--decline", "--json"], { home });
    expect(declined.code, declined.stderr).toBe(0);
    expectAnsweredAndMovedOn(declined.stdout);
    expect(await answerIn(home, taskId)).toMatchObject({
      content: { name: "Ada", count: 2 },
      again: { action: "decline" },
    });
  });
});

it("the server gives up on a question a person is looking at: the question is withdrawn from them and they are told", async () => {
  const home = tempHome();
  // The broker this starts is an mcp-task process of its own: it finds the home (and its grace) in the environment.
  const saved = { home: process.env.MCP_TASK_HOME, grace: process.env.MCP_TASK_BROKER_GRACE };
  Object.assign(process.env, { MCP_TASK_HOME: home, MCP_TASK_BROKER_GRACE: "1s" });
  const descriptor = {
    transport: "stdio" as const,
    command: process.execPath,
    args: [SDK_V1_SERVER, "--stdio", "--answer-timeout", "1500"],
  };
  const wire = await connectBroker({
    home,
    descriptor,
    name: "sdk v1 server",
    start: true,
    self: [process.execPath, join(ROOT, "bin/mcp-task.js")],
    clock: systemClock,
  }).finally(() =>
    Object.assign(process.env, { MCP_TASK_HOME: saved.home ?? "", MCP_TASK_BROKER_GRACE: saved.grace ?? "" }),
  );
  try {
    const withdrawn: string[] = [];
    wire.on("questionWithdrawn", (_taskId, request) => withdrawn.push(String(request.params.message)));
    let stoppedAsking = false;
    // A person who does not answer in time: asked, and told to stop when the question goes away.
    const person: InputProvider = {
      available: true,
      answer: (_request, _taskId, signal) =>
        new Promise((_resolve, reject) =>
          signal?.addEventListener("abort", () => ((stoppedAsking = true), reject(new Error("withdrawn"))), {
            once: true,
          }),
        ),
    };
    const engine = new TaskEngine(wire, systemClock, person);
    const started = await engine.call("confirm", { item: "late" }, { task: "auto" });
    if (started.kind !== "task") throw new Error("expected a task");
    // Saved as `call` saves it: the broker writes the outcome there before it leaves.
    await new Tracker(new HandleStore(home), systemClock).start(
      { name: "sdk v1 server", descriptor },
      wire,
      "confirm",
      { item: "late" },
      started.snapshot,
    );
    let last: Snapshot | undefined;
    for await (const snapshot of engine.watch(started.snapshot.taskId, {
      answerInput: true,
      initial: started.snapshot,
    }))
      last = snapshot;
    expect(stoppedAsking).toBe(true);
    expect(withdrawn).toEqual(["Confirm late"]);
    // What the task does without the answer is the server's to say: this one fails the task.
    expect(last?.status).toBe("failed");
  } finally {
    await wire.close();
  }
});

it("Esc in the live form (a real terminal, tmux): exit 130 with the question kept; a later watch shows it again", async () => {
  const home = tempHome();
  const bin = `${process.execPath} ${join(ROOT, "bin/mcp-task.js")}`;
  const tmux = (...args: string[]) => execFileSync("tmux", args, { encoding: "utf8" });
  const sessions: string[] = [];
  const open = (command: string) => {
    const name = `mcp-task-questions-${process.pid}-${sessions.length}`;
    sessions.push(name);
    tmux(
      "new-session",
      "-d",
      "-s",
      name,
      "-x",
      "120",
      "-y",
      "40",
      `env -u CI NO_COLOR=1 MCP_TASK_HOME=${home} MCP_TASK_BROKER_GRACE=1s ${command}; echo EXIT=$?; sleep 60`,
    );
    return name;
  };
  const waitFor = (name: string, pattern: RegExp) =>
    until(
      () => {
        const text = tmux("capture-pane", "-p", "-t", name);
        return pattern.test(text) && text;
      },
      { everyMs: 100, what: `the screen showing ${pattern}` },
    );
  try {
    const call = open(`${bin} call confirm item=esc -s ${http().url}`);
    await waitFor(call, /Confirm esc/);
    tmux("send-keys", "-t", call, "Escape");
    const done = await waitFor(call, /EXIT=\d+/);
    expect(done).toMatch(/EXIT=130/);
    expect(done).toMatch(/resume with: mcp-task watch/);
    const taskId = await taskIdOf(home, "confirm");
    const watch = open(`${bin} watch ${taskId}`);
    await waitFor(watch, /Confirm esc/);
    tmux("send-keys", "-t", watch, "Escape");
    await waitFor(watch, /EXIT=130/);
    const responded = await runInProcess(["respond", taskId, "--input", FITS], { home });
    expect(responded.code, responded.stderr).toBe(0);
    expect(await answerIn(home, taskId)).toMatchObject({ item: "esc", content: { name: "Ada", count: 2 } });
  } finally {
    for (const name of sessions) {
      try {
        tmux("kill-session", "-t", name);
      } catch {
        /* already gone */
      }
    }
  }
});
