// Tasks that outlive the command that started them: start with --detach, then reach the task again from new
// commands (watch, get, respond, cancel, result), against a real V1 server and our V2 server, both over HTTP. The
// commands run in-process; a later process finding what an earlier one left (the first case of each server) and
// Ctrl-C (a signal) run the binary.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { events, runCli, startCli, tempHome } from "../helpers/cli.js";
import { runInProcess } from "../helpers/context.js";
import { until } from "../helpers/until.js";
import { startEverythingHttp, startV2Http, type RunningServer } from "../helpers/servers.js";

let v1: RunningServer;
let v2: RunningServer;
beforeAll(async () => {
  [v1, v2] = await Promise.all([startEverythingHttp(), startV2Http()]);
});
afterAll(async () => {
  await Promise.all([v1?.stop(), v2?.stop()]);
});

/** Every --json stream command: each line parses, and the last is `result` or `error`. */
function stream(stdout: string) {
  const lines = events(stdout);
  expect(["result", "error"]).toContain(lines.at(-1)?.type);
  return lines;
}

async function detach(home: string, ...args: string[]): Promise<string> {
  return detachWith(runInProcess, home, ...args);
}

async function detachWith(run: typeof runCli, home: string, ...args: string[]): Promise<string> {
  const started = await run(["call", ...args, "--detach", "--json"], { home });
  expect(started.code).toBe(0);
  const lines = events(started.stdout);
  expect(lines).toHaveLength(1);
  expect(lines[0].type).toBe("task");
  return lines[0].taskId as string;
}

// Concurrent: each test has its own home (and so its own V1 session); the two servers are shared, and what the
// tests wait on (a research task's 4 s, a task that outlasts a Ctrl-C) overlaps.
describe.concurrent("reattach", () => {
  describe.each([
    ["V1 (server-everything)", () => v1.url, ["simulate-research-query", "topic=python"], /Research Report: python/],
    ["V2 (our server)", () => v2.url, ["task_complete", "ms=500", "text=v2-done"], /v2-done/],
  ] as const)("%s over HTTP", (_name, url, task, report) => {
    it("detach, then watch from a new process prints the result (exit 0)", async () => {
      const home = tempHome();
      // Processes: a later one finds what an earlier one left (the handle, and the V1 session).
      const id = await detachWith(runCli, home, ...task, "-s", url());
      const watched = await runCli(["watch", id], { home });
      expect(watched.code).toBe(0);
      expect(watched.stdout).toMatch(report);
      // Known now: result and a JSON watch answer from the handle.
      const again = await runInProcess(["result", id.slice(0, 8), "--json"], { home });
      expect(again.code).toBe(0);
      expect(stream(again.stdout).at(-1)).toMatchObject({ type: "result", taskId: id, status: "completed" });
    });

    it("get reads a fresh status and updates the handle; export/import carries it to another home", async () => {
      const home = tempHome();
      const id = await detach(home, ...task, "-s", url());
      const got = await runInProcess(["get", id, "--json"], { home });
      expect(got.code).toBe(0);
      expect(JSON.parse(got.stdout)).toMatchObject({
        taskId: id,
        tool: task[0],
        status: expect.stringMatching(/working|input_required|completed/),
      });
      const exported = await runInProcess(["export", id], { home });
      expect(exported.code).toBe(0);
      const otherHome = tempHome();
      expect((await runInProcess(["import", "--yes", "-"], { home: otherHome, input: exported.stdout })).code).toBe(0);
      const watched = await runInProcess(["watch", id, "--json"], { home: otherHome });
      expect(watched.code).toBe(0);
      expect(JSON.stringify(stream(watched.stdout).at(-1))).toMatch(report);
    });

    it("get of an unknown id exits 5, on the server and in the store", async () => {
      const home = tempHome();
      const id = await detach(home, ...task, "-s", url());
      const noHandle = await runInProcess(["get", "ffffffff-no-such-task", "--json"], { home });
      expect(noHandle.code).toBe(5);
      expect(events(noHandle.stdout).at(-1)).toMatchObject({ type: "error", exitCode: 5 });
      // A handle whose task the server does not know: exit 5, and the handle is marked.
      const exported = JSON.parse((await runInProcess(["export", id], { home })).stdout);
      exported.taskId = "00000000-0000-4000-8000-000000000000";
      // A handle of a task still running, whatever this one did meanwhile: an outcome saved (a loaded machine ends the
      // task before the export) is final, and get would answer from it without asking the server.
      delete exported.outcome;
      exported.last = { ...exported.last, status: "working" };
      const otherHome = tempHome();
      await runInProcess(["import", "--yes", "-"], { home: otherHome, input: JSON.stringify(exported) });
      const unknown = await runInProcess(["get", exported.taskId], { home: otherHome });
      expect(unknown.code, unknown.stderr + unknown.stdout).toBe(5);
      const listed = JSON.parse((await runInProcess(["list", "--json"], { home: otherHome })).stdout);
      expect(listed[0].gone).toMatch(/does not know/);
    });
  });

  it("one id saved for two servers: an id command says so and names -s; -s picks the handle (get, watch, forget)", async () => {
    const home = tempHome();
    const id = await detach(home, "task_complete", "ms=300", "text=picked", "-s", v2.url);
    // The same task id saved for a second server (as two servers can hand out the same id): here one that is away.
    const other = "http://127.0.0.1:1/mcp";
    const copy = JSON.parse((await runInProcess(["export", id], { home })).stdout);
    copy.server = { name: other, descriptor: { ...copy.server.descriptor, url: other } };
    expect((await runInProcess(["import", "--yes", "-"], { home, input: JSON.stringify(copy) })).code).toBe(0);

    const ambiguous = await runInProcess(["get", id], { home });
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toContain(`matches 2 saved tasks`);
    expect(ambiguous.stderr).toMatch(/hint: pick one by its server, as in: -s http:\/\/127\.0\.0\.1:\d+\/mcp$/m);
    // The hinted option works as printed: the real server's task is read, the other server's is tried (and is away).
    const picked = await runInProcess(["watch", id.slice(0, 8), "-s", v2.url, "--json"], { home });
    expect(picked.code).toBe(0);
    expect(events(picked.stdout).at(-1)).toMatchObject({ type: "result", taskId: id, status: "completed" });
    const away = await runInProcess(["get", id, "--server", other], { home, env: { MCP_TASK_GIVE_UP: "1s" } });
    expect(away.code).toBe(4);
    const none = await runInProcess(["result", id, "-s", "nowhere"], { home });
    expect(none.code).toBe(5);
    expect(none.stderr).toMatch(/no saved task of server nowhere matches/);
    // Forgetting one leaves the other, which the id alone then finds.
    expect((await runInProcess(["forget", id, "-s", other], { home })).code).toBe(0);
    const alone = await runInProcess(["result", id, "--json"], { home });
    expect(alone.code).toBe(0);
    expect(JSON.stringify(events(alone.stdout).at(-1))).toContain("picked");
  });

  describe("cancel, respond and list", () => {
    it("cancel on a slow task, then a later watch exits 3 (V2)", async () => {
      const home = tempHome();
      const id = await detach(home, "task_slow", "ms=30000", "-s", v2.url);
      const cancelled = await runInProcess(["cancel", id, "--json"], { home });
      expect(cancelled.code).toBe(0);
      expect(JSON.parse(cancelled.stdout)).toMatchObject({ taskId: id, status: "cancelled", alreadyEnded: false });
      const watched = await runInProcess(["watch", id, "--json"], { home });
      expect(watched.code).toBe(3);
      expect(stream(watched.stdout).at(-1)).toMatchObject({ type: "result", status: "cancelled" });
    });

    it("cancel on a slow task, then a later watch exits 3 (V1)", async () => {
      const home = tempHome();
      const id = await detach(home, "simulate-research-query", "topic=go", "-s", v1.url);
      expect((await runInProcess(["cancel", id], { home })).code).toBe(0);
      expect((await runInProcess(["watch", id], { home })).code).toBe(3);
    });

    it("respond answers a V2 task waiting for input, and the task completes", async () => {
      const home = tempHome();
      const id = await detach(home, "task_input_once", "ms=200", "-s", v2.url);
      const responded = await runInProcess(["respond", id, "--input", '{"name":"Grace"}', "--json"], { home });
      expect(responded.code).toBe(0);
      expect(JSON.parse(responded.stdout)).toMatchObject({ taskId: id, answered: [expect.any(String)] });
      const watched = await runInProcess(["watch", id], { home });
      expect(watched.code).toBe(0);
      expect(watched.stdout.trim()).toBe("Hello, Grace");
    });

    it("respond answers a V1 task's elicitation through the saved session", async () => {
      const home = tempHome();
      const id = await detach(home, "simulate-research-query", "topic=python", "ambiguous=true", "-s", v1.url);
      const responded = await runInProcess(["respond", id, "--input", '{"interpretation":"comedy"}'], { home });
      expect(responded.code).toBe(0);
      const result = await runInProcess(["result", id], { home });
      expect(result.stdout).toContain("# Research Report: python (comedy)");
    });

    it("watch without an answer exits 6 at once and leaves the question for respond", async () => {
      const home = tempHome();
      const id = await detach(home, "task_input_once", "ms=100", "-s", v2.url);
      const watched = await runInProcess(["watch", id, "--json"], { home });
      expect(watched.code).toBe(6);
      expect(stream(watched.stdout).at(-1)).toMatchObject({ type: "error", exitCode: 6, taskId: id });
      expect((await runInProcess(["respond", id, "--input", '{"name":"Lin"}'], { home })).code).toBe(0);
      expect((await runInProcess(["result", id], { home })).stdout.trim()).toBe("Hello, Lin");
    });

    it("result --no-wait exits 7 while the task runs", async () => {
      const home = tempHome();
      const id = await detach(home, "task_slow", "ms=20000", "-s", v2.url);
      const result = await runInProcess(["result", id, "--no-wait", "--json"], { home });
      expect(result.code).toBe(7);
      expect(stream(result.stdout).at(-1)).toMatchObject({ type: "error", exitCode: 7 });
    });

    it("list merges local handles with the server's tasks/list (V1), filters, and forget/prune drop handles", async () => {
      const home = tempHome();
      const a = await detach(home, "task_slow", "ms=20000", "-s", v2.url);
      const b = await detach(home, "task_complete", "ms=100", "-s", v2.url);
      await runInProcess(["watch", b], { home });
      const all = JSON.parse((await runInProcess(["list", "--json"], { home })).stdout);
      expect(all.map((r: { taskId: string }) => r.taskId).sort()).toEqual([a, b].sort());
      const done = JSON.parse((await runInProcess(["list", "--status", "completed", "--json"], { home })).stdout);
      expect(done.map((r: { taskId: string }) => r.taskId)).toEqual([b]);
      // A V1 task started by someone else on the same session is unknown locally; --remote shows what the
      // server lists for our session.
      const c = await detach(home, "simulate-research-query", "topic=c", "-s", v1.url);
      const remote = JSON.parse((await runInProcess(["list", "--remote", "-s", v1.url, "--json"], { home })).stdout);
      expect(remote.map((r: { taskId: string }) => r.taskId)).toContain(c);
      expect((await runInProcess(["list", "--remote", "-s", v2.url], { home })).code).toBe(2);
      expect((await runInProcess(["prune"], { home })).code).toBe(0);
      const left = JSON.parse((await runInProcess(["list", "--json"], { home })).stdout).map(
        (r: { taskId: string }) => r.taskId,
      );
      expect(left).not.toContain(b);
      expect(left).toContain(a);
      expect((await runInProcess(["forget", a], { home })).code).toBe(0);
      expect((await runInProcess(["get", a], { home })).code).toBe(5);
      await runInProcess(["cancel", c], { home });
    });
  });

  describe("interruptions and expiry", () => {
    it("Ctrl-C stops waiting, not the task, and prints the command to resume (exit 130)", async () => {
      const home = tempHome();
      // A task that outlasts the test (cancelled at its end): on a loaded machine an 8 s one could end before the
      // watch, slow to start, took the signal, and the watch then exited 0 with its result.
      const id = await detach(home, "task_slow", "ms=600000", "-s", v2.url);
      const watching = startCli(["watch", id], { home });
      await until(() => watching.output.stderr.includes("working"), { what: "the watch following the task" });
      watching.child.kill("SIGINT");
      expect(await watching.exited, watching.output.stderr).toBe(130);
      expect(watching.output.stderr).toContain(`resume with: mcp-task watch ${id}`);
      // The task went on: a later command reads it from the server, still working.
      const got = await runInProcess(["get", id, "--json"], { home });
      expect(got.code, got.stderr).toBe(0);
      expect(events(got.stdout).at(-1)).toMatchObject({ taskId: id, status: "working" });
      expect((await runInProcess(["cancel", id], { home })).code).toBe(0);
    });

    it("marks a handle past its ttl as expired, and gone once the server forgets the task (exit 5)", async () => {
      const home = tempHome();
      const id = await detach(home, "task_slow", "ms=60000", "ttlMs=1000", "-s", v2.url);
      // Past its ttl (the server's clock and the handle's): `list` says so once it is.
      const listed = await until(
        async () => {
          const rows = JSON.parse((await runInProcess(["list", "--json"], { home })).stdout) as Array<{
            expired: boolean;
          }>;
          return rows[0]?.expired && rows;
        },
        { everyMs: 100, what: "the handle past its ttl" },
      );
      expect(listed[0]).toMatchObject({ taskId: id, expired: true, gone: null });
      expect((await runInProcess(["list", "--status", "expired", "--json"], { home })).stdout).toContain(id);
      const watched = await runInProcess(["watch", id, "--json"], { home });
      expect(watched.code).toBe(5);
      expect(stream(watched.stdout).at(-1)).toMatchObject({ type: "error", exitCode: 5 });
      expect(JSON.parse((await runInProcess(["list", "--json"], { home })).stdout)[0].gone).toMatch(/does not know/);
    });

    it("every command's --json output parses line by line", async () => {
      const home = tempHome();
      const id = await detach(home, "task_complete", "ms=100", "-s", v2.url);
      for (const args of [
        ["get", id],
        ["list"],
        ["watch", id],
        ["result", id],
        ["cancel", id],
        ["export", id],
        ["server", "list"],
        ["tools", "-s", v2.url],
        ["get", "zzzz-none"],
      ]) {
        const run = await runInProcess([...args, "--json"], { home });
        expect(run.stdout.length, args.join(" ")).toBeGreaterThan(0);
        expect(() => events(run.stdout), args.join(" ")).not.toThrow();
      }
    });
  });
});
