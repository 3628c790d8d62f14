// The command surface, declared in one place, and the entry point bin/mcp-task.js calls.
import { exitHoldsSettled } from "./protocol/exit-holds.js";
import { Command, CommanderError } from "commander";
import { registerAll, type AnyLeaf, type Noun } from "./commands/command.js";
import { broker } from "./commands/broker.js";
import { dashboard } from "./commands/dashboard.js";
import { serve } from "./commands/serve.js";
import { complete, completion } from "./commands/completion.js";
import { demo, demoServer } from "./commands/demo.js";
import { server } from "./commands/server/index.js";
import { tools } from "./commands/tools.js";
import { check } from "./commands/check.js";
import { login } from "./commands/auth/login.js";
import { logout } from "./commands/auth/logout.js";
import { call } from "./commands/task/call.js";
import { cancel } from "./commands/task/cancel.js";
import { wait } from "./commands/task/wait.js";
import { exportTask } from "./commands/task/export.js";
import { forget } from "./commands/task/forget.js";
import { get } from "./commands/task/get.js";
import { importTasks } from "./commands/task/import.js";
import { list } from "./commands/task/list.js";
import { prune } from "./commands/task/prune.js";
import { respond } from "./commands/task/respond.js";
import { result } from "./commands/task/result.js";
import { watch } from "./commands/task/watch.js";
import type { Context, IO } from "./context.js";
import { ExitCode, describeError } from "./errors.js";
import { createPrinter } from "./output/printer.js";
import { processContext, processIO } from "./process-context.js";
import { checkTraceFile } from "./store/named-files.js";

export const VERSION = "0.1.0";

/** Every command, in the order `--help` lists them: the `server` noun (its verbs), tools, the task verbs, the rest. */
// prettier-ignore
export const COMMANDS: ReadonlyArray<AnyLeaf | Noun> = [
  server, tools, check, login, logout,
  call, watch, result, wait, respond, get, cancel, list, forget, prune, exportTask, importTasks,
  dashboard, serve, demoServer, demo, completion, complete, broker,
];

export function buildProgram(ctx: Context, setExit: (code: number) => void): Command {
  const wantsJson = (argv: string[]) => argv.includes("--json");
  let json = false;
  const run = async (job: () => Promise<number>, options: { settings?: boolean } = {}) => {
    try {
      if (options.settings !== false) await ctx.loadSettings();
      const code = await job();
      // A followed task's change the store could not take (a full disk, a read-only home): shown, not saved.
      if (ctx.tracker.store.unsaved) throw ctx.tracker.store.unsaved;
      setExit(code);
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
    .option("--trace", "trace the wire (JSON-RPC, HTTP) on stderr; --trace=FILE: as NDJSON to FILE (or MCP_TASK_TRACE)")
    .exitOverride()
    .configureOutput({
      writeOut: (text) => ctx.io.stdout.write(text),
      writeErr: (text) => ctx.io.stderr.write(text),
      // A parse error is printed by runProgram the one way errors are printed (one line, or the JSON error line).
      outputError: () => {},
    })
    .hook("preAction", (_this, action) => {
      json = wantsJson(action.args) || Boolean(action.opts().json);
    });
  registerAll(program, COMMANDS, ctx, run);
  return program;
}

/**
 * Runs the CLI with the real process as context; resolves to the exit code once the servers it started are stopped
 * (bin/mcp-task.js exits soon after, whatever is left running).
 */
export async function main(argv: string[] = process.argv): Promise<number> {
  let exitCode: number = ExitCode.ok; // the code so far: a reader going away ends the process with it
  const io = processIO(argv, process.env);
  const code = await runGuarded(argv, io, async () => {
    const ctx = processContext(io, () => exitCode);
    return runProgram(ctx, argv, (code) => (exitCode = code));
  });
  await exitHoldsSettled();
  return code;
}

/**
 * Runs `job` (the program over the process's context); what it throws (the store cannot be opened) is printed. A
 * command still waiting when nothing is left that could wake it (a promise that can never settle: no timer, socket
 * or child left) would end the process with exit 0 and nothing said. It is a defect: said, and exit 1.
 */
async function runGuarded(argv: string[], io: IO, job: () => Promise<number>): Promise<number> {
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
    return await job();
  } catch (error) {
    return printFailure(io, argv, error);
  } finally {
    finished = true;
    process.removeListener("beforeExit", stalled);
  }
}

/**
 * Parses `argv` (node, script, args...) and runs its command over `ctx`; resolves to the exit code, every error
 * printed the one way errors are printed (`onExitCode`: told the code a command set, as soon as it is set).
 * main runs it over the real process; the tests run it in-process (test/helpers/context.ts: runInProcess).
 */
export async function runProgram(ctx: Context, given: string[], onExitCode?: (code: number) => void): Promise<number> {
  let exitCode: number = ExitCode.ok;
  const { argv, trace } = takeTrace(given);
  if (trace !== undefined) ctx.trace = trace;
  if (ctx.trace !== undefined && ctx.trace !== "-") {
    try {
      checkTraceFile(ctx.trace);
    } catch (error) {
      return printFailure(ctx.io, argv, error);
    }
  }
  const program = buildProgram(ctx, (code) => {
    exitCode = code;
    onExitCode?.(code);
  });
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
      // Commander said nothing (outputError above): one error line, text or JSON, as for every other error.
      const message = error.message.replace(/^error: /, "").replace(/\s*\n\s*/g, " ");
      createPrinter(ctx.io, argv.includes("--json")).error({
        exitCode: ExitCode.usage,
        code: "usage",
        message: `${message} (run with --help for usage)`,
        taskId: null,
      });
      return ExitCode.usage;
    }
    return printFailure(ctx.io, argv, error);
  }
  return exitCode;
}

/**
 * `--trace` and `--trace=FILE`, wherever they stand before `--`, taken out of argv before commander parses it: an
 * option with an optional value would take the next word (`mcp-task --trace call x` would trace to a file "call").
 */
export function takeTrace(argv: string[]): { argv: string[]; trace?: string } {
  const end = argv.indexOf("--");
  let trace: string | undefined;
  const kept = argv.filter((arg, i) => {
    if (end >= 0 && i > end) return true;
    if (arg === "--trace") trace = "-";
    else if (arg.startsWith("--trace=")) trace = arg.slice("--trace=".length) || "-";
    else return true;
    return false;
  });
  return { argv: kept, trace };
}

/** Prints what a command (or the making of its context) threw, the one way errors are printed; returns its code. */
export function printFailure(io: IO, argv: string[], error: unknown): number {
  const report = describeError(error);
  createPrinter(io, argv.includes("--json")).error(report);
  return report.exitCode;
}
