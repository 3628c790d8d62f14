// The one injected context: IO streams with their TTY facts, a clock, the environment, settings and a way to
// connect to servers. The commands, the engine and the views take what they need of the process from it (the real
// one: src/process-context.ts; the tests': test/helpers/context.ts). What runs beside them and is not a test's to
// fake reads the process itself: stdio servers' processes (protocol/process.ts), the broker, file times in the store.
import type { Clock } from "./model.js";
import type { Settings } from "./store/settings.js";
export type { Clock };
import type { ServerDescriptor } from "./protocol/server.js";
import type { WireTap } from "./protocol/trace.js";
import type { ResumeToken, Wire } from "./protocol/wire.js";
import type { Trace } from "./protocol/trace.js";
import type { Tracker } from "./tasks/tracker.js";
import { MAX_TIMER_MS } from "./limits.js";

export interface OutStream {
  /** Text, or bytes of UTF-8 text (list --json's rows, copied from the index). */
  write(text: string | Uint8Array): unknown;
}

export interface Terminal {
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
}

export interface IO {
  stdout: OutStream;
  stderr: OutStream;
  stdin: NodeJS.ReadableStream;
  stdinIsTTY: boolean;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  /** Colour wanted on the terminal (NO_COLOR / FORCE_COLOR / --no-color / TTY). */
  color: boolean;
  /** Interactive: a person can be asked (stdin and stderr are TTYs and not CI). */
  interactive: boolean;
  /** The terminal itself, when stdin and stdout are TTYs and not CI: what Ink draws on. */
  terminal?: Terminal;
}

/** What a process redacts from everything it writes (src/secrets.ts). */
export interface Secrets {
  /** Each secret in each of its forms -> what replaces it: stdout, stderr, handles, the index and traces are redacted of these. */
  readonly known: Map<string, string>;
  /** Adds the secrets of the saved server `server` is reached as (none for one not saved); returns `known`. */
  learn(server: ServerDescriptor): Promise<ReadonlyMap<string, string>>;
  /** Adds those of every saved server (a command that shows tasks of any). */
  learnSaved(): Promise<void>;
}

export interface Context {
  io: IO;
  /** The secrets this process knows, to redact from what it writes; a command learns those of each server it shows. */
  secrets: Secrets;
  clock: Clock;
  /**
   * A number in [0, 1), as Math.random gives (the real process's: Math.random itself): the jitter of the watches'
   * reads and backoff comes from here, so that a test can replay it.
   */
  random: () => number;
  env: Record<string, string | undefined>;
  /**
   * The settings (saved servers, verdicts), opened on the first call and the same for every later one: commands
   * that need none (list, forget...) never pay for their loading.
   */
  loadSettings(): Promise<Settings>;
  /** The mcp-task directory. */
  home: string;
  /**
   * The folder the command runs in, which a `--stdio` command line typed here runs in too (its relative paths mean
   * this folder's files, and its broker is this folder's); undefined where no folder applies (a test's context).
   */
  cwd?: string;
  /** The saved task handles. */
  tracker: Tracker;
  /**
   * Opens a connection to a server (generation detected, verdict cached). `resume` reaches a saved task again (its
   * V1 session; on stdio, its broker). `outlive` asks for a connection whose tasks outlive this command: on stdio,
   * through a broker started on demand. Tasks whose server hands questions over once (V1) are reached through a
   * broker that holds their questions: on stdio the server's, over HTTP the session's keeper. `direct`: the broker's
   * own connection (never through a broker). `sampling`: this command can answer a sampling request (declared only
   * where one can be answered). `trace`: a trace of this connection besides the command's (a broker's own).
   * `held`: the process that holds the server's tasks: on stdio its running broker (nothing is started;
   * NoBrokerError when none runs). `meanwhile`: run as a connection of this process's own begins (not one through a
   * broker, which does its own checks), so that what the command needs next loads while the server boots.
   * The policy: src/connections.ts.
   */
  connect(
    server: ServerDescriptor,
    name?: string,
    how?: {
      resume?: ResumeToken;
      outlive?: boolean;
      direct?: boolean;
      sampling?: boolean;
      trace?: Trace;
      held?: boolean;
      meanwhile?: () => void;
    },
  ): Promise<Wire>;
  /** How to run mcp-task itself (to start a broker): [node, script]. */
  self: readonly string[];
  /**
   * Where the wire trace of this process's connections goes: "-" for readable lines on stderr, else a file (NDJSON);
   * undefined: no trace. MCP_TASK_TRACE sets it; `--trace[=FILE]` (src/cli.ts) overrides it.
   */
  trace?: string;
  /** A sink that also hears the wire trace of this process's connections opened from now on (the dashboard's wire
   *  view), whether or not a trace is written. */
  wireTap?: WireTap;
  /** Aborted on Ctrl-C. */
  interrupt: AbortSignal;
  /** Ctrl-C as seen by a raw-mode terminal UI (where the terminal sends no SIGINT): aborts `interrupt`. */
  interruptNow(): void;
  /**
   * Told by a command whose process runs for hours (the dashboard, a broker): the real process tunes its runtime for
   * memory over peak speed (src/process-context.ts); a test's context does nothing.
   */
  longRun?(): void;
}

/** A Clock of these two readings (see Clock), its sleep timed on the monotonic one. */
export function clockOf(wall: () => number, monotonic: () => number): Clock {
  return {
    now: wall,
    monotonic,
    sleep: (ms, signal) => sleepOn(monotonic, ms, signal),
  };
}

/** The process's clock: Date.now, and performance.now (monotonic). */
export const systemClock: Clock = clockOf(
  () => Date.now(),
  () => performance.now(),
);

function sleepOn(monotonic: () => number, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    // NaN or below zero: no wait. Longer than a timer holds (setTimeout fires at once past 2^31-1 ms, with a
    // warning on stderr): waited in steps of MAX_TIMER_MS, so that an absurd wait is a long one, not a busy loop.
    if (signal?.aborted || !(ms > 0)) return resolve();
    const until = monotonic() + ms;
    let timer: NodeJS.Timeout | undefined;
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const step = () => {
      const left = until - monotonic();
      if (left <= 0) return done();
      timer = setTimeout(step, Math.min(left, MAX_TIMER_MS));
    };
    timer = setTimeout(step, Math.min(ms, MAX_TIMER_MS));
    signal?.addEventListener("abort", done, { once: true });
  });
}
