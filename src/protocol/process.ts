// Starting and stopping stdio server processes. Every stdio server mcp-task starts (ours in stdio.ts, and the SDK's
// StdioClientTransport, whose `cross-spawn` import scripts/build.mjs points here) is started by `spawnServer`: the
// leader of a process group of its own, so that stopping it reaches whatever it started (a grandchild holding its
// pipes would otherwise keep running, and keep mcp-task or a broker waiting on the pipe).
//
// Signals go to the group only through the ChildProcess we spawned: while it has not exited, its pid cannot have
// been reused. Once the leader has exited, the group is signalled only while its stdout has not reached its end,
// that is while some process still holds the pipe's write end: a member of the group still exists then (unless
// it left the group), and Linux does not reuse a pid while a group of that id has members.
//
// Why not a library: execa and tree-kill signal a tree found by pid (ps / /proc walks, racy against pid reuse);
// a process group is the kernel's own handle on "the server and what it started". A server whose parent mcp-task
// dies still sees its stdin close: the pipe's only write end is in the process that died (the group changes who
// gets a terminal's signals, not the pipes).
import type { ChildProcess, SpawnOptions } from "node:child_process";
import { createRequire } from "node:module";
import { STDIO_EXIT_GRACE_MS, STDIO_KILL_GRACE_MS } from "../limits.js";
import { holdExit } from "./exit-holds.js";

interface ServerState {
  /** Resolves once the process has exited and its stdout has reached its end (nothing of the group holds it). */
  closed: Promise<void>;
  /** Resolves once the process has exited (its pipes may still be held by what it started). */
  exited: Promise<void>;
  /** stdout reached its end: nothing holds its write end any more. */
  outputEnded: boolean;
  /** Resolves once stderr has reached its end (or was never a pipe): the server's last words are read. */
  errorsEnded: Promise<void>;
  stopping?: Promise<void>;
}

// node:child_process loaded on first use: this module is in the start-up bundle (src/connections.ts starts a stdio
// server from it), and loading the module (with node:net) cost ~3 ms of every command's start.
const load = createRequire(import.meta.url);
let childProcess: typeof import("node:child_process") | undefined;

const states = new WeakMap<ChildProcess, ServerState>();
/** The servers started here that have not exited, by pid. */
const live = new Map<number, ChildProcess>();

/** Starts a stdio server as the leader of a process group of its own (cross-spawn's call shape, for the SDK). */
export function spawnServer(command: string, args: readonly string[] = [], options: SpawnOptions = {}): ChildProcess {
  childProcess ??= load("node:child_process") as typeof import("node:child_process");
  const child = childProcess.spawn(command, args, { ...options, shell: false, detached: true });
  // A spawn that failed (ENOENT) emits "error" and no "close".
  const failed = new Promise<void>((resolve) => child.once("error", () => child.pid === undefined && resolve()));
  const exited = Promise.race([failed, new Promise<void>((resolve) => child.once("exit", () => resolve()))]);
  const ended = new Promise<void>((resolve) => (child.stdout ? child.stdout.once("end", () => resolve()) : resolve()));
  const errorsEnded = new Promise<void>((resolve) => {
    if (!child.stderr) return resolve();
    child.stderr.once("end", () => resolve());
    child.stderr.once("close", () => resolve());
  });
  const state: ServerState = {
    closed: Promise.race([failed, Promise.all([exited, ended]).then(() => {})]),
    exited,
    outputEnded: false,
    errorsEnded,
  };
  states.set(child, state);
  void ended.then(() => (state.outputEnded = true));
  if (child.pid !== undefined) {
    const pid = child.pid;
    live.set(pid, child);
    child.once("exit", () => live.delete(pid));
  }
  // The SDK signals its child with child.kill(): what it sends reaches the whole group, and a SIGTERM is followed
  // by SIGKILL after the grace if the group still holds the pipe (the SDK escalates only while its child lives).
  const kill = child.kill.bind(child);
  child.kill = (signal?: NodeJS.Signals | number) => {
    const sent = signalGroup(child, signal ?? "SIGTERM") || kill(signal);
    if (sent && (signal ?? "SIGTERM") === "SIGTERM") {
      holdExit(within(state.closed, STDIO_KILL_GRACE_MS).then((gone) => gone || signalGroup(child, "SIGKILL")));
    }
    return sent;
  };
  return child;
}
export default spawnServer;

/** The server we started with this pid, while it runs. */
export function liveServer(pid: number): ChildProcess | undefined {
  return live.get(pid);
}

/** Sends `signal` to the server's process group; false when there is no group left to reach. */
export function signalGroup(child: ChildProcess, signal: NodeJS.Signals | number): boolean {
  const state = states.get(child);
  if (child.pid === undefined || !state) return false;
  const running = child.exitCode === null && child.signalCode === null;
  if (!running && state.outputEnded) return false;
  try {
    process.kill(-child.pid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * Stops a server: its input ends, and it has STDIO_EXIT_GRACE_MS to exit; then its group gets SIGTERM, and
 * SIGKILL after STDIO_KILL_GRACE_MS. Resolves once it is gone (or, for a grandchild that left the group and holds
 * the pipes, once our ends of the pipes are closed, so that nothing of it keeps this process alive).
 */
export function stopServer(child: ChildProcess, exitGraceMs = STDIO_EXIT_GRACE_MS): Promise<void> {
  const state = states.get(child);
  if (!state) return Promise.resolve();
  state.stopping ??= (async () => {
    try {
      child.stdin?.end();
    } catch {
      /* already closed */
    }
    if (await within(state.closed, exitGraceMs)) return;
    signalGroup(child, "SIGTERM");
    if (await within(state.closed, STDIO_KILL_GRACE_MS)) return;
    signalGroup(child, "SIGKILL");
    await within(state.closed, 500);
    for (const stream of [child.stdin, child.stdout, child.stderr]) stream?.destroy();
    await within(state.exited, 500);
  })();
  holdExit(state.stopping);
  return state.stopping;
}

/** True if `done` resolved within `ms` (the timer keeps the process alive meanwhile: the escalation must happen). */
function within(done: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    done.then(() => true),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms))),
  ]).finally(() => clearTimeout(timer));
}

/**
 * How long the end of a server's stdout waits for its exit, so that a crash is told as one (stdout ends first: the
 * exiting process closes its pipes before its parent is told, and on a loaded machine it may wait for a CPU in
 * between), and how long an exit waits for the end of its stderr, so that the crash is told with its last words (the
 * exit and the last of stderr reach this process as two events, in either order). Each is waited for only by a
 * server that has stopped talking, and is over at once in a crash; the bound is met only by a server that closed
 * its stdout and runs on, or a grandchild that holds stderr.
 */
const EXIT_AFTER_OUTPUT_MS = 1000;

/**
 * Resolves when the server has exited or its stdout has ended, whichever comes first: either way it is gone. Once
 * it has exited, its stderr is read to its end first (EXIT_AFTER_OUTPUT_MS at most): what it said last explains why.
 */
export function serverGone(child: ChildProcess): Promise<void> {
  const state = states.get(child);
  const exited = state?.exited ?? new Promise<void>(() => {});
  const ended = new Promise<void>((resolve) => {
    if (!child.stdout || state?.outputEnded) return resolve();
    child.stdout.once("end", () => resolve());
    child.stdout.once("close", () => resolve());
  }).then(() => within(exited, EXIT_AFTER_OUTPUT_MS).then(() => {}));
  const hasExited = () => child.exitCode !== null || child.signalCode !== null;
  return Promise.race([ended, exited]).then(async () => {
    if (state && hasExited()) await within(state.errorsEnded, EXIT_AFTER_OUTPUT_MS);
  });
}
