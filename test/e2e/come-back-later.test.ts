// Come back later: a task started with --detach on a stdio server, come back after it ended and after its broker's
// grace has passed (no broker left). The broker wrote the outcome onto the handle before it left, so `result`,
// `watch`, `get` and `respond` answer from it with the task's exit code (0, 1, 3), `list` shows it, and nothing turns
// it into `gone`. Against server-everything (V1), our V2 test server and the demo server (V1) over stdio.
// Starting and cancelling run in-process (runInProcess); coming back after the broker has gone is the point of the
// file, so each task is first read back by a new process (runCli: `result`, a process that never saw the task
// finds what the broker left); the other ways to ask (watch, get, respond, list, cancel) read the same store from a
// fresh in-process context (the handle on disk is all either has).
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { events, runCli, tempHome } from "../helpers/cli.js";
import { runInProcess } from "../helpers/context.js";
import { until } from "../helpers/until.js";
import { everythingStdio, hostileStdio, ROOT, v2Stdio } from "../helpers/servers.js";

const demoStdio = () =>
  `node ${join(ROOT, "dist/test-servers/demo-server-main.js")} --stdio --generation v1 --speed 4 --quiet --store ${mkdtempSync(join(tmpdir(), "mcp-task-durable-"))}`;

async function detach(home: string, args: string[]): Promise<string> {
  const run = await runInProcess(["call", ...args, "--detach", "--json"], { home });
  expect(run.code, run.stderr).toBe(0);
  return events(run.stdout)[0].taskId as string;
}

/** Until no broker runs for this home (its record is removed as it leaves); the bound is hang-only. */
async function brokersGone(home: string, hangMs = 40_000): Promise<void> {
  const dir = join(home, "brokers");
  await until(() => !existsSync(dir) || !readdirSync(dir).some((f) => f.endsWith(".sock") || f.endsWith(".json")), {
    hangMs,
    everyMs: 100,
    what: `the brokers of ${home} leaving`,
  });
}

/**
 * Every way to ask for a finished task, with its exit code and what it must say: `result` from a new process (runCli:
 * the come-back-later step, a process that did not start the task finds what the broker left), the others from a
 * fresh in-process context over the same home.
 */
async function comeBack(home: string, id: string, code: number, status: string, text?: RegExp): Promise<void> {
  const result = await runCli(["result", id], { home });
  expect(result.code, `result: ${result.stderr}`).toBe(code);
  if (text) expect(result.stdout).toMatch(text);
  const watched = await runInProcess(["watch", id, "--json"], { home });
  expect(watched.code, `watch: ${watched.stderr}`).toBe(code);
  expect(events(watched.stdout).at(-1)).toMatchObject({ type: "result", taskId: id, status });
  const got = await runInProcess(["get", id, "--json"], { home });
  expect(got.code, `get: ${got.stderr}`).toBe(0);
  expect(JSON.parse(got.stdout)).toMatchObject({ taskId: id, status });
  const responded = await runInProcess(["respond", id, "--input", "{}", "--json"], { home });
  expect(responded.code, `respond: ${responded.stderr}`).toBe(code);
  expect(JSON.parse(responded.stdout)).toMatchObject({ taskId: id, outcome: { status } });
  const listed = (
    JSON.parse((await runInProcess(["list", "--json"], { home })).stdout) as Array<Record<string, unknown>>
  ).find((row) => row.taskId === id);
  expect(listed).toMatchObject({ status, gone: null });
}

const cases = [
  {
    name: "server-everything (V1)",
    stdio: () => everythingStdio,
    completes: ["simulate-research-query", "topic=durable"],
    report: /# Research Report: durable/,
    cancels: ["simulate-research-query", "topic=cancelled"],
  },
  {
    name: "our V2 test server",
    stdio: () => v2Stdio(),
    completes: ["task_complete", "ms=500", "text=kept by the broker"],
    report: /kept by the broker/,
    fails: ["task_fail", "ms=300"],
    cancels: ["task_slow", "ms=60000"],
  },
  {
    name: "a server on the official SDK's v1 line (V1)",
    stdio: () => `node ${join(ROOT, "dist/test-servers/sdk-v1-server.js")} --stdio`,
    completes: ["work", "ms=500"],
    report: /work done after 500 ms/,
    fails: ["work", "ms=300", "fail=true"],
    cancels: ["work", "ms=600000"],
  },
  {
    name: "the demo server (V1)",
    stdio: demoStdio,
    fails: ["sync_ledger"],
    cancels: ["export_ledger"],
  },
];

// Concurrent: each test has its own home (its brokers, its stdio servers); what they wait on is their tasks' ends and
// their brokers' grace, which overlap.
describe.concurrent("come back later", () => {
  for (const c of cases) {
    it(`${c.name} over stdio: detached tasks are answered from their handles after the broker has gone`, async () => {
      const home = tempHome();
      const stdio = c.stdio();
      const completed = c.completes && (await detach(home, [...c.completes, "--stdio", stdio]));
      const failed = c.fails && (await detach(home, [...c.fails, "--stdio", stdio]));
      const cancelled = await detach(home, [...c.cancels, "--stdio", stdio]);
      const cancel = await runInProcess(["cancel", cancelled, "--json"], { home });
      expect(cancel.code, cancel.stderr).toBe(0);
      // Nobody watches: the broker follows its tasks to their ends, writes them down, and leaves after its grace.
      await brokersGone(home);
      if (completed) await comeBack(home, completed, 0, "completed", c.report);
      if (failed) await comeBack(home, failed, 1, "failed");
      await comeBack(home, cancelled, 3, "cancelled");
      // A cancel of a task that has ended says so, from the handle: it stays cancelled.
      const again = await runInProcess(["cancel", cancelled, "--json"], { home });
      expect(again.code).toBe(0);
      expect(JSON.parse(again.stdout)).toMatchObject({ status: "cancelled", alreadyEnded: true });
    }, 120_000);
  }

  it("a broker does not outlive a task past its ttl that its server calls working for ever (and the handle says expired)", async () => {
    const home = tempHome();
    const id = await detach(home, ["past_ttl", "--stdio", hostileStdio("bad-timing", "v2")]);
    // ttl 1 s; the broker's own reading comes every 5 s at most, then its grace (1 s here): gone well within 20 s.
    await brokersGone(home, 20_000);
    // Come back later: a fresh context (list), then a new process (runCli: get), find what the broker left.
    const listed = (
      JSON.parse((await runInProcess(["list", "--json"], { home })).stdout) as Array<Record<string, unknown>>
    ).find((row) => row.taskId === id);
    expect(listed).toMatchObject({ taskId: id, expired: true });
    // Its broker gone past its ttl: a later command says it has expired (exit 5), not that its server exited.
    const got = await runCli(["get", id], { home });
    expect(got.code, got.stderr).toBe(5);
    expect(got.stderr).toMatch(/has expired: its ttl passed/);
  }, 60_000);

  it("a task its server forgot while detached (its ttl passed) is not found later (exit 5), never 'its server exited'", async () => {
    const home = tempHome();
    const stdio = `node ${join(ROOT, "dist/test-servers/sdk-v1-server.js")} --stdio`;
    // The SDK's InMemoryTaskStore drops a task at its ttl: the broker's read then hears "not found".
    const forgotten = await detach(home, ["work", "ms=8000", "--ttl", "1500", "--stdio", stdio]);
    await brokersGone(home);
    // Come back later: a new process (runCli: get), then fresh in-process contexts, find what the broker left.
    for (const verb of ["get", "result", "watch"]) {
      const run = await (verb === "get" ? runCli : runInProcess)([verb, forgotten, "--json"], { home });
      expect(run.code, `${verb}: ${run.stderr}`).toBe(5);
      expect(events(run.stdout).at(-1)).toMatchObject({ type: "error", code: "not_found", taskId: forgotten });
      expect(run.stdout + run.stderr).not.toMatch(/server exited|start the task again/);
    }
    const listed = (
      JSON.parse((await runInProcess(["list", "--json"], { home })).stdout) as Array<Record<string, unknown>>
    ).find((row) => row.taskId === forgotten);
    // Marked by what was seen first: the broker's read that the server does not know it, or (a loaded machine's
    // broker gone before that read) a later command's finding that its ttl passed with its server gone.
    expect(listed).toMatchObject({
      expired: true,
      gone: expect.stringMatching(/does not know task|has expired: its ttl passed/),
    });
    expect(String(listed?.gone)).not.toMatch(/server exited/);
  }, 60_000);

  it("a stdio server that exits as its task ends: the call's error says the task ended with its server, never to watch it", async () => {
    const home = tempHome();
    const stdio = `node ${join(ROOT, "dist/test-servers/sdk-v1-server.js")} --stdio --exit-after-work`;
    const run = await runInProcess(["call", "work", "ms=800", "fail=true", "--stdio", stdio, "--json"], { home });
    const last = events(run.stdout).at(-1)!;
    // The outcome may be read before the server goes (exit 1); when it is not, the task went with its server.
    if (run.code === 1) expect(last).toMatchObject({ type: "result", status: "failed" });
    else {
      expect(run.code, run.stderr).toBe(4);
      expect(last).toMatchObject({ type: "error", hint: "the task ended with its server: start it again" });
    }
    expect(run.stdout + run.stderr).not.toMatch(/follow it again with/);
  }, 60_000);

  it("the same relative --stdio line in two folders is two servers (two brokers); list --remote -s <line> asks the one its broker runs", async () => {
    const home = tempHome();
    const folder = (file: string, text: string) => {
      const dir = mkdtempSync(join(tmpdir(), "mcp-task-folder-"));
      writeFileSync(join(dir, file), text);
      return dir;
    };
    const importing = (server: string) => `await import(${JSON.stringify(join(ROOT, "dist/test-servers", server))});\n`;
    // Each folder's server.mjs is our V2 test server with a ttl of its own: which one ran shows in the task.
    const folders = [1111, 2222].map((ttl) => ({
      dir: folder("server.mjs", `process.argv.push("--ttl", "${ttl}000");\n${importing("v2-server.js")}`),
      ttl: ttl * 1000,
    }));
    for (const { dir, ttl } of folders) {
      const run = await runInProcess(
        ["call", "task_slow", "ms=500", "--stdio", "node server.mjs --stdio", "--detach", "--json"],
        { home, cwd: dir },
      );
      expect(run.code, run.stderr).toBe(0);
      expect(events(run.stdout)[0]).toMatchObject({ type: "task", ttlMs: ttl });
    }
    // A V1 server (tasks/list) by a relative line: from another folder, the saved task's line names its server, and
    // the one its broker runs is asked (a fresh one would know no task).
    const v1 = folder("v1.mjs", importing("sdk-v1-server.js"));
    const line = "node v1.mjs --stdio";
    const started = await runInProcess(["call", "work", "ms=4000", "--stdio", line, "--detach", "--json"], {
      home,
      cwd: v1,
    });
    expect(started.code, started.stderr).toBe(0);
    const id = events(started.stdout)[0].taskId;
    const remote = await runInProcess(["list", "--remote", "-s", line, "--json"], { home, cwd: tmpdir() });
    expect(remote.code, remote.stderr).toBe(0);
    expect(JSON.parse(remote.stdout)).toEqual([expect.objectContaining({ taskId: id, tool: "work" })]);
    await brokersGone(home);
    // No broker left: the saved task, and a note saying why nothing else is (a new process, coming back later).
    const after = await runCli(["list", "--remote", "-s", line, "--json"], { home });
    expect(after.code, after.stderr).toBe(0);
    expect(after.stderr).toMatch(/no broker runs for node v1\.mjs --stdio, so no server holds its tasks/);
  }, 60_000);
});
