// An in-process Context for tests: the real one's assembly (src/process-context.ts: store, settings, the connect
// policy with its credentials rule and brokers) in a temporary home, the real clock, and IO captured in strings,
// redacted of the secrets the commands use as the real process's streams are.
import { PassThrough } from "node:stream";
import { join } from "node:path";
import type { Context } from "../../src/context.js";
import { InterruptedError } from "../../src/errors.js";
import { createContext } from "../../src/process-context.js";
import { redactWith } from "../../src/protocol/server.js";
import { runProgram } from "../../src/cli.js";
import { exitHoldsSettled } from "../../src/protocol/exit-holds.js";
import { cliEnv, tempHome, type CliResult } from "./cli.js";
import { ROOT } from "./servers.js";

export interface TestContextOptions {
  /** The context's environment (default: none); the in-process runner gives the binary tests' (cliEnv). */
  env?: Record<string, string | undefined>;
  /** What stdin holds, then ends; without it stdin stays open and empty. */
  input?: Buffer | string;
}

export type TestContext = Context & { out: { stdout: string; stderr: string } };

export async function testContext(home = tempHome(), options: TestContextOptions = {}): Promise<TestContext> {
  const out = { stdout: "", stderr: "" };
  const secrets = new Map<string, string>();
  const redacted = (text: string) => (secrets.size > 0 ? redactWith(text, secrets) : text);
  const stdin = new PassThrough();
  if (options.input !== undefined) stdin.end(options.input);
  const interrupt = new AbortController();
  const ctx = createContext({
    io: {
      stdout: { write: (s: string) => (out.stdout += redacted(s)) },
      stderr: { write: (s: string) => (out.stderr += redacted(s)) },
      stdin,
      stdinIsTTY: false,
      stdoutIsTTY: false,
      stderrIsTTY: false,
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
  });
  return Object.assign(ctx, { out });
}

/**
 * Runs mcp-task in this process as `runCli` runs the binary (the same environment: cliEnv; stdin holding `input`):
 * the program over a test context, with main's error printing (src/cli.ts: runProgram), once the stdio servers it
 * started are stopped. For the behaviour of commands; what only a process shows (its exit status, --help, a
 * terminal, signals, a later process coming back) stays with runCli.
 */
export async function runInProcess(
  args: string[],
  options: { home: string; env?: Record<string, string>; input?: Buffer | string; timeoutMs?: number },
): Promise<CliResult> {
  const ctx = await testContext(options.home, { env: cliEnv(options.home, options.env), input: options.input ?? "" });
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      ctx.interruptNow();
      reject(new Error(`mcp-task ${args.join(" ")} did not finish; stderr: ${ctx.out.stderr.slice(0, 2000)}`));
    }, options.timeoutMs ?? 45_000);
  });
  try {
    const code = await Promise.race([runProgram(ctx, [process.execPath, "mcp-task", ...args]), timedOut]);
    await exitHoldsSettled();
    return { code, stdout: ctx.out.stdout, stderr: ctx.out.stderr };
  } finally {
    clearTimeout(timer);
  }
}
