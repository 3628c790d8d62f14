// `mcp-task wait <id>...`: wait for several saved tasks together (a CI fan-out), following each at its server's pace
// over one connection per server, answering no question. It ends when every task has ended (`--any`: when the
// first has), with one line per task and the exit code of the first task, in the order given, that did not
// complete (0 when all did). A task that asks for input is exit 6 at once (no prompt ever blocks a pipeline).
import { Argument, Option, type Command } from "commander";
import type { Context } from "../../context.js";
import { describeError, ExitCode, StillRunningError, UsageError } from "../../errors.js";
import type { FinalOutcome } from "../../model.js";
import { createPrinter, type Printer } from "../../output/printer.js";
import { sanitizeLine, shellWords } from "../../sanitize.js";
import { preparedAnswers } from "../../tasks/input.js";
import { ServerLinks } from "../../tasks/reconnect.js";
import { exitCodeOf, followSettings, followTask } from "../../tasks/run.js";
import type { TrackedTask } from "../../tasks/tracker.js";
import { waitSignal } from "../../tasks/waiting.js";
import type { Leaf } from "../command.js";
import {
  JSON_EVENTS,
  jsonFlag,
  jsonOption,
  pickServer,
  timeoutFlag,
  timeoutOption,
  withOptions,
  type Flags,
} from "../options.js";

export interface WaitOptions {
  ids: string[];
  server?: string;
  any: boolean;
  timeoutMs?: number;
  json: boolean;
}

export const wait: Leaf<WaitOptions, [string[]]> = {
  examples: ["mcp-task wait 5348014916be 9a1f03c2 --any --timeout 30m"],
  declare: (parent: Command) =>
    withOptions(
      parent
        .command("wait")
        .summary("wait for several saved tasks to end; exit with the first one's code that did not complete")
        .addArgument(new Argument("<id...>", "task ids or unique prefixes")),
      pickServer(),
      new Option("--all", "end when every task has ended (the default)"),
      new Option("--any", "end as soon as one task has ended"),
      timeoutOption(),
      jsonOption(JSON_EVENTS),
    ),
  parse: ([ids], flags: Flags) => {
    if (flags.all && flags.any) throw new UsageError("give --all or --any, not both");
    return {
      ids,
      server: flags.server as string | undefined,
      any: Boolean(flags.any),
      timeoutMs: timeoutFlag(flags),
      json: jsonFlag(flags),
    };
  },
  run: (options, ctx) => runWait(options, ctx),
};

/** How one task's wait ended: its outcome, or the error that stopped it (the handle stays saved). */
type Ended = { tracked: TrackedTask; code: number; outcome?: FinalOutcome; error?: unknown };

export async function runWait(options: WaitOptions, ctx: Context): Promise<number> {
  const tasks: TrackedTask[] = [];
  for (const id of new Set(options.ids)) tasks.push(await ctx.tracker.open(id, options.server));
  const printer = createPrinter(ctx.io, options.json);
  const links = new ServerLinks(ctx, preparedAnswers({}), (text) => printer.note(text));
  const wait = waitSignal(ctx, options.timeoutMs);
  const stopOthers = new AbortController();
  const signal = AbortSignal.any([wait.signal, stopOthers.signal]);
  const ended = new Map<TrackedTask, Ended>();
  try {
    await Promise.all(
      tasks.map(async (tracked) => {
        const result = await waitOne(tracked, links, ctx, signal);
        // Stopped waiting (Ctrl-C, --timeout, or --any's first task ended): this one keeps running.
        if (!result.outcome && signal.aborted) return;
        ended.set(tracked, result);
        report(printer, result, options.json);
        if (options.any) stopOthers.abort();
      }),
    );
  } finally {
    wait.dispose();
    await links.close();
  }
  return summarize(tasks, ended, options, printer, wait.signal.reason);
}

async function waitOne(tracked: TrackedTask, links: ServerLinks, ctx: Context, signal: AbortSignal): Promise<Ended> {
  if (tracked.handle.outcome)
    return { tracked, code: exitCodeOf(tracked.handle.outcome), outcome: tracked.handle.outcome };
  try {
    const { engine } = await links.linkFor(tracked);
    const { outcome } = await followTask(engine, tracked, undefined, {
      clock: ctx.clock,
      signal,
      settings: followSettings(ctx),
      hooks: {},
    });
    return { tracked, code: exitCodeOf(outcome!), outcome };
  } catch (error) {
    return { tracked, code: describeError(error).exitCode, error };
  }
}

/** One line per ended task: its outcome (JSON: the result event), or why the wait for it stopped. */
function report(printer: Printer, ended: Ended, json: boolean): void {
  const { tracked, outcome, error } = ended;
  const name = `task ${tracked.taskId} (${sanitizeLine(tracked.handle.tool)})`;
  if (outcome && json) return printer.result(outcome);
  if (outcome) {
    const why = outcome.status === "failed" ? `: ${sanitizeLine(outcome.error?.message ?? "no error given")}` : "";
    return printer.note(`${name} ${outcome.result?.isError ? "completed with a tool error" : outcome.status}${why}`);
  }
  printer.error({ ...describeError(error), taskId: tracked.taskId });
}

function summarize(
  tasks: TrackedTask[],
  ended: Map<TrackedTask, Ended>,
  options: WaitOptions,
  printer: Printer,
  stopped: unknown,
): number {
  const running = tasks.filter((task) => !ended.has(task));
  // Ctrl-C or --timeout (with --any: before any task ended): the tasks not ended keep running; say how to wait for
  // them again. (With --any, once one task has ended the others were only stopped being waited for.)
  if (running.length > 0 && (!options.any || ended.size === 0)) {
    const ids = `${options.any ? "--any " : ""}${shellWords(running.map((task) => task.taskId))}`;
    const report = describeError(stopped ?? new StillRunningError("stopped waiting"));
    printer.error({
      ...report,
      message: `${report.message}; ${running.length} task(s) keep running`,
      hint: `wait for them again with: mcp-task wait ${ids}`,
      taskId: null,
    });
    return report.exitCode;
  }
  const codes = tasks.map((task) => ended.get(task)?.code).filter((code): code is number => code !== undefined);
  return codes.find((code) => code !== ExitCode.ok) ?? ExitCode.ok;
}
