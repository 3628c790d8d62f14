// A wall clock that steps back (NTP, a restored VM) while mcp-task waits: every wait, poll schedule and grace is timed
// on the monotonic clock, so the step changes nothing. The context's clock is a part: a FakeClock
// (test/helpers/fake-clock.ts) whose wall time steps an hour back mid-wait, its monotonic time unmoved.
import { once } from "node:events";
import { writeFileSync } from "node:fs";
import { connect as netConnect } from "node:net";
import { join } from "node:path";
import { expect, it } from "vitest";
import { listBrokers } from "../../src/broker/client.js";
import { Lifecycle, type Running } from "../../src/broker/lifecycle.js";
import { brokerPaths, type BrokerMeta, type BrokerPaths } from "../../src/broker/paths.js";
import type { Client } from "../../src/broker/attached.js";
import { Questions } from "../../src/broker/questions.js";
import { TraceRelay } from "../../src/broker/relay.js";
import { brokerServer } from "../../src/broker/requests.js";
import { HeldTasks } from "../../src/broker/tasks.js";
import { refOf, type ProcessRef } from "../../src/broker/processes.js";
import { BrokerWire } from "../../src/broker/wire.js";
import { clockOf } from "../../src/context.js";
import { BROKER_START_WAIT_MS } from "../../src/limits.js";
import type { Wire } from "../../src/protocol/wire.js";
import { tempHome } from "../helpers/cli.js";
import { testContext } from "../helpers/context.js";
import { FakeClock, WALL_START } from "../helpers/fake-clock.js";
import { FAKE_URL, runFake } from "../helpers/fake-run.js";
import { created, done, FakeWire, snap, tool } from "../helpers/fake-wire.js";

const HOUR = 3_600_000;

it("a call's polls keep their pace when the wall clock steps back an hour mid-wait", async () => {
  // pollInterval 0 (read every MIN_POLL_INTERVAL_MS, 200 ms); the wall clock steps back an hour between the first
  // and second reads. Timed on the wall clock, the next poll was an hour away; on the monotonic clock, 200 ms.
  const clock = new FakeClock();
  const wire = new FakeWire(clock, { tools: [tool("zero")] });
  wire.onCall(created("t1", { pollIntervalMs: 0 }));
  wire.onGet(
    "t1",
    snap("t1", { pollIntervalMs: 0 }),
    snap("t1", { pollIntervalMs: 0 }),
    snap("t1", { pollIntervalMs: 0 }),
  );
  wire.onGet("t1", done("t1", "done after 800 ms, 4 reads"));
  clock.at(250, () => clock.stepWall(-HOUR));
  const run = await runFake(["call", "zero", "-s", FAKE_URL], {
    home: tempHome(),
    clock,
    wire,
    env: { MCP_TASK_PUSH: "off" }, // polls alone
  });
  expect(run.code, run.stderr).toBe(0);
  const reads = wire.times("getTask");
  expect(reads).toEqual([200, 400, 600, 800]);
  expect(clock.now()).toBe(WALL_START + 800 - HOUR);
  wire.verify();
});

/**
 * A broker's lifecycle over HeldTasks with nothing to do, on `clock` (its socket a file in a temporary home), started
 * by `starter` (this test's process, running: the broker waits for it; undefined: a command gone).
 */
async function idleBroker(clock: FakeClock, starter?: ProcessRef) {
  const home = tempHome();
  const ctx = await testContext(home, { clock });
  const stop = new AbortController();
  const wire = { close: async () => {}, closed: new Promise(() => {}) } as unknown as Wire;
  const tasks = new HeldTasks(
    wire,
    ctx,
    { transport: "stdio", command: "x", args: [] } as never,
    new Set(),
    (s) => s,
    stop.signal,
  );
  const socket = join(home, "broker.sock");
  writeFileSync(socket, "");
  const paths = { socket, meta: join(home, "broker.json") } as BrokerPaths;
  const running = {
    server: { close: () => {}, once: () => {} },
    wire,
    meta: {},
    clients: new Set(),
    tasks,
    stop,
    answering: new Set(),
    calling: new Set(),
    starter,
  } as unknown as Running;
  return { lifecycle: new Lifecycle(ctx, paths, "key", running), tasks };
}

it("a broker with nothing to do leaves after its grace when the wall clock steps back an hour", async () => {
  const clock = new FakeClock();
  const { lifecycle } = await idleBroker(clock); // the command that started it is gone
  const sleepsBefore = clock.asked.length;
  clock.stepWall(-HOUR); // as its first wait begins
  lifecycle.leaveWhenIdle(300);
  // Idle since it began: it leaves at its first look past 300 ms of the monotonic clock (an hour later on the wall's).
  expect(await clock.runUntil(lifecycle.done)).toBe(0);
  expect(clock.monotonic()).toBe(300);
  expect(clock.asked.length - sleepsBefore).toBeLessThanOrEqual(4);
});

it("a broker waits past its grace for the command that started it, while that command runs", async () => {
  // A loaded machine (or a short MCP_TASK_BROKER_GRACE) let a broker leave before its command attached: the command
  // said "its broker exited without saying why" (exit 4). It waits while that command runs, as long as the command
  // waits for it (BROKER_START_WAIT_MS); a command that reached it, or is gone, leaves the grace to count as ever.
  const running = refOf(process.pid); // this test's process: the command that started the broker, still running
  const clock = new FakeClock();
  const { lifecycle } = await idleBroker(clock, running);
  lifecycle.leaveWhenIdle(300);
  let left = false;
  void lifecycle.done.then(() => (left = true));
  await clock.advance(5_000); // fake-clock: far past the grace, no command yet
  expect(left).toBe(false);
  expect(await clock.runUntil(lifecycle.done)).toBe(0);
  expect(clock.monotonic()).toBe(BROKER_START_WAIT_MS);

  const reached = new FakeClock();
  const second = await idleBroker(reached, running);
  second.lifecycle.leaveWhenIdle(300);
  await reached.advance(1_000); // fake-clock
  second.lifecycle.reached = true; // it attached, worked and left at 1 s (requests.ts sets idleSince as it leaves)
  second.tasks.idleSince = reached.monotonic();
  expect(await reached.runUntil(second.lifecycle.done)).toBe(0);
  // It looks every 300 ms (its grace, under a second): the first look 300 ms past the command's leaving is at 1.5 s.
  expect(reached.monotonic()).toBe(1_500);

  // Started by a command that is gone (killed before it attached: a pid whose start time is not the recorded one).
  const gone = new FakeClock();
  const third = await idleBroker(gone, { pid: process.pid, start: "proc:0" });
  third.lifecycle.leaveWhenIdle(300);
  expect(await gone.runUntil(third.lifecycle.done)).toBe(0);
  expect(gone.monotonic()).toBe(300);
});

it("a look at a broker (server ps, a hello) does not restart its grace; a command that worked there does", async () => {
  // `server ps` in a loop, watching for a broker to leave, kept it (and its stdio server) up for ever: each look's
  // leaving counted as activity. The grace counts from the last command that worked there, on the monotonic clock.
  const home = tempHome();
  let mono = 1_000;
  const clock = clockOf(
    () => Date.now(),
    () => mono,
  );
  const ctx = await testContext(home, { clock });
  const stop = new AbortController();
  const wire = {
    capabilities: { generation: "v1", protocolVersion: "2025-11-25", serverName: "x", canListTasks: false },
    resumeToken: () => ({}),
    listTools: async () => [],
    close: async () => {},
    closed: new Promise(() => {}),
  } as unknown as Wire;
  const clients = new Set<Client>();
  const tasks = new HeldTasks(
    wire,
    ctx,
    { transport: "stdio", command: "x", args: [] } as never,
    clients,
    (s) => s,
    stop.signal,
  );
  const questions = new Questions(
    wire,
    clients,
    clock,
    () => {},
    () => [],
  );
  const key = "0123456789abcdef";
  const paths = brokerPaths(home, key);
  const meta = { key, name: "looked-at", pid: process.pid, startedAt: new Date().toISOString() } as BrokerMeta;
  const server = brokerServer({
    wire,
    clock,
    meta,
    clients,
    tasks,
    questions,
    relay: new TraceRelay(clients, () => undefined),
    shutdown: () => {},
    answering: new Set(),
  });
  await new Promise<void>((resolve) => server.listen(paths.socket, resolve));
  writeFileSync(paths.meta, JSON.stringify(meta));
  try {
    const since = tasks.idleSince;
    const closed = () => new Promise<void>((resolve) => setImmediate(resolve));
    for (let look = 0; look < 3; look++) {
      mono += 10_000;
      expect((await listBrokers(home)).map((b) => b.name)).toEqual(["looked-at"]);
      await closed();
      while (clients.size > 0) await closed();
    }
    // Three looks, 30 s of monotonic time: the grace still counts from before them.
    expect(tasks.idleSince).toBe(since);
    // A command that asked for work (here its tools) restarts it as it leaves.
    mono += 10_000;
    const socket = netConnect(paths.socket);
    await once(socket, "connect");
    const worker = await BrokerWire.open(socket);
    await worker.listTools();
    await worker.close();
    while (clients.size > 0) await closed();
    expect(tasks.idleSince).toBe(mono);
  } finally {
    server.close();
    stop.abort();
  }
});
