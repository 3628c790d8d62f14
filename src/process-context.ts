// The real Context: the process's IO, its Ctrl-C, its environment, with what it writes redacted of the secrets it
// uses; and `createContext`, the assembly of a Context (store, settings, connect policy) that the tests' in-process
// context shares.
import { isatty } from "node:tty";
import { createConnect } from "./connections.js";
import type { QuestionHolder } from "./protocol/wire.js";
import { systemClock, type Clock, type Context, type IO } from "./context.js";
import { ExitCode, InterruptedError, TerminatedError } from "./errors.js";
import { SIGTERM_EXIT_MS } from "./limits.js";
import { tuneForLongRun } from "./long-run.js";
import { createPrinter } from "./output/printer.js";
import { redactWith } from "./protocol/server.js";
import { openTrace, type Trace } from "./protocol/trace.js";
import { createSecrets } from "./secrets.js";
import { HandleStore } from "./store/handles.js";
import { Settings, homeDir } from "./store/settings.js";
import { Tracker } from "./tasks/tracker.js";

export interface ContextParts {
  io: IO;
  env: Record<string, string | undefined>;
  home: string;
  /** How to run mcp-task itself (to start a broker): [node, script]. */
  self: readonly string[];
  interrupt: AbortSignal;
  interruptNow(): void;
  /** The secrets of the servers reached (value -> reference), for whatever redacts the output. */
  secrets: Map<string, string>;
  /** The user's id: a home owned by anyone else is refused. */
  uid?: number;
  /** Told once the settings are open (the process removes the SIGINT hook conf brings). */
  onSettingsOpened?: () => void;
  /** See Context.longRun. */
  longRun?: () => void;
  /** See Context.cwd. */
  cwd?: string;
  /** The clock (default: the process's, systemClock); a test's may step its wall time. */
  clock?: Clock;
  /** See Context.random (default: Math.random). */
  random?: () => number;
  /** The connections (default: the connect policy, src/connections.ts); a test's may hand over a wire of its own. */
  connect?: Context["connect"];
  /** Who this process is, as it tells a broker it attaches to (ConnectDeps.who); default: unknown. */
  who?: QuestionHolder;
}

/**
 * The short command line a process is named by to the other commands of a task whose question it holds (`mcp-task
 * watch 5348014916be`): its words up to the first option or `key=value` (which may carry what it answers with, or a
 * secret), at most three.
 */
export function commandLineOf(args: readonly string[]): string {
  const words: string[] = [];
  for (const arg of args) {
    if (words.length === 3 || arg.startsWith("-") || arg.includes("=")) break;
    words.push(arg);
  }
  return ["mcp-task", ...words].join(" ");
}

/** MCP_TASK_TRACE: unset, "" or "0": no trace; "1" or "-": readable lines on stderr; anything else: a file. */
export function traceSetting(value: string | undefined): string | undefined {
  if (value === undefined || value === "" || value === "0") return undefined;
  return value === "1" || value === "-" ? "-" : value;
}

/**
 * A Context over `parts`: the handle store (opened now: a home that cannot be used fails here), the settings
 * (opened on first `loadSettings`, once, whoever asks first) and the connect policy (src/connections.ts).
 */
export function createContext(parts: ContextParts): Context {
  const { io, env, home, self } = parts;
  const clock = parts.clock ?? systemClock;
  const onRepair = (message: string) => createPrinter(io, false).note(message);
  let opening: Promise<Settings> | undefined;
  // One opening, whoever asks first; a failed one (an unreadable settings.json) is not kept: the next caller tries.
  const loadSettings = () =>
    (opening ??= Settings.open(home).then(
      (settings) => {
        parts.onSettingsOpened?.();
        return settings;
      },
      (error: unknown) => {
        opening = undefined;
        throw error;
      },
    ));
  const secrets = createSecrets({ known: parts.secrets, env, home, settings: loadSettings });
  const tracker = new Tracker(new HandleStore(home, { uid: parts.uid, onRepair }, secrets.learn), clock);
  const ctx: Context = {
    io,
    secrets,
    clock,
    random: parts.random ?? Math.random,
    env,
    home,
    cwd: parts.cwd,
    loadSettings,
    tracker,
    interrupt: parts.interrupt,
    interruptNow: parts.interruptNow,
    longRun: parts.longRun,
    self,
    trace: traceSetting(env.MCP_TASK_TRACE),
    connect: () => Promise.reject(new Error("unreachable")),
  };
  if (parts.connect) {
    ctx.connect = parts.connect;
    return ctx;
  }
  let trace: Trace | undefined;
  let traced: string | undefined;
  ctx.connect = createConnect({
    home,
    env,
    io,
    interrupt: parts.interrupt,
    settings: loadSettings,
    secrets: parts.secrets,
    learn: secrets.learn,
    self,
    who: parts.who,
    clock,
    // Opened on the first connection, where ctx.trace says (it is set before any command runs).
    trace: () => {
      if (ctx.trace !== traced) {
        traced = ctx.trace;
        trace =
          traced === undefined
            ? undefined
            : openTrace(
                traced === "-" ? { stderr: io.stderr } : { file: traced, stderr: io.stderr, secrets: parts.secrets },
              );
      }
      const tap = ctx.wireTap;
      if (!tap) return trace;
      const written = trace;
      return { write: (event) => (written?.write(event), tap.write(event)) };
    },
  });
  return ctx;
}

/** The process's standard streams with their TTY facts, colour and interactivity (NO_COLOR, FORCE_COLOR, CI). */
export function processIO(argv: string[], env: Record<string, string | undefined>): IO {
  const noColor = argv.includes("--no-color") || (env.NO_COLOR !== undefined && env.NO_COLOR !== "");
  const forceColor = env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "0" && env.FORCE_COLOR !== "false";
  const ci = Boolean(env.CI) && env.CI !== "false" && env.CI !== "0";
  // process.stdin is made on first use (a stream over the file, pipe or terminal: ~1 ms that `list` need not pay);
  // whether it is a terminal is asked of the descriptor.
  const stdinIsTTY = isatty(0);
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    get stdin() {
      return process.stdin;
    },
    stdinIsTTY,
    stdoutIsTTY: Boolean(process.stdout.isTTY),
    stderrIsTTY: Boolean(process.stderr.isTTY),
    color: !noColor && (forceColor || Boolean(process.stderr.isTTY)),
    interactive: stdinIsTTY && Boolean(process.stderr.isTTY) && !ci,
    terminal:
      stdinIsTTY && process.stdout.isTTY && !ci
        ? { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr }
        : undefined,
  };
}

/** What is written, redacted: text, or bytes as their text would be (list --json writes its rows so). */
function redacted(chunk: unknown, secrets: Map<string, string>): unknown {
  if (typeof chunk === "string") return redactWith(chunk, secrets);
  if (!(chunk instanceof Uint8Array)) return chunk;
  // Read where they are (Buffer.from of a Uint8Array would copy them first).
  return redactWith(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString("utf8"), secrets);
}

/**
 * The real process as a Context: its streams (redacted), Ctrl-C, environment and home. `exitCode()` is the code so
 * far, with which a reader going away ends the process. Throws what opening the store throws.
 */
export function processContext(io: IO, exitCode: () => number): Context {
  const env = process.env;
  const interrupt = new AbortController();
  const interruptNow = () => {
    if (interrupt.signal.aborted) process.exit(ExitCode.interrupted);
    interrupt.abort(new InterruptedError("interrupted"));
  };
  // mcp-task handles Ctrl-C itself (stop waiting, print how to resume; a second Ctrl-C exits at once). conf's atomic
  // writer (atomically -> when-exit) hooks SIGINT at load and re-raises it with process.kill after its cleanup,
  // which would turn every Ctrl-C into a double one: its listener (and signal-exit's, from proper-lockfile) go.
  process.removeAllListeners("SIGINT");
  process.on("SIGINT", interruptNow);
  // SIGTERM (a CI runner cancelling) as Ctrl-C: stop waiting, keep the task, the error line with its resume hint;
  // exit 143. A second one, or a command that has not stopped within SIGTERM_EXIT_MS, exits at once.
  // conf's and proper-lockfile's exit hooks re-raise SIGTERM too (a second one: exit at once): theirs go, as for SIGINT.
  const terminateNow = () => {
    if (interrupt.signal.aborted) process.exit(ExitCode.terminated);
    setTimeout(() => process.exit(ExitCode.terminated), SIGTERM_EXIT_MS).unref();
    interrupt.abort(new TerminatedError("terminated (SIGTERM)"));
  };
  process.removeAllListeners("SIGTERM");
  process.on("SIGTERM", terminateNow);
  // A reader that goes away (`mcp-task call ... --json | head -1`) ends the command quietly, not with a stack trace.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "EPIPE") process.exit(exitCode());
    });
  }
  // Secrets (the values of ${env:} references in the servers this command reaches) never reach the terminal or a
  // pipe: every write to stdout and stderr, the printer's and Ink's alike, gives them back as their references,
  // whatever echoes them (an error, a server's stderr, a status message, a result).
  const secrets = new Map<string, string>();
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
    stream.write = ((chunk: unknown, ...rest: unknown[]) =>
      write(secrets.size > 0 ? redacted(chunk, secrets) : chunk, ...rest)) as typeof stream.write;
  }
  return createContext({
    io,
    env,
    home: homeDir(env),
    cwd: process.cwd(),
    self: [process.execPath, process.argv[1]],
    who: { pid: process.pid, command: commandLineOf(process.argv.slice(2)) },
    interrupt: interrupt.signal,
    interruptNow,
    secrets,
    uid: process.getuid?.(),
    longRun: tuneForLongRun,
    // conf's when-exit has just hooked SIGINT too (see above): only our handler stays.
    onSettingsOpened: () => {
      for (const listener of process.listeners("SIGINT"))
        if (listener !== interruptNow) process.removeListener("SIGINT", listener);
      for (const listener of process.listeners("SIGTERM"))
        if (listener !== terminateNow) process.removeListener("SIGTERM", listener);
    },
  });
}
