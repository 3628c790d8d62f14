// The task commands' edge cases, against real servers (our V2 server, the SDK v1 server,
// the hostile server's unsafe ids): `wait --any` stopped before any task ended, `respond` on a task that ends,
// `respond --template` over several questions and before any, the hints of `respond` and of ids that start with
// `-`, `list -s` naming a server as `get -s` does, `demo --speed`, and `get --json` on a gone task.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { events, expectAnsweredAndMovedOn, startCli, tempHome } from "../helpers/cli.js";
import { hastyClock, runInProcess } from "../helpers/context.js";
import {
  ROOT,
  startHostileHttp,
  startListening,
  startV2Http,
  V2_SERVER,
  type RunningServer,
} from "../helpers/servers.js";
import { UNSAFE_IDS } from "../helpers/unsafe-ids.js";
import { until } from "../helpers/until.js";

const SDK_V1_SERVER = join(ROOT, "dist/test-servers/sdk-v1-server.js");

let v2: RunningServer;
let v1: RunningServer;
beforeAll(async () => {
  [v2, v1] = await Promise.all([
    startV2Http("--poll-interval", "200"),
    startListening([SDK_V1_SERVER, "--port", "0"], "sdk v1 server"),
  ]);
});
afterAll(async () => {
  await Promise.all([v2?.stop(), v1?.stop()]);
});

/** How many tasks/get of task `taskId` the V2 server has logged (on its stderr) from now on. */
function readsOf(server: RunningServer, taskId: string): () => number {
  let reads = 0;
  const mark = `task=${taskId.slice(0, 8)}`;
  createInterface({ input: server.process.stderr! }).on("line", (line) => {
    if (line.includes("rpc tasks/get ") && line.includes(mark)) reads++;
  });
  return () => reads;
}

async function detach(home: string, server: string[], ...args: string[]): Promise<string> {
  const run = await runInProcess(["call", ...args, ...server, "--detach", "--json"], { home });
  expect(run.code, run.stderr).toBe(0);
  return events(run.stdout)[0]!.taskId as string;
}

/** A call that stops at its question (nobody to ask): exit 6, the task saved. */
async function askedAndLeft(home: string, server: string[], ...args: string[]): Promise<string> {
  const run = await runInProcess(["call", ...args, ...server, "--json"], { home });
  expect(run.code, run.stderr).toBe(6);
  return events(run.stdout)[0]!.taskId as string;
}

// Concurrent: each test has its own home; the two servers are shared (a test counts only its own task's reads).
describe.concurrent("task commands", () => {
  describe("wait --any stopped before any task ended", { timeout: 60_000 }, () => {
    it("--timeout: exit 7, the error line and the wait hint (text and --json)", async () => {
      const home = tempHome();
      const id = await detach(home, ["-s", v2.url], "task_slow", "ms=20000");
      // On a hurried clock: the timeout's second (and the polls' pauses) pass in 50 ms of real time each.
      const text = await runInProcess(["wait", id, "--any", "--timeout", "1s"], { home, clock: hastyClock() });
      expect(text.code, text.stderr).toBe(7);
      expect(text.stderr).toMatch(/stopped waiting after 1 s; 1 task\(s\) keep running/);
      expect(text.stderr).toContain(`hint: wait for them again with: mcp-task wait --any ${id}`);
      const json = await runInProcess(["wait", id, "--any", "--timeout", "1s", "--json"], {
        home,
        clock: hastyClock(),
      });
      expect(json.code, json.stderr).toBe(7);
      expect(events(json.stdout)).toEqual([expect.objectContaining({ type: "error", code: "still_running" })]);
    });

    it("Ctrl-C (a process, SIGINT): exit 130 with the error line and the wait hint", async () => {
      const home = tempHome();
      const id = await detach(home, ["-s", v2.url], "task_slow", "ms=20000");
      const reads = readsOf(v2, id);
      const waiting = startCli(["wait", id, "--any"], { home });
      // Interrupted once it follows the task (its first read done: the server saw it).
      await until(() => reads() > 0, { what: "the wait's first read of the task" });
      waiting.child.kill("SIGINT");
      expect(await waiting.exited).toBe(130);
      expect(waiting.output.stderr).toMatch(/interrupted; 1 task\(s\) keep running/);
      expect(waiting.output.stderr).toContain(`hint: wait for them again with: mcp-task wait --any ${id}`);
    });
  });

  describe("respond on a task that ends", { timeout: 90_000 }, () => {
    it("V1 over HTTP, --decline: the task fails; outcome set, exit 1, the question named as answered", async () => {
      const home = tempHome();
      const id = await askedAndLeft(home, ["-s", v1.url], "sample", "prompt=x");
      const run = await runInProcess(["respond", id, "--decline", "--json"], { home });
      expect(run.code, run.stderr).toBe(1);
      const doc = JSON.parse(run.stdout) as Record<string, unknown>;
      expect(doc).toMatchObject({ taskId: id, status: "failed", outcome: { status: "failed" } });
      expect(JSON.stringify(doc.outcome)).toMatch(/User rejected sampling request/);
      expect(doc.answered).toHaveLength(1);
    });

    it("V1 over stdio (a broker), --sampling-reply: completed, outcome set, the question named", async () => {
      const home = tempHome();
      const stdio = ["--stdio", `node ${SDK_V1_SERVER} --stdio`];
      const id = await askedAndLeft(home, stdio, "sample", "prompt=x");
      const run = await runInProcess(["respond", id, "--sampling-reply", "R2", "--json"], { home });
      expect(run.code, run.stderr).toBe(0);
      const doc = JSON.parse(run.stdout) as { answered: string[]; outcome: { status: string } | null };
      expect(doc.outcome?.status).toBe("completed");
      expect(doc.answered).toHaveLength(1);
      await runInProcess(["server", "stop", stdio[1]!], { home });
    });

    it("V2, --sampling-reply: completed with its outcome; the text says it ended, not 'completed again'", async () => {
      const home = tempHome();
      const id = await askedAndLeft(home, ["-s", v2.url], "task_sampling", "text=hi");
      const json = await runInProcess(["respond", id, "--sampling-reply", "R", "--json"], { home });
      expect(json.code, json.stderr).toBe(0);
      const doc = JSON.parse(json.stdout) as { answered: string[]; status: string; outcome: { status: string } | null };
      expect(doc.status).toBe("completed");
      expect(doc.outcome?.status).toBe("completed");
      expect(doc.answered).toHaveLength(1);
      const other = await askedAndLeft(home, ["-s", v2.url], "task_sampling", "text=hi");
      const text = await runInProcess(["respond", other, "--sampling-reply", "R"], { home });
      expect(text.code, text.stderr).toBe(0);
      expect(text.stdout).toContain(`answered; task ${other} ended (completed); see it with: mcp-task result ${other}`);
      expect(text.stdout).not.toMatch(/again/);
    });
  });

  describe("respond --template", { timeout: 60_000 }, () => {
    it("covers every question the task lists: one object, fed back, answers them all", async () => {
      const home = tempHome();
      const id = await askedAndLeft(home, ["-s", v2.url], "multi_input");
      const run = await runInProcess(["respond", id, "--template", "--json"], { home });
      expect(run.code, run.stderr).toBe(0);
      const doc = JSON.parse(run.stdout) as { template: Record<string, unknown>; keys: string[] };
      expect(Object.keys(doc.template).sort()).toEqual(["confirm", "name"]);
      expect(doc.keys).toHaveLength(2);
      const file = join(home, "answer.json");
      writeFileSync(file, JSON.stringify({ ...doc.template, name: "Ada", confirm: true }));
      const answered = await runInProcess(["respond", id, "--input", `@${file}`, "--json"], { home });
      expect(answered.code, answered.stderr).toBe(0);
      expectAnsweredAndMovedOn(answered.stdout);
      const result = await runInProcess(["result", id], { home });
      expect(result.stdout).toContain('multi_input: name="Ada", confirm=true');
    });

    it("a V2 task that asks nothing yet: says so, without the 2025-11-25 wording", async () => {
      const home = tempHome();
      const id = await detach(home, ["-s", v2.url], "task_slow", "ms=20000");
      const run = await runInProcess(["respond", id, "--template"], { home });
      expect(run.code).toBe(6);
      expect(run.stderr).toMatch(/asks nothing yet \(working\)/);
      expect(run.stderr).not.toMatch(/2025-11-25/);
      await runInProcess(["cancel", id], { home });
    });
  });

  describe("hints", { timeout: 60_000 }, () => {
    it("respond --timeout hints respond with the same answer, not watch", async () => {
      const home = tempHome();
      const id = await detach(home, ["-s", v2.url], "task_slow", "ms=20000");
      // On a hurried clock: the timeout's second passes in 50 ms of real time.
      const run = await runInProcess(["respond", id, "--input", '{"name":"Ada Lovelace"}', "--timeout", "1s"], {
        home,
        clock: hastyClock(),
      });
      expect(run.code).toBe(7);
      expect(run.stderr).toContain(
        `hint: answer it later with: mcp-task respond --input '{"name":"Ada Lovelace"}' ${id}`,
      );
      await runInProcess(["cancel", id], { home });
    });

    it("an id that starts with -: the template's hint puts its options before --, and it runs", async () => {
      const home = tempHome();
      const hostile = await startHostileHttp("unsafe-ids", "v2");
      try {
        const id = "-rf /";
        const n = UNSAFE_IDS.indexOf(id);
        expect(n).toBeGreaterThanOrEqual(0);
        // The task works for a second, then asks (V2 key "confirm"): the call stops there (exit 6).
        await askedAndLeft(home, ["-s", hostile.url], "unsafe", `n=${n}`);
        const template = await runInProcess(["respond", "--template", "--", id], { home });
        expect(template.code, template.stderr).toBe(0);
        expect(template.stderr).toContain("answer with: mcp-task respond --input @answer.json -- '-rf /'");
        const file = join(home, "answer.json");
        writeFileSync(file, template.stdout);
        const answered = await runInProcess(["respond", "--input", `@${file}`, "--", id], { home });
        expect(answered.code, answered.stderr).toBe(0);
      } finally {
        await hostile.stop();
      }
    });
  });

  describe("list -s, get --json, demo --speed", { timeout: 60_000 }, () => {
    it("list -s takes the server a saved task names (a --stdio command line), as get -s; --watch refuses an unknown one", async () => {
      const home = tempHome();
      const line = `node ${V2_SERVER} --stdio`;
      const id = await detach(home, ["--stdio", line], "task_slow", "ms=20000");
      const listed = await runInProcess(["list", "-s", line, "--json"], { home });
      expect(listed.code, listed.stderr).toBe(0);
      expect((JSON.parse(listed.stdout) as Array<{ taskId: string }>).map((row) => row.taskId)).toEqual([id]);
      expect((await runInProcess(["get", id, "-s", line], { home })).code).toBe(0);
      const unknown = await runInProcess(["list", "-s", "nosuch"], { home });
      expect(unknown.code).toBe(2);
      const watched = await runInProcess(["list", "--watch", "-s", "nosuch"], { home, timeoutMs: 10_000 });
      expect(watched.code).toBe(2);
      expect(watched.stderr).toMatch(/unknown server: nosuch/);
      await runInProcess(["cancel", id], { home });
      await runInProcess(["server", "stop", line], { home });
    });

    it("get --json on a task whose stdio server is gone names the task", async () => {
      const home = tempHome();
      const line = `node ${SDK_V1_SERVER} --stdio`;
      const id = await detach(home, ["--stdio", line], "sample", "prompt=x");
      expect((await runInProcess(["server", "stop", line], { home })).code).toBe(0);
      const run = await runInProcess(["get", id, "--json"], { home });
      expect(run.code).toBe(4);
      expect(events(run.stdout)).toEqual([expect.objectContaining({ type: "error", code: "server", taskId: id })]);
    });

    it("demo --speed abc: exit 2, one line", async () => {
      const run = await runInProcess(["demo", "--speed", "abc"], { home: tempHome() });
      expect(run.code).toBe(2);
      expect(run.stderr.trim().split("\n")).toHaveLength(1);
      expect(run.stderr).toMatch(/--speed takes a number above 0, not abc/);
    });
  });

  describe("call --detach on a call the server answers at once", { timeout: 60_000 }, () => {
    it("stdout stays empty (no id a later command would refuse), stderr says why and shows the result; --json: a result event, no task event", async () => {
      const home = tempHome();
      const text = await runInProcess(["call", "echo", "text=PO-1001 Acme", "-s", v2.url, "--detach"], { home });
      expect(text.code, text.stderr).toBe(0);
      expect(text.stdout).toBe("");
      expect(text.stderr).toMatch(/echo was answered at once, not as a task: there is no task id to print/);
      expect(text.stderr).toContain("PO-1001 Acme");
      const json = await runInProcess(["call", "echo", "text=PO-1001 Acme", "-s", v2.url, "--detach", "--json"], {
        home,
      });
      expect(json.code, json.stderr).toBe(0);
      const lines = events(json.stdout);
      expect(lines.map((line) => line.type)).toEqual(["result"]);
      expect(lines[0]).toMatchObject({ taskId: null, status: "completed" });
      // Nothing was saved: `list` has no row for it.
      const list = await runInProcess(["list", "--json"], { home });
      expect(JSON.parse(list.stdout)).toEqual([]);
    });
  });
});
