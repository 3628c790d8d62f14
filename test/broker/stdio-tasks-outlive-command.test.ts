// Tasks on stdio servers outliving the command that started them, through a broker process: detach and
// watch/respond later, crashes of the broker or of the server, idle shutdown, racing starts, stop, privacy. The
// brokers are processes whatever runs a command; the commands run in-process, but for the one whose point is a new
// process finding the task an earlier command left with its broker.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { expect, it } from "vitest";
import { events, runCli, tempHome } from "../helpers/cli.js";
import { runInProcess } from "../helpers/context.js";
import { until } from "../helpers/until.js";
import { everythingStdio, v2Stdio } from "../helpers/servers.js";
import * as errors from "../../src/errors.js";
import { decodeError, encodeError } from "../../src/broker/protocol.js";
import { UnsafeFileError } from "../../src/store/safe-fs.js";

interface Meta {
  pid: number;
  serverPid: number;
  name: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Alive and not a zombie waiting to be reaped. */
function running(pid: number): boolean {
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, "utf8"));
  } catch {
    return false;
  }
}

function brokers(home: string): Meta[] {
  const dir = join(home, "brokers");
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .map((f) => JSON.parse(readFileSync(join(dir, f), "utf8")) as Meta);
}

/** Waits for `pids` to be gone; the bound is hang-only (a process that never leaves), not how long leaving takes. */
async function gone(pids: number[], timeoutMs = 60_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (pids.some(running)) {
    if (Date.now() > until) throw new Error(`still running: ${pids.filter(running).join(", ")}`);
    await sleep(100);
  }
}

async function detach(home: string, ...args: string[]): Promise<string> {
  const run = await runInProcess(["call", ...args, "--detach", "--json"], { home });
  expect(run.code, run.stderr).toBe(0);
  return events(run.stdout)[0].taskId as string;
}

it("every error class of src/errors.ts crosses the broker's socket as itself (class, exit code, hint, task)", () => {
  const classes = Object.values(errors).filter(
    (value): value is typeof errors.McpTaskError =>
      typeof value === "function" && (value === errors.McpTaskError || value.prototype instanceof errors.McpTaskError),
  );
  expect(classes.length).toBeGreaterThanOrEqual(12);
  const across = (error: unknown) => decodeError(JSON.parse(JSON.stringify(encodeError(error))));
  for (const Class of classes) {
    const sent =
      (Class as unknown) === errors.RpcError
        ? new errors.RpcError("refused", -32602)
        : new Class(`a ${Class.name}`, `hint of ${Class.name}`, "task-1");
    const got = across(sent) as errors.McpTaskError;
    expect(got.constructor, Class.name).toBe(Class);
    expect([got.exitCode, got.code, got.message, got.hint, got.taskId]).toEqual([
      sent.exitCode,
      sent.code,
      sent.message,
      sent.hint,
      sent.taskId,
    ]);
  }
  expect((across(new errors.RpcError("refused", -32602)) as errors.RpcError).rpcCode).toBe(-32602);
  const transient = new errors.SessionLostError("gone");
  transient.transient = true;
  expect((across(transient) as errors.ServerError).transient).toBe(true);
  // A subclass defined elsewhere travels as its nearest class of src/errors.ts; anything else as the broker's failure.
  expect(across(new UnsafeFileError("/x", "a symbolic link")).constructor).toBe(errors.UsageError);
  expect(across(new Error("boom"))).toEqual(new errors.ServerError("the broker failed: boom"));
});

it("a broker that cannot start reports why as data; its log keeps the same for people", async () => {
  const home = tempHome();
  const run = await runInProcess(["call", "echo", "--stdio", "definitely-not-a-command-xyz", "--json"], { home });
  expect(run.code, run.stderr).toBe(4);
  expect(events(run.stdout)).toEqual([
    expect.objectContaining({
      type: "error",
      code: "server",
      message: "cannot start the server definitely-not-a-command-xyz: command not found: definitely-not-a-command-xyz",
    }),
  ]);
  const dir = join(home, "brokers");
  // The report is read once and removed; the log says it in words.
  expect(readdirSync(dir).filter((name) => name.endsWith(".failed"))).toEqual([]);
  const log = readdirSync(dir).find((name) => name.endsWith(".log"))!;
  expect(readFileSync(join(dir, log), "utf8")).toMatch(/command not found: definitely-not-a-command-xyz/);
});

it("a stdio task started with --detach is watched to its end from a new process, then the broker leaves", async () => {
  const home = tempHome();
  const id = await detach(home, "simulate-research-query", "topic=x", "--stdio", everythingStdio);
  const [broker] = brokers(home);
  expect(running(broker.pid) && running(broker.serverPid)).toBe(true);
  const watched = await runCli(["watch", id], { home });
  expect(watched.code).toBe(0);
  expect(watched.stdout).toContain("# Research Report: x");
  // No task left and no client: after the grace period, neither the broker nor its server remains.
  await gone([broker.pid, broker.serverPid]);
  expect(brokers(home)).toHaveLength(0);
});

it("a question asked while nobody watches waits in the broker for a later respond", async () => {
  const home = tempHome();
  const id = await detach(
    home,
    "simulate-research-query",
    "topic=python",
    "ambiguous=true",
    "--stdio",
    everythingStdio,
  );
  // The task reaches input_required (after ~3 s) with no command attached: read until it does (hang-only, 60 s).
  let status = "";
  await until(
    async () => {
      status = JSON.parse((await runInProcess(["get", id, "--json"], { home })).stdout).status;
      return status === "input_required";
    },
    { hangMs: 60_000, everyMs: 200, what: "the task asking" },
  ).catch(() => {});
  expect(status).toBe("input_required");
  const responded = await runInProcess(["respond", id, "--input", '{"interpretation":"snake"}'], { home });
  expect(responded.code).toBe(0);
  const result = await runInProcess(["result", id], { home });
  expect(result.stdout).toContain("# Research Report: python (snake)");
});

it("a V2 stdio server's tasks work through the broker too", async () => {
  const home = tempHome();
  const id = await detach(home, "task_input_once", "ms=200", "--stdio", v2Stdio());
  expect((await runInProcess(["respond", id, "--input", '{"name":"Kay"}'], { home })).code).toBe(0);
  expect((await runInProcess(["result", id], { home })).stdout.trim()).toBe("Hello, Kay");
});

it("a task that ends before its call's command watches it is seen ended by its push: no poll, then or later", async () => {
  const home = tempHome();
  const server = v2Stdio("--poll-interval", "200", "--quiet");
  // A broker that stays (its grace is longer than the wait below), started by a first call; its own follow reads
  // at least 500 ms apart (MCP_TASK_BROKER_PACE; 5 s by default), which the wait below covers three times over.
  const warm = await runInProcess(["call", "task_complete", "ms=10", "--stdio", server], {
    home,
    env: { MCP_TASK_BROKER_GRACE: "30s", MCP_TASK_BROKER_PACE: "500ms" },
  });
  expect(warm.code).toBe(0);
  const run = await runInProcess(["call", "task_complete", "ms=10", "--json", "--stdio", server], { home });
  expect(run.code, run.stderr).toBe(0);
  const id = events(run.stdout)[0].taskId as string;
  const reads = async () => {
    const stats = await runInProcess(["call", "_stats", `taskId=${id}`, "--stdio", server], { home });
    return (JSON.parse(stats.stdout) as Record<string, number>)["tasks/get"] ?? 0;
  };
  // The command watches after the call's reply, by when the task has ended: the broker passes on what it saw.
  expect(await reads()).toBe(0);
  // Nor does the broker's own follow (500 ms apart here) read a task it knows ended: the broker's own timing,
  // waited out.
  await sleep(1_500); // process-timing
  expect(await reads()).toBe(0);
  expect((await runInProcess(["server", "stop", server], { home })).code).toBe(0);
});

it("a bad MCP_TASK_BROKER_PACE is said before a broker starts (exit 2), as a bad grace is", async () => {
  const home = tempHome();
  const run = await runInProcess(["call", "task_complete", "ms=10", "--stdio", v2Stdio()], {
    home,
    env: { MCP_TASK_BROKER_PACE: "soon" },
  });
  expect(run.code).toBe(2);
  expect(run.stderr).toMatch(/^mcp-task: error: MCP_TASK_BROKER_PACE: not a duration: soon$/m);
  expect(existsSync(join(home, "brokers")) ? brokers(home) : []).toEqual([]);
});

it("a call's arguments are checked by its broker against the tool's inputSchema: exit 2, nothing started", async () => {
  const home = tempHome();
  const run = await runInProcess(["call", "task_complete", "ms=soon", "--stdio", v2Stdio()], { home });
  expect(run.code, run.stderr).toBe(2);
  expect(run.stderr).toMatch(/the arguments do not fit task_complete's inputSchema: .*ms/);
  expect(brokers(home)).toHaveLength(1); // the call went through the broker, which checked it
  expect(JSON.parse((await runInProcess(["list", "--json"], { home })).stdout)).toHaveLength(0);
});

it("a broker killed mid-task: the next watch exits 4, nothing is left behind, the next call starts a fresh broker", async () => {
  const home = tempHome();
  const id = await detach(home, "simulate-research-query", "topic=go", "--stdio", everythingStdio);
  const [broker] = brokers(home);
  process.kill(broker.pid, "SIGKILL");
  const watched = await runInProcess(["watch", id, "--json"], { home });
  expect(watched.code).toBe(4);
  expect(events(watched.stdout).at(-1)).toMatchObject({
    type: "error",
    exitCode: 4,
    message: expect.stringMatching(/server exited while the task was running/),
  });
  await gone([broker.pid, broker.serverPid]);
  expect(JSON.parse((await runInProcess(["list", "--json"], { home })).stdout)[0].gone).toMatch(/server exited/);
  const next = await detach(home, "simulate-research-query", "topic=rust", "--stdio", everythingStdio);
  const [fresh] = brokers(home);
  expect(fresh.pid).not.toBe(broker.pid);
  expect((await runInProcess(["watch", next], { home })).code).toBe(0);
  await gone([fresh.pid, fresh.serverPid]);
});

it("a server that crashes: its broker records it on the handle and leaves; watch exits 4, and still after the ttl", async () => {
  const home = tempHome();
  const id = await detach(home, "task_slow", "ms=60000", "ttlMs=1000", "--stdio", v2Stdio());
  const [broker] = brokers(home);
  process.kill(broker.serverPid, "SIGKILL");
  await gone([broker.pid, broker.serverPid]);
  const watched = await runInProcess(["watch", id], { home });
  expect(watched.code).toBe(4);
  expect(watched.stderr).toMatch(/server exited while the task was running/);
  // Past the ttl, what happened stays the cause: not "expired". The server's own timing (the ttl), waited out.
  await sleep(1_500); // process-timing
  const later = await runInProcess(["watch", id], { home });
  expect(later.code, later.stderr).toBe(4);
  expect(later.stderr).toMatch(/server exited while the task was running/);
  expect(JSON.parse((await runInProcess(["list", "--json"], { home })).stdout)[0].gone).toMatch(/server exited/);
});

/** A stand-in for a broker at `socket` that leaves as one does on the first connection: listener, connection, files. */
async function leavingBroker(socket: string, ...files: string[]): Promise<Server> {
  const leaving = createServer((connection) => {
    leaving.close();
    connection.destroy();
    for (const file of [socket, ...files]) rmSync(file, { force: true });
  });
  await new Promise<void>((resolve) => leaving.listen(socket, resolve));
  return leaving;
}

it("a command that reaches a broker as it leaves (its grace over) starts a new one and its call goes through", async () => {
  // A broker leaving closes the connections it has not yet taken and removes its socket (lifecycle.ts): a command
  // that dialled in that moment, on a loaded machine, ended with exit 4. The moment cannot be made to happen with a
  // real broker at will, so a stand-in listens at the broker's socket and leaves as the broker does, on the first
  // connection: listener closed, connection closed, socket removed.
  const home = tempHome();
  await detach(home, "task_slow", "ms=60000", "--stdio", v2Stdio());
  const [broker] = brokers(home);
  const dir = join(home, "brokers");
  const socket = join(
    dir,
    readdirSync(dir).find((name) => name.endsWith(".sock"))!,
  );
  expect((await runInProcess(["server", "stop", broker.name], { home })).code).toBe(0);
  await gone([broker.pid, broker.serverPid]);
  const leaving = await leavingBroker(socket);
  const run = await runInProcess(["call", "task_complete", "--json", "--stdio", v2Stdio()], { home });
  expect(run.code, run.stderr).toBe(0);
  expect(leaving.listening).toBe(false); // it was reached, and left
  expect(events(run.stdout).at(-1)).toMatchObject({ type: "result", status: "completed" });
  const [fresh] = brokers(home);
  expect(fresh.pid).not.toBe(broker.pid);
});

it("server ps and server stop pass over a broker that leaves as they reach it", async () => {
  const home = tempHome();
  const dir = join(home, "brokers");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const meta = join(dir, "k1.json");
  const record = JSON.stringify({ name: "leaving", pid: process.pid });
  writeFileSync(meta, record, { mode: 0o600 });
  const first = await leavingBroker(join(dir, "k1.sock"), meta);
  const ps = await runInProcess(["server", "ps", "--json"], { home });
  expect(ps.code, ps.stderr).toBe(0);
  expect(first.listening).toBe(false);
  expect(JSON.parse(ps.stdout)).toEqual([]);
  writeFileSync(meta, record, { mode: 0o600 });
  const second = await leavingBroker(join(dir, "k1.sock"), meta);
  const stop = await runInProcess(["server", "stop", "leaving"], { home });
  expect(second.listening).toBe(false);
  expect(stop.code, stop.stderr).toBe(2);
  expect(stop.stderr).toMatch(/^mcp-task: error: no broker runs for leaving\n/);
});

it("two commands racing to start the same broker end up with one; server ps and server stop", async () => {
  const home = tempHome();
  const [a, b] = await Promise.all([
    detach(home, "task_slow", "ms=60000", "--stdio", v2Stdio()),
    detach(home, "task_slow", "ms=60000", "--stdio", v2Stdio()),
  ]);
  expect(brokers(home)).toHaveLength(1);
  const ps = JSON.parse((await runInProcess(["server", "ps", "--json"], { home })).stdout);
  expect(ps).toHaveLength(1);
  expect(ps[0]).toMatchObject({ live: 2, clients: 0, responding: true });
  expect(JSON.parse((await runInProcess(["get", a, "--json"], { home })).stdout).status).toBe("working");
  expect(JSON.parse((await runInProcess(["get", b, "--json"], { home })).stdout).status).toBe("working");
  // The broker's files are private to the user.
  const dir = join(home, "brokers");
  expect(statSync(dir).mode & 0o777).toBe(0o700);
  for (const file of readdirSync(dir)) expect(statSync(join(dir, file)).mode & 0o077).toBe(0);
  const [broker] = brokers(home);
  expect((await runInProcess(["server", "stop", broker.name], { home })).code).toBe(0);
  await gone([broker.pid, broker.serverPid]);
  expect((await runInProcess(["server", "ps", "--json"], { home })).stdout.trim()).toBe("[]");
});

it("a stale broker record whose pids belong to other processes now signals nothing; one still naming its server stops it", async () => {
  const home = tempHome();
  const id = await detach(home, "task_slow", "ms=60000", "--stdio", v2Stdio());
  const dir = join(home, "brokers");
  const file = join(
    dir,
    readdirSync(dir).find((f) => f.endsWith(".json"))!,
  );
  const record = JSON.parse(readFileSync(file, "utf8")) as Meta & { server: { pid: number; start: string } };
  expect(record.server.pid).toBe(record.serverPid);
  // The broker and its server are killed without cleaning up: their record and socket stay behind.
  process.kill(record.pid, "SIGKILL");
  process.kill(record.serverPid, "SIGKILL");
  await gone([record.pid, record.serverPid]);
  const startOf = (pid: number) => `proc:${readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ")[19]}`;
  const bystander = () => {
    const child = spawn("sleep", ["60"], { stdio: "ignore" });
    return {
      child,
      exit: new Promise<NodeJS.Signals | null>((resolve) => child.on("exit", (_code, signal) => resolve(signal))),
    };
  };
  const watchAfter = async (meta: object) => {
    writeFileSync(file, JSON.stringify(meta));
    const watched = await runInProcess(["watch", id], { home });
    expect(watched.code).toBe(4);
    expect(existsSync(file)).toBe(false); // the stale record is cleaned up either way
  };
  // The pids now belong to an unrelated process (as after pid reuse): the same pid, another start. An older
  // record without start times proves nothing either. Neither is signalled.
  const unrelated = bystander();
  const pid = unrelated.child.pid!;
  await watchAfter({ ...record, serverPid: pid, server: { pid, start: record.server.start } });
  await watchAfter({ ...record, serverPid: pid, server: undefined, process: undefined });
  await sleep(200);
  expect(running(pid)).toBe(true);
  // The record still names its server (same pid, same start): that server is stopped.
  await watchAfter({ ...record, serverPid: pid, server: { pid, start: startOf(pid) } });
  expect(await unrelated.exit).toBe("SIGTERM");
});
