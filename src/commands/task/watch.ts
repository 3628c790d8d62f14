// `mcp-task watch <id>`: reattach to a saved task from any later process and follow it to its end, answering its
// input. `runFollow` also serves `result` (./result.ts), which prints only the result.
import type { Command } from "commander";
import type { Context } from "../../context.js";
import type { Leaf } from "../command.js";
import { StillRunningError } from "../../errors.js";
import { createPrinter, type Printer } from "../../output/printer.js";
import { isTerminal } from "../../protocol/wire.js";
import { exitCodeOf, followSettings, followTask, printerHooks } from "../../tasks/run.js";
import { readUnlessLost } from "../../tasks/away.js";
import { reconnect } from "../../tasks/reconnect.js";
import { waitSignal, withResumeHint } from "../../tasks/waiting.js";
import { shellWord } from "../../sanitize.js";
import { inputProvider, presentation, readAnswers, showLogs } from "../presentation.js";
import type { LogLevel } from "../../protocol/logging.js";
import {
  answerFlags,
  answerOptions,
  JSON_EVENTS,
  jsonFlag,
  jsonOption,
  logLevelFlag,
  logLevelOption,
  pickServer,
  timeoutFlag,
  timeoutOption,
  withOptions,
  type AnswerFlags,
  taskIdArgument,
  taskRef,
  type TaskRef,
} from "../options.js";

export interface FollowCommandOptions extends TaskRef, AnswerFlags {
  timeoutMs?: number;
  json: boolean;
  /** `result`: no status lines; with noWait, do not wait for a running task. */
  resultOnly: boolean;
  noWait: boolean;
  /** The server's log messages shown from this level up (and asked of the server): see showLogs. */
  logLevel?: LogLevel;
}

export const watch: Leaf<FollowCommandOptions, [string]> = {
  examples: ["mcp-task watch 5348014916be", "mcp-task watch 5348014916be --input @answer.json --timeout 10m"],
  declare: (parent: Command) =>
    withOptions(
      parent
        .command("watch")
        .summary("follow a saved task to its end, answering its input, and print its result")
        .addArgument(taskIdArgument()),
      pickServer(),
      ...answerOptions(),
      timeoutOption(),
      logLevelOption(),
      jsonOption(JSON_EVENTS),
    ),
  parse: ([id], flags) => ({
    ...taskRef(id, flags),
    ...answerFlags(flags),
    timeoutMs: timeoutFlag(flags),
    json: jsonFlag(flags),
    resultOnly: false,
    noWait: false,
    logLevel: logLevelFlag(flags),
  }),
  run: (options, ctx) => runFollow(options, ctx),
};

export async function runFollow(options: FollowCommandOptions, ctx: Context): Promise<number> {
  const answers = await readAnswers(options, ctx);
  const tracked = await ctx.tracker.open(options.id, options.server);
  const handle = tracked.handle;
  const info = (printer: Printer) =>
    printer.task(
      {
        taskId: handle.taskId,
        server: handle.server.name,
        tool: handle.tool,
        generation: handle.resume.generation,
        status: handle.last.status,
        ttlMs: handle.ttlMs,
        pollIntervalMs: handle.pollIntervalMs,
      },
      true,
    );
  // The last progress the server reported (to whichever process was following then: a command, or the broker).
  const lastProgress = (printer: Printer) => {
    const saved = handle.progress;
    if (!options.resultOnly && saved)
      printer.progress(handle.taskId, saved, new Date(Date.parse(saved.at) || ctx.clock.now()));
  };
  if (handle.outcome) {
    // Known already: no need to reach the server.
    const printer = createPrinter(ctx.io, options.json);
    if (!options.resultOnly) info(printer);
    lastProgress(printer);
    printer.result(handle.outcome);
    return exitCodeOf(handle.outcome);
  }
  // `result` shows no live view: it prints the result only.
  const shown = options.resultOnly
    ? {
        printer: createPrinter(ctx.io, options.json),
        provider: inputProvider(ctx, answers),
        close: () => {},
      }
    : await presentation(ctx, { ...answers, json: options.json });
  const { printer } = shown;
  // The task opened above is the one followed: opening it again by its prefix would search the store twice.
  const { wire, engine } = await reconnect(tracked, ctx, shown.provider, (text) => printer.note(text)).catch(
    (error: unknown) => {
      shown.close();
      throw error;
    },
  );
  const wait = waitSignal(ctx, options.timeoutMs);
  try {
    if (!options.resultOnly) await showLogs(ctx, wire, printer, options, () => handle.taskId);
    if (!options.resultOnly) info(printer);
    lastProgress(printer);
    // A V1 question this home cannot be given (its keeper stopped, the task imported while it waited): said now.
    let first = await readUnlessLost(handle, wire, ctx.clock, wait.signal);
    if (options.noWait) {
      first = await wire.getTask(handle.taskId, wait.signal);
      await tracked.observe(first);
      await tracked.flush(); // written now: this command may end here
      if (!isTerminal(first.status))
        throw new StillRunningError(
          `task ${handle.taskId} is still ${first.status}`,
          `wait for it with: mcp-task result ${shellWord(handle.taskId)}`,
          handle.taskId,
        );
    }
    const { outcome } = await followTask(engine, tracked, first, {
      clock: ctx.clock,
      signal: wait.signal,
      settings: followSettings(ctx),
      hooks: printerHooks(printer, ctx.clock, { statusLines: !options.resultOnly }),
    });
    return exitCodeOf(outcome!);
  } catch (error) {
    throw withResumeHint(error, handle.taskId);
  } finally {
    shown.close();
    wait.dispose();
    await wire.close();
  }
}
