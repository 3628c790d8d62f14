// `mcp-task watch <id>` and `mcp-task result <id>`: reattach to a saved task from any later process and follow
// it to its end; `result` prints only the result.
import type { Command } from "commander";
import type { Context } from "../context.js";
import type { Run } from "./run.js";
import { StillRunningError } from "../errors.js";
import { createPrinter, type Printer } from "../output/printer.js";
import { isTerminal } from "../protocol/wire.js";
import { exitCodeOf, followTask, printerHooks } from "../tasks/run.js";
import {
  answerFlags,
  inputProvider,
  parseDuration,
  PICK_SERVER,
  presentation,
  reconnect,
  waitSignal,
  withResumeHint,
  followSettings,
  type TaskRef,
} from "./common.js";
import { shellWord } from "../sanitize.js";

interface FollowCommandOptions extends TaskRef {
  input?: Record<string, unknown>;
  decline: boolean;
  timeoutMs?: number;
  json: boolean;
  /** `result`: no status lines; with noWait, do not wait for a running task. */
  resultOnly: boolean;
  noWait: boolean;
}

export function registerWatch(program: Command, ctx: Context, run: Run): void {
  program
    .command("watch")
    .summary("follow a saved task to its end, answering its input, and print its result")
    .argument("<id>", "task id or unique prefix (at least 4 characters)")
    .option(...PICK_SERVER)
    .option("--input <json|@file|->", "answer input requests with this object")
    .option("--decline", "decline input requests")
    .option("--timeout <duration>", "stop waiting after this long (the task keeps running); exit 7")
    .option("--json", "NDJSON events on stdout")
    .action((id: string, flags: Record<string, unknown>) =>
      run(async () =>
        runFollow(
          {
            id,
            server: flags.server as string | undefined,
            ...(await answerFlags(flags, ctx)),
            ...common(flags),
            resultOnly: false,
            noWait: false,
          },
          ctx,
        ),
      ),
    );
  program
    .command("result")
    .summary("print a saved task's result, waiting for it unless --no-wait")
    .argument("<id>", "task id or unique prefix (at least 4 characters)")
    .option(...PICK_SERVER)
    .option("--no-wait", "exit 7 at once if the task is still running")
    .option("--timeout <duration>", "stop waiting after this long (the task keeps running); exit 7")
    .option("--json", "NDJSON events on stdout")
    .action((id: string, flags: Record<string, unknown>) =>
      run(async () =>
        runFollow(
          {
            id,
            server: flags.server as string | undefined,
            decline: false,
            ...common(flags),
            resultOnly: true,
            noWait: flags.wait === false,
          },
          ctx,
        ),
      ),
    );
}

function common(flags: Record<string, unknown>) {
  return {
    timeoutMs: flags.timeout !== undefined ? parseDuration(flags.timeout as string, "--timeout") : undefined,
    json: Boolean(flags.json),
  };
}

export async function runFollow(options: FollowCommandOptions, ctx: Context): Promise<number> {
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
  if (handle.outcome) {
    // Known already: no need to reach the server.
    const printer = createPrinter(ctx.io, options.json);
    if (!options.resultOnly) info(printer);
    printer.result(handle.outcome);
    return exitCodeOf(handle.outcome);
  }
  // `result` shows no live view: it prints the result only.
  const shown = options.resultOnly
    ? {
        printer: createPrinter(ctx.io, options.json),
        provider: inputProvider(ctx, options.input, options.decline),
        close: () => {},
      }
    : await presentation(ctx, options);
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
    if (!options.resultOnly) info(printer);
    let first;
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
