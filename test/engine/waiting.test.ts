// What stops a command's wait (src/tasks/waiting.ts), the commands run in-process on a fake clock and a scripted
// wire (test/helpers/fake-run.ts): --timeout (exit 7, the task kept, its resume hint) at exactly its time; the
// reply wait of a call stopped before its reply (CREATE_REPLY_WAIT_MS: the task saved when the reply comes within
// it, the call given up after it); Ctrl-C during a watch (exit 130, at once); the give-up window of a command
// (MCP_TASK_GIVE_UP: exit 4 with the handle intact).
import { describe, expect, it } from "vitest";
import { CREATE_REPLY_WAIT_MS } from "../../src/limits.js";
import { events, tempHome } from "../helpers/cli.js";
import { FakeClock, fixedRandom } from "../helpers/fake-clock.js";
import { FAKE_URL, runFake, startFake } from "../helpers/fake-run.js";
import { created, done, FakeWire, HANG, snap, tool, transient } from "../helpers/fake-wire.js";
import { runInProcess } from "../helpers/context.js";

function setup() {
  const clock = new FakeClock();
  const wire = new FakeWire(clock, { tools: [tool("slow")] });
  const home = tempHome();
  return { clock, wire, home, options: { home, clock, wire, random: fixedRandom(0.5) } };
}

const working = snap("t1", { pollIntervalMs: 1000 });

/** The handles saved in `home`, as `list --json` prints them. */
async function listed(home: string): Promise<Array<Record<string, unknown>>> {
  const run = await runInProcess(["list", "--json"], { home });
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as Array<Record<string, unknown>>;
}

describe("--timeout", () => {
  it("stops a call's wait at exactly its time: exit 7, the task kept running and saved, a resume hint", async () => {
    const { clock, wire, home, options } = setup();
    wire.onCall(created("t1", { pollIntervalMs: 1000 }));
    wire.onGet("t1", working, working, working, working);
    const run = await runFake(["call", "slow", "--timeout", "4500ms", "-s", FAKE_URL], options);
    expect(run.code, run.stderr).toBe(7);
    expect(clock.monotonic()).toBe(4500);
    // The create reply's state first, then a read each second until the timeout: none after it.
    expect(wire.times("getTask")).toEqual([1000, 2000, 3000, 4000]);
    expect(run.stderr).toMatch(/stopped waiting after 4\.5 s; task t1 keeps running/);
    expect(run.stderr).toMatch(/resume with: mcp-task watch t1/);
    expect(await listed(home)).toEqual([expect.objectContaining({ taskId: "t1", status: "working" })]);
    wire.verify();
  });

  it("a watch's --timeout: exit 7 at its time, as a JSON error event with its exit code", async () => {
    const { clock, wire, options } = setup();
    wire.onCall(created("t1", { pollIntervalMs: 1000 }));
    expect((await runFake(["call", "slow", "--detach", "-s", FAKE_URL], options)).code).toBe(0);
    const start = clock.monotonic();
    wire.onGet("t1", working, working);
    const run = await runFake(["watch", "t1", "--timeout", "2s", "--json"], options);
    expect(run.code).toBe(7);
    expect(clock.monotonic() - start).toBe(2000);
    // The watch's first read at once, then one a second; the timeout (asked first) ends the wait at 2000, before
    // the read due then.
    expect(wire.times("getTask").map((t) => t - start)).toEqual([0, 1000]);
    expect(events(run.stdout).at(-1)).toMatchObject({ type: "error", exitCode: 7 });
    wire.verify();
  });

  it("a task that ends before the timeout is not stopped by it", async () => {
    const { clock, wire, options } = setup();
    wire.onCall(created("t1", { pollIntervalMs: 1000 }));
    wire.onGet("t1", working, done("t1", "all done"));
    const run = await runFake(["call", "slow", "--timeout", "2001ms", "-s", FAKE_URL], options);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("all done");
    expect(clock.monotonic()).toBe(2000);
    // Nothing left on the clock: the timeout's timer went with the command.
    expect(clock.pending).toBe(0);
    wire.verify();
  });
});

describe("the reply wait of a call stopped before its reply", () => {
  it(`waits CREATE_REPLY_WAIT_MS (${CREATE_REPLY_WAIT_MS} ms) past the timeout for the reply, then gives the call up: exit 7, said so`, async () => {
    const { clock, wire, home, options } = setup();
    wire.onCall(HANG);
    const run = await runFake(["call", "slow", "--timeout", "2s", "-s", FAKE_URL], options);
    expect(run.code).toBe(7);
    expect(clock.monotonic()).toBe(2000 + CREATE_REPLY_WAIT_MS);
    expect(run.stderr).toMatch(/waiting up to 3 s for the server's reply, to save its task/);
    expect(run.stderr).toMatch(/the server had not answered the call 3 s later: it may have started the task/);
    expect(await listed(home)).toEqual([]);
    wire.verify();
  });

  it("a reply that comes within the wait saves the task: exit 7 with the resume hint", async () => {
    const { clock, wire, home, options } = setup();
    // The reply comes 2.5 s after the timeout, within the 3 s wait.
    wire.onCall(async () => (await clock.sleep(4500), created("t1", { pollIntervalMs: 1000 }))); // fake-clock
    const run = await runFake(["call", "slow", "--timeout", "2s", "-s", FAKE_URL], options);
    expect(run.code).toBe(7);
    expect(clock.monotonic()).toBe(4500);
    expect(run.stderr).toMatch(/task t1 keeps running/);
    expect(run.stderr).toMatch(/resume with: mcp-task watch t1/);
    expect(wire.times("getTask")).toEqual([]);
    expect(await listed(home)).toEqual([expect.objectContaining({ taskId: "t1" })]);
    wire.verify();
  });

  it("Ctrl-C during the reply wait of a timeout stops it at once", async () => {
    const { clock, wire, options } = setup();
    wire.onCall(HANG);
    const run = startFake(["call", "slow", "--timeout", "1s", "-s", FAKE_URL], { ...options, drive: false });
    await clock.advance(1000);
    expect(run.out.stderr).toMatch(/waiting up to 3 s for the server's reply/);
    await clock.advance(500);
    run.interrupt();
    expect(await run.exited).toBe(130);
    expect(clock.monotonic()).toBe(1500);
    wire.verify();
  });
});

describe("Ctrl-C", () => {
  it("during a watch stops it at once: exit 130, the task kept, no read after it", async () => {
    const { clock, wire, home, options } = setup();
    wire.onCall(created("t1", { pollIntervalMs: 1000 }));
    expect((await runFake(["call", "slow", "--detach", "-s", FAKE_URL], options)).code).toBe(0);
    wire.onGet("t1", working, working, working);
    const run = startFake(["watch", "t1"], { ...options, drive: false });
    await clock.advance(2300);
    expect(wire.times("getTask")).toEqual([0, 1000, 2000]);
    run.interrupt();
    expect(await run.exited).toBe(130);
    expect(clock.monotonic()).toBe(2300);
    expect(run.out.stderr).toMatch(/interrupted; task t1 keeps running/);
    expect(run.out.stderr).toMatch(/resume with: mcp-task watch t1/);
    // Nothing left to ring, nothing read after the Ctrl-C.
    await clock.advance(10_000);
    expect(wire.times("getTask")).toHaveLength(3);
    expect(await listed(home)).toEqual([expect.objectContaining({ taskId: "t1", status: "working" })]);
    wire.verify();
  });

  it("during a call's backoff stops it at once too", async () => {
    const { clock, wire, options } = setup();
    wire.onCall(created("t1", { pollIntervalMs: 1000 }));
    wire.onGet("t1", transient(), transient());
    const run = startFake(["call", "slow", "-s", FAKE_URL], { ...options, drive: false });
    await clock.advance(1800); // failed at 1000, retried at 1750 (failed), next try at 3250
    expect(run.out.stderr).toMatch(/reconnecting: connection refused; next try in 0\.8 s/);
    expect(run.out.stderr).toMatch(/reconnecting: connection refused; next try in 1\.5 s/);
    run.interrupt();
    expect(await run.exited).toBe(130);
    expect(wire.times("getTask")).toEqual([1000, 1750]);
    wire.verify();
  });
});

describe("the give-up window of a command", () => {
  it("MCP_TASK_GIVE_UP=2s: a server that stays away is exit 4 after the window, the handle intact", async () => {
    const { clock, wire, home, options } = setup();
    wire.onCall(created("t1", { pollIntervalMs: 1000 }));
    expect((await runFake(["call", "slow", "--detach", "-s", FAKE_URL], options)).code).toBe(0);
    const start = clock.monotonic();
    // Tries at 0, 750, 2250 (past 2 s of failing): given up then.
    wire.onGet("t1", transient(), transient(), transient());
    const run = await runFake(["watch", "t1", "--json"], { ...options, env: { MCP_TASK_GIVE_UP: "2s" } });
    expect(run.code).toBe(4);
    expect(clock.monotonic() - start).toBe(2250);
    expect(events(run.stdout).at(-1)).toMatchObject({ type: "error", exitCode: 4 });
    expect(await listed(home)).toEqual([expect.objectContaining({ taskId: "t1", status: "working", gone: null })]);
    wire.verify();
  });
});
