// Stopping the wait while a call's tools/call is still out (the server creates its task late, as one that waits on
// its database does): Ctrl-C, --detach with Ctrl-C, --timeout shorter than the create, a second Ctrl-C, and a reply
// later than mcp-task waits for. None may lose the task: each leaves a handle that a LATER process reads to the
// task's outcome, after the task ended. Against the server on the official SDK's v1 line
// (test/servers/sdk-v1-server.ts, tool slow-create, whose reply waits for a gate file the test opens when the command
// is where the case wants it: no race between a signal and a delay), over stdio (through its broker) and Streamable HTTP (through
// the session's keeper). The interrupted call is the binary (Ctrl-C is a signal to a process); what polls for the
// task's end and reads its handle runs in-process (the handle is in the store, written by the broker, a process
// either way), but for `result`, read by a process of its own: the later process of the title.
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { events, runCli, startCli, tempHome, type CliResult } from "../helpers/cli.js";
import { runInProcess, startInProcess } from "../helpers/context.js";
import { sdkV1Transports } from "../helpers/servers.js";
import { until } from "../helpers/until.js";

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

/** Hang-only: a task of these tests ends soon after its gate opens; this only stops a wait that never would. */
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

const { transports } = sdkV1Transports();

/** The task id the error line names, with the hint that resumes it. */
function resumedId(run: { code: number | null; stderr: string }): string {
  const id = /task (\S+) keeps running/.exec(run.stderr)?.[1];
  expect(id, run.stderr).toBeDefined();
  expect(run.stderr).toContain(`hint: resume with: mcp-task watch ${id}`);
  return id!;
}

/** The saved handles' rows, once there are `count` of them (a broker saves its late ones when the reply comes). */
async function savedRows(home: string, count = 1): Promise<Array<Record<string, unknown>>> {
  return until(
    async () => {
      const listed = await runInProcess(["list", "--json"], { home });
      const rows = JSON.parse(listed.stdout) as Array<Record<string, unknown>>;
      return rows.length >= count && rows;
    },
    { hangMs: HANG_MS, everyMs: 100, what: `${count} saved handle(s)` },
  ).catch((error: Error) => {
    // What the brokers said (a handle a broker could not save is said in its log).
    const dir = join(home, "brokers");
    const logs = existsSync(dir) ? readdirSync(dir).filter((name) => name.endsWith(".log")) : [];
    throw new Error(`${error.message}; ${logs.map((name) => readFileSync(join(dir, name), "utf8")).join("\n")}`);
  });
}

/** The gate of slow-create in this home: the server creates its task (and replies) once the file exists. */
const gateOf = (home: string) => join(home, "gate");
const openGate = (home: string) => writeFileSync(gateOf(home), "");
/** The note a call stopped before its reply prints as it starts waiting for that reply. */
const REPLY_WAIT_NOTE = /waiting up to 3 s for the server's reply, to save its task \(Ctrl-C( again)?: stop now\)/;

/** A later process, after the task ended: `result` reads the handle to the task's outcome. */
async function readsOutcome(home: string, id: string): Promise<void> {
  const result = await runCli(["result", id], { home });
  expect(result.code, result.stderr).toBe(0);
  expect(result.stdout).toContain(`created once its gate opened, done after 300 ms`);
  const got = await runInProcess(["get", id, "--json"], { home });
  expect(got.code, got.stderr).toBe(0);
  expect(JSON.stringify(events(got.stdout))).toContain('"completed"');
}

/**
 * Starts a call of slow-create and signals it once its tools/call is out (its wire trace says so), then again
 * (`signals` 2) once it says it waits for the reply. The gate opens (the server replies) when `reply` says: "waited"
 * while the command waits for the reply (it says so), "late" once the command has exited.
 */
async function interrupted(home: string, server: string[], extra: string[], reply: "waited" | "late", signals = 1) {
  const trace = join(home, "trace.ndjson");
  const args = ["call", "slow-create", `gate=${gateOf(home)}`, "ms=300", ...server, ...extra];
  const call = startCli(args, { home, env: { MCP_TASK_TRACE: trace } });
  await until(() => sent(trace), { hangMs: HANG_MS, what: "the call's tools/call" });
  expect(sent(trace), call.output.stderr).toBe(true);
  call.child.kill("SIGINT");
  await until(() => REPLY_WAIT_NOTE.test(call.output.stderr), { hangMs: HANG_MS, what: "the reply wait's note" });
  if (signals > 1) call.child.kill("SIGINT");
  else if (reply === "waited") openGate(home);
  const code = await call.exited;
  if (reply === "late") openGate(home);
  return { code, stderr: call.output.stderr, stdout: call.output.stdout, trace } as CliResult & { trace: string };
}

describe.each(transports)("a call stopped before its task was created ($name)", { timeout: 60_000 }, (t) => {
  it("Ctrl-C: the reply is waited for, the handle saved; exit 130 with the watch hint", async () => {
    const home = tempHome();
    const run = await interrupted(home, t.server(), [], "waited");
    expect(run.code, run.stderr).toBe(130);
    expect(replied(run.trace), "the reply was waited for").toBe(true);
    const id = resumedId(run);
    await ended(home, id);
    const watched = await runInProcess(["watch", id], { home });
    expect(watched.code, watched.stderr).toBe(0);
    expect(watched.stdout).toContain("created once its gate opened");
    await readsOutcome(home, id);
  });

  it("--detach and Ctrl-C: the same", async () => {
    const home = tempHome();
    const run = await interrupted(home, t.server(), ["--detach"], "waited");
    expect(run.code, run.stderr).toBe(130);
    const id = resumedId(run);
    await ended(home, id);
    await readsOutcome(home, id);
  });

  it("--timeout shorter than the create: exit 7 with the watch hint", async () => {
    const home = tempHome();
    // No signal: in-process (the broker or the session's keeper that saves the handle is a process either way). The
    // gate opens once the timeout has stopped the wait and the command waits for the reply (it says so).
    const call = startInProcess(
      ["call", "slow-create", `gate=${gateOf(home)}`, "ms=300", ...t.server(), "--timeout", "1s"],
      {
        home,
      },
    );
    await until(() => REPLY_WAIT_NOTE.test(call.output.stderr), { hangMs: HANG_MS, what: "the reply wait's note" });
    openGate(home);
    const run = { code: await call.exited, stderr: call.output.stderr };
    expect(run.code, run.stderr).toBe(7);
    expect(run.stderr).toMatch(/stopped waiting after 1 s; task \S+ keeps running/);
    const id = resumedId(run);
    await ended(home, id);
    await readsOutcome(home, id);
  });

  it("--timeout, then one Ctrl-C while the reply is waited for: it stops at once, the broker saves the handle", async () => {
    const home = tempHome();
    const args = ["call", "slow-create", `gate=${gateOf(home)}`, "ms=300", ...t.server(), "--timeout", "1s"];
    const trace = join(home, "trace.ndjson");
    const call = startCli(args, { home, env: { MCP_TASK_TRACE: trace } });
    await until(() => /Ctrl-C: stop now/.test(call.output.stderr), { hangMs: HANG_MS, what: "the reply wait's note" });
    expect(call.output.stderr).toContain("(Ctrl-C: stop now)"); // not "again": this is the first
    call.child.kill("SIGINT");
    const code = await call.exited;
    // Stopped by the Ctrl-C, not by the reply wait running out (that ends with --timeout's 7), and before the reply
    // came (its trace has none; the server answers only once the gate opens, after the exit): what it did.
    expect(code, call.output.stderr).toBe(130);
    expect(replied(trace), call.output.stderr).toBe(false);
    openGate(home);
    const rows = await savedRows(home);
    expect(rows).toHaveLength(1);
    await readsOutcome(home, rows[0].taskId as string);
  });

  it("a second Ctrl-C exits at once: the broker saves the handle when the reply comes", async () => {
    const home = tempHome();
    const run = await interrupted(home, t.server(), [], "late", 2);
    expect(run.code, run.stderr).toBe(130);
    const rows = await savedRows(home);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ tool: "slow-create" });
    await ended(home, rows[0].taskId as string);
    await readsOutcome(home, rows[0].taskId as string);
  });

  it("a reply later than the wait for it: the error says so, and the broker saves the handle when it comes", async () => {
    const home = tempHome();
    const run = await interrupted(home, t.server(), [], "late");
    expect(run.code, run.stderr).toBe(130);
    expect(run.stderr).toMatch(
      /interrupted; the server had not answered the call 3 s later: its broker saves the task/,
    );
    expect(run.stderr).toContain("hint: find it once the server answers with: mcp-task list");
    expect(run.stderr).not.toContain("mcp-task watch");
    const rows = await savedRows(home);
    expect(rows).toHaveLength(1);
    await ended(home, rows[0].taskId as string);
    await readsOutcome(home, rows[0].taskId as string);
  });
});
