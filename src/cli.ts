// The command surface, declared in one place, and the entry point bin/mcp-task.js calls.
import { exitHoldsSettled } from "./protocol/exit-holds.js";
import { Command, CommanderError } from "commander";
import { isatty } from "node:tty";
import { registerCall } from "./commands/call.js";
import { registerBroker } from "./commands/broker.js";
import { registerDashboard } from "./commands/dashboard.js";
import { registerDemo } from "./commands/demo.js";
import { registerGet } from "./commands/get.js";
import { registerList } from "./commands/list.js";
import { registerLogin } from "./commands/login.js";
import { registerLogout } from "./commands/logout.js";
import { registerRespond } from "./commands/respond.js";
import { registerTransfer } from "./commands/transfer.js";
import { registerWatch } from "./commands/watch.js";
import { registerServer } from "./commands/server.js";
import { registerTools } from "./commands/tools.js";
import { requestTimeoutMs } from "./commands/common.js";
import { systemClock, type Context, type IO } from "./context.js";
import { ExitCode, InterruptedError, describeError } from "./errors.js";
import { createPrinter } from "./output/printer.js";
import { HandleStore } from "./store/handles.js";
import { credentialed, descriptorKey, redactWith, secretsOf, type ServerDescriptor } from "./protocol/server.js";
import { questionKeeperOf, type ResumeToken, type Wire } from "./protocol/wire.js";
import { Settings, homeDir } from "./store/settings.js";
import { Tracker } from "./tasks/tracker.js";

export const VERSION = "0.1.0";

export function buildProgram(ctx: Context, setExit: (code: number) => void): Command {
  const wantsJson = (argv: string[]) => argv.includes("--json");
  let json = false;
  const run = async (job: () => Promise<number>, options: { settings?: boolean } = {}) => {
    try {
      if (options.settings !== false) await ctx.loadSettings();
      setExit(await job());
    } catch (error) {
      const report = describeError(error);
      createPrinter(ctx.io, json).error(report);
      setExit(report.exitCode);
    }
  };
  const program = new Command("mcp-task")
    .description(
      "Drive and inspect MCP Tasks: start long tool calls, follow them, answer their input, read their results.",
    )
    .version(VERSION)
    .option("--no-color", "no colour")
    .showHelpAfterError("(run with --help for usage)")
    .exitOverride()
    .configureOutput({
      writeOut: (text) => ctx.io.stdout.write(text),
      writeErr: (text) => ctx.io.stderr.write(text),
    })
    .hook("preAction", (_this, action) => {
      json = wantsJson(action.args) || Boolean(action.opts().json);
    });
  registerServer(program, ctx, run);
  registerTools(program, ctx, run);
  registerLogin(program, ctx, run);
  registerLogout(program, ctx, run);
  registerCall(program, ctx, run);
  registerWatch(program, ctx, run);
  registerRespond(program, ctx, run);
  registerGet(program, ctx, run);
  registerList(program, ctx, run);
  registerTransfer(program, ctx, run);
  registerDashboard(program, ctx, run);
  registerDemo(program, ctx, run);
  registerBroker(program, ctx, run);
  return program;
}

/**
 * Runs the CLI with the real process as context; resolves to the exit code once the servers it started are stopped
 * (bin/mcp-task.js exits soon after, whatever is left running).
 */
export async function main(argv: string[] = process.argv): Promise<number> {
  const code = await runProcess(argv);
  await exitHoldsSettled();
  return code;
}

async function runProcess(argv: string[]): Promise<number> {
  const env = process.env;
  const noColor = argv.includes("--no-color") || (env.NO_COLOR !== undefined && env.NO_COLOR !== "");
  const forceColor = env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "0" && env.FORCE_COLOR !== "false";
  const ci = Boolean(env.CI) && env.CI !== "false" && env.CI !== "0";
  // process.stdin is made on first use (a stream over the file, pipe or terminal: ~1 ms that `list` need not pay);
  // whether it is a terminal is asked of the descriptor.
  const stdinIsTTY = isatty(0);
  const io: IO = {
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
  let exitCode: number = ExitCode.ok;
  // A reader that goes away (`mcp-task call ... --json | head -1`) ends the command quietly, not with a stack trace.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "EPIPE") process.exit(exitCode);
    });
  }
  // Secrets (the values of ${env:} references in the servers this command reaches) never reach the terminal or a
  // pipe: every write to stdout and stderr, the printer's and Ink's alike, gives them back as their references,
  // whatever echoes them (an error, a server's stderr, a status message, a result).
  const secrets = new Map<string, string>();
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
    stream.write = ((chunk: unknown, ...rest: unknown[]) =>
      write(
        secrets.size > 0 && typeof chunk === "string" ? redactWith(chunk, secrets) : chunk,
        ...rest,
      )) as typeof stream.write;
  }
  const home = homeDir(env);
  let settings: Settings | undefined;
  const loadSettings = async () => {
    if (!settings) {
      settings = await Settings.open(home);
      // conf's when-exit has just hooked SIGINT too (see above): only our handler stays.
      for (const listener of process.listeners("SIGINT"))
        if (listener !== interruptNow) process.removeListener("SIGINT", listener);
    }
    return settings;
  };
  let tracker: Tracker;
  try {
    const onRepair = (message: string) => createPrinter(io, false).note(message);
    tracker = new Tracker(new HandleStore(home, { uid: process.getuid?.(), onRepair }), systemClock);
  } catch (error) {
    const report = describeError(error);
    createPrinter(io, argv.includes("--json")).error(report);
    return report.exitCode;
  }
  const ctx: Context = {
    io,
    clock: systemClock,
    env,
    home,
    get settings(): Settings {
      if (!settings) throw new Error("settings used before they were loaded");
      return settings;
    },
    loadSettings,
    tracker,
    interrupt: interrupt.signal,
    interruptNow,
    self: [process.execPath, process.argv[1]],
    // The MCP SDK is loaded only by commands that talk to a server (start-up of `list`, `--help`...).
    connect: async (given, name, how = {}) => {
      // Credentials only for servers the person saved (protocol/server.ts: credentialed).
      const descriptor = credentialed(given, (await loadSettings()).servers());
      for (const [secret, ref] of secretsOf(descriptor, env)) secrets.set(secret, ref);
      const broker = () => import("./broker/client.js");
      if (how.direct) return direct(descriptor, how, name);
      if (given.transport === "http" && how.resume && questionKeeperOf(how.resume) !== undefined) {
        // A saved task whose questions are handed over once (V1) is reached through the keeper of its session,
        // started on demand: it resumes the session (no new initialize), keeps its streams open and holds the
        // questions no command is there to answer.
        return (await broker()).connectBroker({
          home,
          descriptor: given,
          name: name ?? given.url,
          start: true,
          session: how.resume,
          self: ctx.self,
          clock: systemClock,
        });
      }
      if (given.transport === "http" && how.outlive) {
        // A new task: the session is opened here; where its questions are handed over once, the session's keeper
        // takes it over before the call (this connection closes without ending the session).
        const wire = await direct(descriptor, how, name);
        if (!wire.handsQuestionsOnce) return wire;
        const session = wire.resumeToken();
        await wire.close();
        return (await broker()).connectBroker({
          home,
          descriptor: given,
          name: name ?? given.url,
          start: true,
          session,
          self: ctx.self,
          clock: systemClock,
        });
      }
      if (given.transport === "stdio" && how.resume) {
        // A stdio server dies with the process that started it: a saved task is reached through the broker that
        // runs it, found by the server's configuration (an address here: nothing is started, nothing resolved).
        return (await broker()).connectBroker({
          home,
          descriptor: given,
          name: name ?? given.command,
          start: false,
          self: ctx.self,
          clock: systemClock,
        });
      }
      if (descriptor.transport === "stdio" && how.outlive) {
        // Tasks that must outlive the command go through the server's broker, started on demand.
        return (await broker()).connectBroker({
          home,
          descriptor,
          name: name ?? descriptor.command,
          start: true,
          self: ctx.self,
          clock: systemClock,
        });
      }
      return direct(descriptor, how, name);
    },
  };
  /** A connection of this process's own (no broker). */
  const direct = async (descriptor: ServerDescriptor, how: { resume?: ResumeToken }, name?: string): Promise<Wire> => {
    // A stdio server whose generation is known starts now, and boots while the SDK loads (protocol/stdio.ts).
    const prestarted =
      descriptor.transport === "stdio" && !how.resume && settings?.verdict(descriptorKey(descriptor), Date.now())
        ? new (await import("./protocol/stdio.js")).EarlyStdioTransport(descriptor, env)
        : undefined;
    // A saved HTTP server's sign-in (its token, refresh, sign-in on demand) goes with it: src/auth/session.ts.
    return (await import("./auth/session.js")).connectSignedIn(descriptor, {
      session: { home, settings: ctx.settings, io, secrets, signal: interrupt.signal, broker: "direct" in how },
      prestarted,
      env,
      name,
      requestTimeoutMs: requestTimeoutMs(env),
      resume: how.resume,
      verdicts: {
        get: (key) => ctx.settings.verdict(key, Date.now()),
        set: (key, verdict) => ctx.settings.saveVerdict(key, verdict, Date.now()),
        delete: (key) => ctx.settings.forgetVerdict(key),
      },
    });
  };
  const program = buildProgram(ctx, (code) => (exitCode = code));
  // A command still waiting when nothing is left that could wake it (a promise that can never settle: no timer,
  // socket or child left) would end the process with exit 0 and nothing said. It is a defect: said, and exit 1.
  let finished = false;
  const stalled = () => {
    if (finished) return;
    finished = true;
    const report = describeError(
      new Error("the command was left waiting with nothing more to wait on (a reply that can no longer come)"),
    );
    createPrinter(io, argv.includes("--json")).error(report);
    process.exitCode = report.exitCode;
  };
  process.once("beforeExit", stalled);
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      if (
        error.code === "commander.helpDisplayed" ||
        error.code === "commander.version" ||
        error.code === "commander.help"
      )
        return ExitCode.ok;
      // Commander has said what was wrong on stderr; a --json caller also gets the error line it expects.
      if (argv.includes("--json"))
        createPrinter(io, true).error({
          exitCode: ExitCode.usage,
          code: "usage",
          message: error.message.replace(/^error: /, ""),
          taskId: null,
        });
      return ExitCode.usage;
    }
    const report = describeError(error);
    createPrinter(io, argv.includes("--json")).error(report);
    return report.exitCode;
  } finally {
    finished = true;
    process.removeListener("beforeExit", stalled);
  }
  return exitCode;
}
