// Runs mcp-task in this process over a context whose clock is a FakeClock and whose every connection is one
// FakeWire (ContextParts.connect): a command's timing (--timeout, the reply wait, Ctrl-C, pacing) on scripted time.
// The store is real (a temporary home). The run moves the clock from sleep to sleep until the command ends
// (FakeClock.runUntil), unless `drive: false`, where the test moves it.
import { PassThrough } from "node:stream";
import { join } from "node:path";
import { printFailure, runProgram } from "../../src/cli.js";
import { InterruptedError } from "../../src/errors.js";
import { createContext } from "../../src/process-context.js";
import { exitHoldsSettled } from "../../src/protocol/exit-holds.js";
import { cliEnv } from "./cli.js";
import type { FakeClock } from "./fake-clock.js";
import type { FakeWire } from "./fake-wire.js";
import { ROOT } from "./servers.js";

// What commands load on first use (the schema checker, the handle lock, the token store a server's secrets are
// learnt from) is loaded now: loading a module is no work the fake clock can see (it would move time on while the
// program loads).
await Promise.all([
  import("../../src/tasks/validator.js"),
  import("../../src/auth/store.js"),
  import("proper-lockfile"),
]);

/** The server a fake run's commands name (-s): any address; the connection is the FakeWire. */
export const FAKE_URL = "http://127.0.0.1:9/mcp";

export interface FakeRun {
  /** The command's output so far. */
  out: { stdout: string; stderr: string };
  /** Ctrl-C, as the process's SIGINT handler gives it. */
  interrupt(): void;
  /** The exit code. */
  exited: Promise<number>;
}

export interface FakeRunOptions {
  home: string;
  clock: FakeClock;
  wire: FakeWire;
  env?: Record<string, string>;
  random?: () => number;
  /** false: the test moves the clock (default: the run moves it until the command ends). */
  drive?: boolean;
}

export function startFake(args: string[], options: FakeRunOptions): FakeRun {
  const out = { stdout: "", stderr: "" };
  const text = (chunk: string | Uint8Array) =>
    typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
  const stdin = new PassThrough();
  stdin.end("");
  const interrupt = new AbortController();
  const argv = [process.execPath, "mcp-task", ...args];
  const io = {
    stdout: { write: (s: string | Uint8Array) => (out.stdout += text(s)) },
    stderr: { write: (s: string | Uint8Array) => (out.stderr += text(s)) },
    stdin,
    stdinIsTTY: false,
    stdoutIsTTY: false,
    stderrIsTTY: false,
    color: false,
    interactive: false,
  };
  const run = async () => {
    try {
      const ctx = createContext({
        io,
        env: cliEnv(options.home, options.env),
        home: options.home,
        self: [process.execPath, join(ROOT, "bin/mcp-task.js")],
        interrupt: interrupt.signal,
        interruptNow: () => interrupt.abort(new InterruptedError("interrupted")),
        secrets: new Map(),
        uid: process.getuid?.(),
        clock: options.clock,
        random: options.random,
        connect: async () => options.wire,
      });
      return await runProgram(ctx, argv);
    } catch (error) {
      return printFailure(io, argv, error);
    }
  };
  const running = run().then(async (code) => (await exitHoldsSettled(), code));
  return {
    out,
    interrupt: () => interrupt.abort(new InterruptedError("interrupted")),
    exited: options.drive === false ? running : options.clock.runUntil(running),
  };
}

/** Runs a command to its end on the fake clock: its exit code and output. */
export async function runFake(
  args: string[],
  options: FakeRunOptions,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const run = startFake(args, options);
  const code = await run.exited;
  return { code, ...run.out };
}
