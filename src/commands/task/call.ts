// `mcp-task call <tool> [key=value]...`: start a tool call (as a task where the server allows), save its handle
// at once, and follow it to its end (or hand back the id with --detach).
import { Option, type Command } from "commander";
import type { Context } from "../../context.js";
import { InputRequiredError, McpTaskError } from "../../errors.js";
import type { Leaf } from "../command.js";
import { createPrinter, type Printer } from "../../output/printer.js";
import type { Snapshot, Wire } from "../../protocol/wire.js";
import { sanitizeLine } from "../../sanitize.js";
import { parseDuration } from "../../duration.js";
import { TaskEngine } from "../../tasks/engine.js";
import { exitCodeOf, followSettings, followTask, printerHooks } from "../../tasks/run.js";
import { saveMoves } from "../../tasks/handle-events.js";
import { planStart, startTask } from "../../tasks/start.js";
import { warmSchemaChecks } from "../../tasks/schema.js";
import { noAnswers, withdrawnNote } from "../../tasks/input.js";
import { waitSignal, withResumeHint } from "../../tasks/waiting.js";
import { jsonObjectArg, pairTexts, parsePairs, readJsonArg, type JsonObjectArg } from "../args.js";
import { resolveServer, type ResolvedServer } from "../resolve-server.js";
import { inputProvider, presentation, readAnswers, servesSampling, showLogs, type Answers } from "../presentation.js";
import type { LogLevel } from "../../protocol/logging.js";
import {
  answerFlags,
  answerOptions,
  JSON_EVENTS,
  jsonFlag,
  jsonOption,
  logLevelFlag,
  logLevelOption,
  serverFlags,
  serverOptions,
  timeoutFlag,
  timeoutOption,
  withOptions,
  type AnswerFlags,
  type Flags,
  type ServerFlags,
} from "../options.js";

export interface CallOptions extends ServerFlags, AnswerFlags {
  tool: string;
  /** `--args`'s object (read when the call runs, where it names a file or stdin); key=value pairs override it. */
  argsObject?: JsonObjectArg;
  pairs: Record<string, unknown>;
  /** The pairs' values as typed, read as the tool's inputSchema declares once it is known. */
  typed: Record<string, string>;
  ttlMs?: number;
  task: "auto" | "never";
  detach: boolean;
  timeoutMs?: number;
  json: boolean;
  logLevel?: LogLevel;
}

export const call: Leaf<CallOptions, [string, string[]]> = {
  examples: [
    'mcp-task call simulate-research-query topic=python ambiguous=true --input \'{"interpretation":"snake"}\'',
    "mcp-task call export_ledger rows=1000 -s demo --detach",
  ],
  declare: (parent: Command) =>
    withOptions(
      parent
        .command("call")
        .summary("call a tool, as a task where the server allows, and wait for its result")
        .description("Call a tool, as a task where the server allows, and wait for its result.")
        .argument("<tool>", "tool name")
        .argument("[args...]", "arguments as key=value (values parsed as JSON when they parse)"),
      ...serverOptions("run a stdio server for this call"),
      new Option("--args <json|@file|->", "arguments as a JSON object (key=value pairs override)"),
      new Option("--detach", "print the task id and return at once; follow it later with watch"),
      new Option("--ttl <duration>", "ask the server to keep the task this long (10m, 2h; a bare number: ms)"),
      new Option("--no-task", "make a plain call, never a task"),
      ...answerOptions(),
      timeoutOption(),
      logLevelOption(),
      jsonOption(JSON_EVENTS),
    ),
  parse: ([tool, pairs], flags: Flags): CallOptions => {
    const answers = answerFlags(flags);
    return {
      tool,
      ...serverFlags(flags),
      argsObject: flags.args !== undefined ? jsonObjectArg(flags.args as string, "--args") : undefined,
      pairs: parsePairs(pairs),
      typed: pairTexts(pairs),
      ttlMs: flags.ttl !== undefined ? parseDuration(flags.ttl as string, "--ttl", "ms") : undefined,
      task: flags.task === false ? "never" : "auto",
      detach: Boolean(flags.detach),
      ...answers,
      timeoutMs: timeoutFlag(flags),
      json: jsonFlag(flags),
      logLevel: logLevelFlag(flags),
    };
  },
  run: (options, ctx) => runCall(options, ctx),
};

/** How the call is shown and answered; --detach never answers a task's question: it stays for a later command. */
async function shownFor(options: CallOptions, answers: Answers, ctx: Context): ReturnType<typeof presentation> {
  if (!options.detach) return presentation(ctx, { ...answers, json: options.json });
  const provider = noAnswers(inputProvider(ctx, answers));
  return { printer: createPrinter(ctx.io, options.json), provider, close: () => {} };
}

/**
 * --detach on a call the server answered at once (no task): stdout, where a script takes the task id, stays empty
 * (a result there would be taken for an id that no later command knows); stderr says so and shows the result. The
 * exit code is the result's, as without --detach. (With --json: the `result` event, with no `task` event before it.)
 */
function answeredAtOnce(ctx: Context, tool: string): Printer {
  ctx.io.stderr.write(
    `mcp-task: ${sanitizeLine(tool)} was answered at once, not as a task: there is no task id to print (stdout is empty), nothing to follow; its result:\n`,
  );
  return createPrinter({ ...ctx.io, stdout: ctx.io.stderr, stdoutIsTTY: ctx.io.stderrIsTTY }, false);
}

/** The new task announced (the `task` event, the status line); `--detach` also prints its id, as the handle says. */
function announce(printer: Printer, server: ResolvedServer, wire: Wire, tool: string, first: Snapshot): void {
  printer.task({
    taskId: first.taskId,
    server: server.name,
    tool,
    generation: wire.capabilities.generation,
    status: first.status,
    ttlMs: first.ttlMs,
    pollIntervalMs: first.pollIntervalMs,
  });
}

/** A task no later command can reach (confinedTasks, wire.ts): its error's hint names no command that cannot work. */
function confined(error: unknown, wire: Wire, taskId: string | null): unknown {
  if (!taskId || !wire.capabilities.confinedTasks || !(error instanceof McpTaskError)) return error;
  error.hint = `no later command can reach this task (${wire.capabilities.confinedTasks}): make the call again${
    error instanceof InputRequiredError ? ", with its answer (--input '{...}')" : ""
  }`;
  return error;
}

export async function runCall(options: CallOptions, ctx: Context): Promise<number> {
  const answers = await readAnswers(options, ctx);
  const args = {
    ...(options.argsObject ? await readJsonArg(options.argsObject, "--args", ctx) : {}),
    ...options.pairs,
  };
  const server = await resolveServer(options, ctx);
  const { tool, task, ttlMs, detach, typed } = options;
  const plan = planStart(await ctx.loadSettings(), { server, tool, args, typed, task, ttlMs, detach });
  const wire = await ctx.connect(server.descriptor, server.name, {
    outlive: plan.mayBeTask,
    sampling: servesSampling(ctx, answers),
    meanwhile: warmSchemaChecks, // the arguments are checked here on a direct connection
  });
  const wait = waitSignal(ctx, options.timeoutMs);
  let taskId: string | null = null;
  const { printer, provider, close } = await shownFor(options, answers, ctx);
  wire.on("questionWithdrawn", (_taskId, request) => printer.note(withdrawnNote(request)));
  try {
    await showLogs(ctx, wire, printer, options, () => taskId);
    const engine = new TaskEngine(wire, ctx.clock, provider, ctx.random);
    const started = await startTask(engine, plan, ctx, {
      signal: wait.signal,
      note: (text) => printer.note(text),
      // Shown as it comes (kept on the handle once there is one: a later watch shows the last).
      progress: (progress) => {
        if (!options.detach) printer.progress(taskId, progress, new Date(ctx.clock.now()));
      },
      created: (first) => (taskId = first.taskId),
      // The store cannot take the new task's handle (a full disk, a read-only home): its id is printed as --detach
      // prints it (and in the `task` event), before the error that says where its handle went.
      unsaved: (first) => {
        announce(printer, server, wire, options.tool, first);
        if (!options.json) ctx.io.stdout.write(`${sanitizeLine(first.taskId)}\n`);
      },
    });
    // A plain result that came while the reply was waited for is the call's end: shown, as it would be anyway.
    if (started.kind === "result") {
      if (options.detach && !options.json) answeredAtOnce(ctx, options.tool).result(started.outcome);
      else printer.result(started.outcome);
      return exitCodeOf(started.outcome);
    }
    const { tracked, first } = started;
    saveMoves(
      wire,
      (id) => (id === tracked.taskId ? tracked : undefined),
      (text) => printer.note(text),
    );
    announce(printer, server, wire, options.tool, first);
    // Stopped while the reply was waited for: the task is saved now, and the error's hint resumes it.
    if (wait.signal.aborted) throw wait.signal.reason;
    if (options.detach) {
      if (!options.json) ctx.io.stdout.write(`${sanitizeLine(first.taskId)}\n`); // as shown everywhere; `watch` finds it by this too
      return 0;
    }
    const { outcome } = await followTask(engine, tracked, first, {
      clock: ctx.clock,
      signal: wait.signal,
      settings: followSettings(ctx),
      hooks: printerHooks(printer, ctx.clock),
    });
    return exitCodeOf(outcome!);
  } catch (error) {
    throw confined(withResumeHint(error, taskId), wire, taskId);
  } finally {
    close();
    wait.dispose();
    await wire.close();
  }
}
