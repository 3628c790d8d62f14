// An in-process Context for tests: the real one's assembly (src/process-context.ts: store, settings, the connect
// policy with its credentials rule and brokers) in a temporary home, the real clock, and IO captured in strings,
// redacted of the secrets the commands use as the real process's streams are.
import { PassThrough } from "node:stream";
import { join } from "node:path";
import { clockOf, type Clock, type Context } from "../../src/context.js";
import { InterruptedError } from "../../src/errors.js";
import { createContext, type ContextParts } from "../../src/process-context.js";
import { redactWith } from "../../src/protocol/server.js";
import { printFailure, runProgram } from "../../src/cli.js";
import { exitHoldsSettled } from "../../src/protocol/exit-holds.js";
import { cliEnv, tempHome, type CliResult } from "./cli.js";
import { ROOT } from "./servers.js";

export interface TestContextOptions {
  /** The context's environment (default: none); the in-process runner gives the binary tests' (cliEnv). */
  env?: Record<string, string | undefined>;
  /** What stdin holds, then ends; without it stdin stays open and empty. */
  input?: Buffer | string;
  /** stdout taken for a terminal (what `list` pages for); nothing is drawn. */
  stdoutIsTTY?: boolean;
  /** stderr taken for a terminal (where a person reads notes said while waiting). */
  stderrIsTTY?: boolean;
  /** The clock (default: the process's). */
  clock?: Clock;
}

export type TestContext = Context & { out: { stdout: string; stderr: string } };

export async function testContext(home = tempHome(), options: TestContextOptions = {}): Promise<TestContext> {
  const parts = testParts(home, options);
  return Object.assign(createContext(parts), { out: parts.out });
}

/** What a test context is made of: IO captured in `out` (redacted of `secrets`), its own Ctrl-C, the binary as self. */
function testParts(
  home: string,
  options: TestContextOptions,
  out = { stdout: "", stderr: "" },
): ContextParts & { out: TestContext["out"] } {
  const secrets = new Map<string, string>();
  const redacted = (text: string) => (secrets.size > 0 ? redactWith(text, secrets) : text);
  const text = (chunk: string | Uint8Array) =>
    typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
  const stdin = new PassThrough();
  if (options.input !== undefined) stdin.end(options.input);
  const interrupt = new AbortController();
  return {
    out,
    io: {
      stdout: { write: (s: string | Uint8Array) => (out.stdout += redacted(text(s))) },
      stderr: { write: (s: string | Uint8Array) => (out.stderr += redacted(text(s))) },
      stdin,
      stdinIsTTY: false,
      stdoutIsTTY: options.stdoutIsTTY ?? false,
      stderrIsTTY: options.stderrIsTTY ?? false,
      color: false,
      interactive: false,
    },
    env: options.env ?? {},
    home,
    self: [process.execPath, join(ROOT, "bin/mcp-task.js")],
    interrupt: interrupt.signal,
    interruptNow: () => interrupt.abort(new InterruptedError("interrupted")),
    secrets,
    uid: process.getuid?.(),
    clock: options.clock,
  };
}

/**
 * The process's clock, but for its wall time, which steps back by `stepMs` (as NTP or a restored VM steps it) as the
 * `nth` sleep asked of it begins: mid-wait, a wait timed on the wall clock has its deadline from before the step.
 * `sleeps` counts the sleeps asked.
 */
export function steppingClock(nth: number, stepMs: number): Clock & { sleeps: number } {
  let back = 0;
  const inner = clockOf(
    () => Date.now() - back,
    () => performance.now(),
  );
  const clock = {
    ...inner,
    sleeps: 0,
    sleep: (ms: number, signal?: AbortSignal) => {
      if (++clock.sleeps === nth) back = stepMs;
      return inner.sleep(ms, signal);
    },
  };
  return clock;
}

/**
 * The process's clock, but hurried: a sleep waits at most `realMs` of real time (default 50 ms), and the rest of it is
 * skipped, on the wall clock and the monotonic one alike (both read later as if it had all passed). Waits of up to
 * `realMs` (a poll of a condition) are as the system clock's; a long wait of ours between reads (a step of a
 * redelivery wait, a give-up) takes the same number of reads in a fraction of the time. For an in-process command
 * that waits out one of our own windows before saying something; `skippedMs` is how much was skipped.
 */
export function hastyClock(realMs = 50): Clock & { skippedMs: number } {
  const inner = clockOf(
    () => Date.now() + clock.skippedMs,
    () => performance.now() + clock.skippedMs,
  );
  const clock = {
    ...inner,
    skippedMs: 0,
    sleep: async (ms: number, signal?: AbortSignal) => {
      const real = Math.min(ms, realMs);
      await inner.sleep(real, signal);
      if (!signal?.aborted && ms > real) clock.skippedMs += ms - real;
    },
  };
  return clock;
}

export interface InProcessOptions {
  home: string;
  env?: Record<string, string>;
  input?: Buffer | string;
  timeoutMs?: number;
  stdoutIsTTY?: boolean;
  stderrIsTTY?: boolean;
  clock?: Clock;
  /** The folder the command runs in (Context.cwd: a relative --stdio line's); default: none. */
  cwd?: string;
}

/**
 * Runs mcp-task in this process as `runCli` runs the binary (the same environment: cliEnv; stdin holding `input`):
 * the program over a test context, with main's error printing (src/cli.ts: runProgram), once the stdio servers it
 * started are stopped. For the behaviour of commands; what only a process shows (its exit status, --help, a
 * terminal, signals, a later process coming back) stays with runCli.
 */
export async function runInProcess(
  args: string[],
  options: InProcessOptions,
  out = { stdout: "", stderr: "" },
): Promise<CliResult> {
  const argv = [process.execPath, "mcp-task", ...args];
  const env = cliEnv(options.home, options.env);
  const parts = testParts(
    options.home,
    {
      env,
      input: options.input ?? "",
      stdoutIsTTY: options.stdoutIsTTY,
      stderrIsTTY: options.stderrIsTTY,
      clock: options.clock,
    },
    out,
  );
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      parts.interruptNow();
      reject(new Error(`mcp-task ${args.join(" ")} did not finish; stderr: ${out.stderr.slice(0, 2000)}`));
    }, options.timeoutMs ?? 45_000);
  });
  // As main: what making the context throws (a home that cannot be used) is printed, and its code returned.
  const run = async () => {
    try {
      return await runProgram(createContext({ ...parts, cwd: options.cwd }), argv);
    } catch (error) {
      return printFailure(parts.io, argv, error);
    }
  };
  try {
    const code = await Promise.race([run(), timedOut]);
    await exitHoldsSettled();
    return { code, stdout: out.stdout, stderr: out.stderr };
  } finally {
    clearTimeout(timer);
  }
}

/** Starts `runInProcess` without waiting, as `startCli` starts the binary: its output as it comes, then its code. */
export function startInProcess(
  args: string[],
  options: InProcessOptions,
): { output: TestContext["out"]; exited: Promise<number | null> } {
  const output = { stdout: "", stderr: "" };
  return { output, exited: runInProcess(args, options, output).then((run) => run.code) };
}
