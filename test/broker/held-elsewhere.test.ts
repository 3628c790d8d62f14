// What a home cannot reach of a task is said at once, never waited for and never called lost: a V1 question held by
// the keeper of its session goes with that keeper (`server stop` says which, and later commands why), and a handle
// moved to another home (export, import) cannot be given a question handed to the first home's keeper, nor reach
// a stdio task running in the first home's broker (not `gone`: it runs on there). Against the server on the
// official SDK's v1 line (test/servers/sdk-v1-server.ts); each step a new command, run in-process (the keeper and
// the broker are processes either way). A real hang is the server's ten-minute wait for its answer: each command
// here has 30 s, a hang-only bound. Before it says a question cannot come, a command gives the server
// QUESTION_REDELIVERY_WAIT_MS (5 s, read every 500 ms) to hand it again: those commands run on a hurried clock
// (hastyClock: the same reads, its sleeps skipped past 50 ms), and the clock says the whole window was waited.
import { expect, it } from "vitest";
import { tempHome } from "../helpers/cli.js";
import { hastyClock, runInProcess } from "../helpers/context.js";
import { QUESTION_REDELIVERY_WAIT_MS } from "../../src/limits.js";
import { SDK_V1_SERVER, sdkV1Transports } from "../helpers/servers.js";
import { until } from "../helpers/until.js";

const { http } = sdkV1Transports();
const ANSWER = '{"name":"Bo","count":1}';

/** Waits until the task's keeper holds its question, as `get` shows it. */
async function questionHeld(home: string, id: string): Promise<void> {
  await until(
    async () => {
      const got = await runInProcess(["get", id, "--json"], { home });
      expect(got.code, got.stderr).toBe(0);
      return (JSON.parse(got.stdout) as { inputRequests: unknown[] }).inputRequests.length > 0;
    },
    { everyMs: 100, what: `a question of task ${id} held` },
  );
}

/** Exports task `id` from `from` and imports it into a new home. */
async function moved(from: string, id: string): Promise<string> {
  const exported = await runInProcess(["export", id], { home: from });
  expect(exported.code, exported.stderr).toBe(0);
  const to = tempHome();
  const imported = await runInProcess(["import", "--yes"], { home: to, input: exported.stdout });
  expect(imported.code, imported.stderr).toBe(0);
  return to;
}

it(
  "a V1 question held by its keeper: moved to another home, or its keeper stopped, respond and watch say at once why it cannot come",
  { timeout: 180_000 },
  async () => {
    const home = tempHome();
    const url = http().url;
    const call = await runInProcess(["call", "confirm", "item=held", "-s", url, "--detach"], { home });
    expect(call.code, call.stderr).toBe(0);
    const id = call.stdout.trim();
    await questionHeld(home, id);

    // Imported elsewhere while its question is held here: that home's respond says where the question is.
    const other = await moved(home, id);
    const hurried = hastyClock();
    const away = await runInProcess(["respond", id, "--input", ANSWER, "--json"], {
      home: other,
      timeoutMs: 30_000,
      clock: hurried,
    });
    expect(away.code, away.stderr).toBe(4);
    // The window waited (on the hurried clock), never past it.
    expect(hurried.skippedMs).toBeGreaterThan(0);
    expect(hurried.skippedMs).toBeLessThanOrEqual(QUESTION_REDELIVERY_WAIT_MS);
    const error = JSON.parse(away.stdout.trim().split("\n").at(-1)!) as { code: string; message: string; hint: string };
    expect(error.code).toBe("question_lost");
    expect(error.message).toMatch(/was imported while it waited for an answer: its question was handed to the keeper/);
    expect(error.hint).toContain(`answer it in the home it was exported from: mcp-task respond ${id}`);

    // Stopped here: `server stop` names the task whose question it drops, and goes on (no terminal to ask).
    const stop = await runInProcess(["server", "stop", url], { home });
    expect(stop.code, stop.stderr).toBe(0);
    expect(stop.stderr).toContain(`holds a question for task(s) ${id}: stopping it drops them`);
    expect(stop.stderr).toContain(`mcp-task cancel ${id}`);
    // Then respond, watch and respond --template (a new keeper of the same session: the server does not hand the question over again)
    // say so at once, with a hint that works: cancel it.
    for (const args of [
      ["respond", id, "--input", ANSWER],
      ["watch", id],
      ["respond", "--template", id],
    ]) {
      const clock = hastyClock();
      const run = await runInProcess(args, { home, timeoutMs: 30_000, clock });
      expect(run.code, `${args[0]}: ${run.stderr}`).toBe(4);
      expect(clock.skippedMs, args[0]).toBeGreaterThan(0);
      expect(clock.skippedMs, args[0]).toBeLessThanOrEqual(QUESTION_REDELIVERY_WAIT_MS);
      expect(run.stderr).toContain("waits for an answer to a question that cannot come");
      expect(run.stderr).toContain("the keeper that held it was stopped (mcp-task server stop)");
      expect(run.stderr).toContain(`mcp-task cancel ${id}`);
    }
    const cancelled = await runInProcess(["cancel", id], { home, timeoutMs: 30_000 });
    expect(cancelled.code, cancelled.stderr).toBe(0);
  },
);

it(
  "an imported handle of a running stdio task is not marked gone: get and watch say it runs in the home it came from",
  { timeout: 120_000 },
  async () => {
    const home = tempHome();
    const stdio = ["--stdio", `node ${SDK_V1_SERVER} --stdio`];
    const call = await runInProcess(["call", "work", "ms=20000", ...stdio, "--detach"], { home });
    expect(call.code, call.stderr).toBe(0);
    const id = call.stdout.trim();
    const other = await moved(home, id);
    for (const args of [
      ["get", id],
      ["watch", id],
    ]) {
      const run = await runInProcess(args, { home: other, timeoutMs: 30_000 });
      expect(run.code, `${args[0]}: ${run.stderr}`).toBe(4);
      expect(run.stderr).toContain("was imported from another home, where its broker runs it");
      expect(run.stderr).toContain(`hint: follow it in the home it was exported from: mcp-task watch ${id}`);
      expect(run.stderr).not.toContain("server exited");
    }
    const listed = await runInProcess(["list", "--json"], { home: other });
    const [row] = JSON.parse(listed.stdout) as Array<{ status: string; gone: string | null }>;
    expect([row.status, row.gone]).toEqual(["working", null]);
    // Where it runs, it runs on (and was never told it was lost).
    const there = await runInProcess(["get", id, "--json"], { home });
    expect(there.code, there.stderr).toBe(0);
    expect(JSON.parse(there.stdout).status).toBe("working");
    await runInProcess(["cancel", id], { home });
  },
);
