// Stopping the wait while a call's tools/call is still out (the server creates its task late, as one that waits on
// its database does): Ctrl-C, --detach with Ctrl-C, --timeout shorter than the create, a second Ctrl-C, and a reply
// later than mcp-task waits for. None may lose the task: each leaves a handle that a LATER process reads to the
// task's outcome, after the task ended. Against the server on the official SDK's v1 line
// (test/servers/sdk-v1-server.ts, tool slow-create), over stdio (through its broker) and Streamable HTTP (through
// the session's keeper). The interrupted call is the binary (Ctrl-C is a signal to a process); what polls for the
// task's end and reads its handle runs in-process (the handle is in the store, written by the broker, a process
// either way), but for `result`, read by a process of its own: the later process of the title.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { events, runCli, startCli, tempHome, type CliResult } from "../helpers/cli.js";
import { runInProcess } from "../helpers/context.js";
import { sdkV1Transports } from "../helpers/servers.js";
import { until } from "../helpers/until.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** The call's tools/call went out (the trace file has it). */
const sent = (trace: string) => existsSync(trace) && readFileSync(trace, "utf8").includes('"tools/call"');

/** The command's wire trace has the reply to its tools/call (a message in with the call's id, after the call). */
function replied(trace: string): boolean {
  const lines = readFileSync(trace, "utf8")
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line) as TraceLine);
  const at = lines.findIndex((l) => l.dir === "out" && l.message?.method === "tools/call");
  expect(at, "the tools/call in the trace").toBeGreaterThanOrEqual(0);
  const id = lines[at]!.message!.id;
  return lines.slice(at + 1).some((l) => l.dir === "in" && l.message?.id === id && !l.message?.method);
}
interface TraceLine {
  dir: string;
  message?: { id?: unknown; method?: string };
}

/** Hang-only: a task of these tests ends a few seconds after its call; this only stops a wait that never would. */
const HANG_MS = 30_000;

/** Waits until the task has ended (its server says so, as `get` shows it): polled, with a hang-only bound. */
async function ended(home: string, id: string): Promise<void> {
  await until(
    async () => {
      const got = await runInProcess(["get", id, "--json"], { home });
      return got.code === 0 && /"status":"(completed|failed|cancelled)"/.test(JSON.stringify(events(got.stdout)));
    },
    { hangMs: HANG_MS, everyMs: 100, what: `the end of task ${id}` },
  );
}

const { http, transports } = sdkV1Transports();

/** The task id the error line names, with the hint that resumes it. */
function resumedId(run: { code: number | null; stderr: string }): string {
  const id = /task (\S+) keeps running/.exec(run.stderr)?.[1];
  expect(id, run.stderr).toBeDefined();
  expect(run.stderr).toContain(`hint: resume with: mcp-task watch ${id}`);
  return id!;
}

/** The saved handles' rows, once there are `count` of them (a broker saves its late ones when the reply comes). */
async function savedRows(home: string, count = 1): Promise<Array<Record<string, unknown>>> {
  let rows: Array<Record<string, unknown>> = [];
  for (let i = 0; i < 80 && rows.length < count; i++) {
    rows = JSON.parse((await runInProcess(["list", "--json"], { home })).stdout) as Array<Record<string, unknown>>;
    if (rows.length < count) await sleep(100);
  }
  return rows;
}

/** A later process, after the task ended: `result` reads the handle to the task's outcome. */
async function readsOutcome(home: string, id: string, delayMs: number): Promise<void> {
  const result = await runCli(["result", id], { home });
  expect(result.code, result.stderr).toBe(0);
  expect(result.stdout).toContain(`created after ${delayMs} ms, done after 300 ms`);
  const got = await runInProcess(["get", id, "--json"], { home });
  expect(got.code, got.stderr).toBe(0);
  expect(JSON.stringify(events(got.stdout))).toContain('"completed"');
}

/**
 * Starts a call of slow-create and signals it `signals` times (200 ms apart) once its tools/call is out (its wire
 * trace says so): the reply comes delayMs after it.
 */
async function interrupted(home: string, server: string[], extra: string[], delayMs: number, signals = 1) {
  const trace = join(home, "trace.ndjson");
  const args = ["call", "slow-create", `delayMs=${delayMs}`, "ms=300", ...server, ...extra];
  const call = startCli(args, { home, env: { MCP_TASK_TRACE: trace } });
  await until(() => sent(trace), { hangMs: HANG_MS, what: "the call's tools/call" });
  expect(sent(trace), call.output.stderr).toBe(true);
  await sleep(200);
  for (let i = 0; i < signals; i++) {
    if (i > 0) await sleep(200);
    call.child.kill("SIGINT");
  }
  const code = await call.exited;
  return { code, stderr: call.output.stderr, stdout: call.output.stdout, trace } as CliResult & { trace: string };
}

describe.each(transports)("a call stopped before its task was created ($name)", { timeout: 60_000 }, (t) => {
  it("Ctrl-C: the reply is waited for, the handle saved; exit 130 with the watch hint", async () => {
    const home = tempHome();
    const run = await interrupted(home, t.server(), [], 2000);
    expect(run.code, run.stderr).toBe(130);
    expect(replied(run.trace), "the reply was waited for").toBe(true);
    const id = resumedId(run);
    await ended(home, id);
    const watched = await runInProcess(["watch", id], { home });
    expect(watched.code, watched.stderr).toBe(0);
    expect(watched.stdout).toContain("created after 2000 ms");
    await readsOutcome(home, id, 2000);
  });

  it("--detach and Ctrl-C: the same", async () => {
    const home = tempHome();
    const run = await interrupted(home, t.server(), ["--detach"], 2000);
    expect(run.code, run.stderr).toBe(130);
    const id = resumedId(run);
    await ended(home, id);
    await readsOutcome(home, id, 2000);
  });

  it("--timeout shorter than the create: exit 7 with the watch hint", async () => {
    const home = tempHome();
    // No signal: in-process (the broker or the session's keeper that saves the handle is a process either way).
    const run = await runInProcess(
      ["call", "slow-create", "delayMs=2000", "ms=300", ...t.server(), "--timeout", "1s"],
      { home },
    );
    expect(run.code, run.stderr).toBe(7);
    expect(run.stderr).toMatch(/stopped waiting after 1 s; task \S+ keeps running/);
    const id = resumedId(run);
    await ended(home, id);
    await readsOutcome(home, id, 2000);
  });

  it("--timeout, then one Ctrl-C while the reply is waited for: it stops at once, the broker saves the handle", async () => {
    const home = tempHome();
    const args = ["call", "slow-create", "delayMs=4500", "ms=300", ...t.server(), "--timeout", "1s"];
    const trace = join(home, "trace.ndjson");
    const call = startCli(args, { home, env: { MCP_TASK_TRACE: trace } });
    await until(() => /Ctrl-C: stop now/.test(call.output.stderr), { hangMs: HANG_MS, what: "the reply wait's note" });
    expect(call.output.stderr).toContain("(Ctrl-C: stop now)"); // not "again": this is the first
    call.child.kill("SIGINT");
    const code = await call.exited;
    // Stopped by the Ctrl-C, not by the reply wait running out (that ends with --timeout's 7), and before the reply
    // came (its trace has none; the server answers 4.5 s after the call): what it did, not how long it took.
    expect(code, call.output.stderr).toBe(130);
    expect(replied(trace), call.output.stderr).toBe(false);
    for (let i = 0; i < 100 && (await savedRows(home)).length === 0; i++) await sleep(100);
    const rows = await savedRows(home);
    expect(rows).toHaveLength(1);
    await readsOutcome(home, rows[0].taskId as string, 4500);
  });

  it("a second Ctrl-C exits at once: the broker saves the handle when the reply comes", async () => {
    const home = tempHome();
    const run = await interrupted(home, t.server(), [], 2000, 2);
    expect(run.code, run.stderr).toBe(130);
    const rows = await savedRows(home);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ tool: "slow-create" });
    await ended(home, rows[0].taskId as string);
    await readsOutcome(home, rows[0].taskId as string, 2000);
  });

  it("a reply later than the wait for it: the error says so, and the broker saves the handle when it comes", async () => {
    const home = tempHome();
    const run = await interrupted(home, t.server(), [], 4500);
    expect(run.code, run.stderr).toBe(130);
    expect(run.stderr).toMatch(
      /interrupted; the server had not answered the call 3 s later: its broker saves the task/,
    );
    expect(run.stderr).toContain("hint: find it once the server answers with: mcp-task list");
    expect(run.stderr).not.toContain("mcp-task watch");
    const rows = await savedRows(home);
    expect(rows).toHaveLength(1);
    await ended(home, rows[0].taskId as string);
    await readsOutcome(home, rows[0].taskId as string, 4500);
  });
});
