// mcp-task against a server nobody here wrote: mcp-framework 0.2.22 (test/servers/framework-server.ts, its public API
// only), over stdio and over its HTTP Stream transport, through the same interop cases as the SDK v1 servers: a call
// that completes, fails, or ends with an isError result; a question answered with --input, and one left for a later
// respond; --detach and a watch from a later command once the task has ended (in-process: what it finds is kept by the
// session's keeper or the broker, processes either way); get, cancel, list --remote; and check.
//
// mcp-framework's tasks/result does not wait for the task's end: for a running task it answers at once with an error
// (-32603 "Task … is not completed (status: working)"). mcp-task opens tasks/result early (to take a task's questions
// on its stream), so that error was taken as the task's outcome ("completed, but sent an error", exit 4) and kept by
// the session's keeper for every later command. It is no outcome: the task is followed with tasks/get, its outcome
// read once it has ended, and check names the tasks/result that does not wait.
//
// The same holds for any V1 server whose tasks/result answers before the end: with an error, an empty result, or the
// task itself still working (test/servers/early-result-server.ts).
//
// What mcp-framework lacks, and so is not tried here: a task never says input_required and a tool cannot name its
// task, so its question (this.elicit) comes without the related-task metadata while the task says working (mcp-task
// holds it for the one task that could have asked it); over HTTP Stream it sends that question to every session,
// and takes the first answer, so another session's keeper with nothing running must leave it unanswered; a failed task's tasks/result is the same "is not completed
// (status: failed)" error, not the error the call would have returned; and it pushes no status notifications.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { events, expectAnsweredAndMovedOn, tempHome } from "../helpers/cli.js";
import { runInProcess } from "../helpers/context.js";
import { until } from "../helpers/until.js";
import { frameworkTransports, ROOT } from "../helpers/servers.js";

const FITS = JSON.stringify({ name: "Ada", count: 2 });
const transports = frameworkTransports();
// The groups below run side by side (each on a server process of its own: a question mcp-framework sends to every
// session of its HTTP Stream server reaches only that group's), each group's tests one after another (`serial`).
const serial = it.sequential;

/** The last event of a --json follow: the task's end. */
function ending(stdout: string): Record<string, unknown> {
  return events(stdout).at(-1) as Record<string, unknown>;
}

/** The text of a result event's first content block. */
const textOf = (event: Record<string, unknown>) =>
  (event.result as { content: Array<{ text: string }> } | null)?.content[0]?.text;

describe.each(transports)("mcp-framework over $name", { timeout: 90_000, concurrent: true }, ({ name, server }) => {
  // The cases without a question share one home, whose broker (over stdio, with its server; over HTTP Stream, the
  // session's keeper) stays between them: one started for them all, not one per test. Each reads only its own task.
  // Those with a question have a home each: a question comes without its task's id, and is held for whichever tasks
  // of the broker could have asked it.
  const shared = tempHome();
  const inShared = (args: string[]) => runInProcess(args, { home: shared, env: { MCP_TASK_BROKER_GRACE: "5m" } });

  serial("call: the task's result, exit 0 (its early tasks/result error is no outcome)", async () => {
    const run = await inShared(["call", "work", "ms=600", ...server(), "--json"]);
    expect(run.code, run.stderr).toBe(0);
    expect(ending(run.stdout)).toMatchObject({ type: "result", status: "completed", error: null });
    expect(textOf(ending(run.stdout))).toBe("work done after 600 ms");
  });

  serial(
    "a failed task: exit 1 with what the server said once it had failed, not its answer from while it worked",
    async () => {
      const run = await inShared(["call", "fail", "ms=600", ...server(), "--json"]);
      expect(run.code, run.stderr).toBe(1);
      const end = ending(run.stdout);
      expect(end).toMatchObject({ type: "result", status: "failed", error: { code: -32603 } });
      expect((end.error as { message: string }).message).toMatch(/\(status: failed\)/);
      expect(events(run.stdout)).toContainEqual(
        expect.objectContaining({ type: "status", status: "failed", statusMessage: "work failed on purpose" }),
      );
    },
  );

  serial("an isError result: exit 1 with the tool's own text", async () => {
    const run = await inShared(["call", "broken", "ms=600", ...server(), "--json"]);
    expect(run.code, run.stderr).toBe(1);
    expect(ending(run.stdout)).toMatchObject({ status: "completed", result: { isError: true } });
    expect(textOf(ending(run.stdout))).toBe("broken on purpose");
  });

  serial("a question answered with --input: completes with that answer", async () => {
    const run = await runInProcess(["call", "confirm", "item=given", ...server(), "--input", FITS, "--json"], {
      home: tempHome(),
    });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(textOf(ending(run.stdout))!)).toEqual({
      item: "given",
      action: "accept",
      content: { name: "Ada", count: 2 },
    });
  });

  serial("a question without --input: exit 6, kept; a later respond answers it and gets the result", async () => {
    const home = tempHome();
    const call = await runInProcess(["call", "confirm", "item=later", ...server(), "--json"], { home });
    expect(call.code, call.stderr).toBe(6);
    const taskId = events(call.stdout)[0]!.taskId as string;
    const responded = await runInProcess(["respond", taskId, "--input", FITS, "--json"], { home });
    expect(responded.code, responded.stderr).toBe(0);
    expectAnsweredAndMovedOn(responded.stdout, taskId);
    const result = await runInProcess(["result", taskId, "--json"], { home });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(textOf(ending(result.stdout))!)).toMatchObject({ item: "later", content: { count: 2 } });
  });

  // Its HTTP Stream sends a question to every session: a keeper of another session, its task ended, answered first
  // with a refusal (nothing of its could have asked it), and the asking task's tool got that refusal as the answer.
  // (Not over stdio: there a server has one session.)
  (name === "stdio" ? serial.skip : serial)(
    "a question sent to every session: another session's idle keeper leaves it to the asking task (--input, respond)",
    async () => {
      const idle = tempHome();
      const work = await runInProcess(["call", "work", "ms=100", ...server(), "--json"], {
        home: idle,
        env: { MCP_TASK_BROKER_GRACE: "5m" }, // its keeper stays, its GET stream open, with nothing running
      });
      expect(work.code, work.stderr).toBe(0);
      const given = await runInProcess(["call", "confirm", "item=given", ...server(), "--input", FITS, "--json"], {
        home: tempHome(),
      });
      expect(given.code, given.stderr).toBe(0);
      expect(JSON.parse(textOf(ending(given.stdout))!)).toMatchObject({ action: "accept", content: { count: 2 } });
      const home = tempHome();
      const call = await runInProcess(["call", "confirm", "item=later", ...server(), "--json"], { home });
      expect(call.code, call.stderr).toBe(6);
      const taskId = events(call.stdout)[0]!.taskId as string;
      const responded = await runInProcess(["respond", taskId, "--input", FITS, "--json"], { home });
      expect(responded.code, responded.stderr).toBe(0);
      expectAnsweredAndMovedOn(responded.stdout, taskId);
      // The idle keeper was asked both questions, and answered neither.
      const brokers = join(idle, "brokers");
      const log = readdirSync(brokers)
        .filter((file) => file.endsWith(".log"))
        .map((file) => readFileSync(join(brokers, file), "utf8"))
        .join("");
      expect(log.match(/asked a question outside any task or call; it is left unanswered/g)).toHaveLength(2);
    },
  );

  serial("--detach, get until it ends, then watch and result from later commands: the result, exit 0", async () => {
    const call = await inShared(["call", "work", "ms=800", ...server(), "--detach"]);
    expect(call.code, call.stderr).toBe(0);
    const taskId = call.stdout.trim();
    const status = await until(
      async () => {
        const got = await inShared(["get", taskId, "--json"]);
        expect(got.code, got.stderr).toBe(0);
        const read = (JSON.parse(got.stdout) as { status: string }).status;
        return read !== "working" && read;
      },
      { everyMs: 100, what: "the task's end read by get" },
    );
    expect(status).toBe("completed");
    const watched = await inShared(["watch", taskId, "--json"]);
    expect(watched.code, watched.stderr).toBe(0);
    expect(textOf(ending(watched.stdout))).toBe("work done after 800 ms");
    const result = await inShared(["result", taskId]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("work done after 800 ms");
  });

  serial("list --remote lists a running task; cancel cancels it, and get reads it back cancelled", async () => {
    const call = await inShared(["call", "slow", "ms=60000", ...server(), "--detach"]);
    expect(call.code, call.stderr).toBe(0);
    const taskId = call.stdout.trim();
    const listed = await inShared(["list", "--remote", "-s", server()[1]!, "--json"]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toContainEqual(expect.objectContaining({ taskId, tool: "slow" }));
    const cancelled = await inShared(["cancel", taskId, "--json"]);
    expect(cancelled.code, cancelled.stderr).toBe(0);
    expect(JSON.parse(cancelled.stdout)).toMatchObject({ taskId, status: "cancelled" });
    const got = await inShared(["get", taskId, "--json"]);
    expect(got.code, got.stderr).toBe(0);
    expect(JSON.parse(got.stdout)).toMatchObject({ taskId, status: "cancelled" });
  });

  serial("check names its tasks/result that does not wait, and the outcome it read once the task ended", async () => {
    // The task lasts 5 s: its tasks/result must be sent while it works, however slowly a loaded machine gets there.
    const run = await inShared(["check", ...server(), "--tool", "slow", "--args", '{"ms":5000}', "--json"]);
    const checks = (JSON.parse(run.stdout) as { checks: Array<{ name: string; status: string; detail: string }> })
      .checks;
    const result = checks.find((check) => check.name === "task-result")!;
    expect(result.status).toBe("fail");
    expect(result.detail).toMatch(
      /^tasks\/result does not wait for the task's end: it answered the error -32603 "Task .* is not completed \(status: working\)\..*" while the task was working; the outcome \(completed\)/,
    );
    // What it does right still passes: the task ends, reads back ended, and is cancelled.
    for (const name of ["task-ends", "task-final", "cancel"])
      expect(checks.find((check) => check.name === name)).toMatchObject({ status: "pass" });
    expect(run.code).toBe(1);
  });
});

const EARLY_SERVER = join(ROOT, "dist/test-servers/early-result-server.js");

describe.each(["error", "empty", "task"])(
  "a V1 server whose tasks/result answers early with %s",
  { timeout: 60_000, concurrent: true },
  (early) => {
    const server = ["--stdio", `node ${EARLY_SERVER} --early ${early}`];

    serial("call, then result from a later command: the task's result, not the early answer", async () => {
      const home = tempHome();
      const call = await runInProcess(["call", "work", "ms=800", ...server, "--json"], { home });
      expect(call.code, call.stderr).toBe(0);
      expect(textOf(ending(call.stdout))).toBe("done after 800 ms");
      const taskId = events(call.stdout)[0]!.taskId as string;
      const result = await runInProcess(["result", taskId, "--json"], { home });
      expect(result.code, result.stderr).toBe(0);
      expect(textOf(ending(result.stdout))).toBe("done after 800 ms");
    });

    serial("check fails task-result, naming what it answered while the task was working", async () => {
      // 5 s: the early tasks/result must meet the task working, however slowly a loaded machine gets there.
      const run = await runInProcess(["check", ...server, "--tool", "work", "--args", '{"ms":5000}', "--json"], {
        home: tempHome(),
      });
      const checks = (JSON.parse(run.stdout) as { checks: Array<{ name: string; status: string; detail: string }> })
        .checks;
      const said = {
        error: /the error -32603 "not ready yet"/,
        empty: /a result/,
        task: /a reply that is no tool result/,
      };
      expect(checks.find((check) => check.name === "task-result")).toMatchObject({
        status: "fail",
        detail: expect.stringMatching(said[early as keyof typeof said]),
      });
      expect(checks.filter((check) => check.status === "fail").map((check) => check.name)).toEqual(["task-result"]);
    });
  },
);
