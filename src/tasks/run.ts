// Following one saved task for the plain (non-Ink) commands: print each change, answer input through the
// engine, keep the handle in step, and return the final outcome.
import type { Clock } from "../context.js";
import { ExitCode } from "../errors.js";
import type { Printer } from "../output/printer.js";
import { isTerminal, type Snapshot } from "../protocol/wire.js";
import type { FinalOutcome, TaskEngine } from "./engine.js";
import { deliveryNote } from "./input.js";
import { markingGone, type TrackedTask } from "./tracker.js";

export interface FollowOptions {
  printer: Printer;
  clock: Clock;
  signal?: AbortSignal;
  floorMs?: number;
  /** How long the server may stay unreachable before the command gives up (exit 4, handle intact). */
  giveUpMs?: number;
  /** Use push notifications (default true). */
  push?: boolean;
  /** Print status lines (`result` prints only the result). */
  statusLines?: boolean;
  /** Print the final result (default true). */
  printResult?: boolean;
  /** Stop early, before the task ends, when this says so (used by `respond`). */
  until?: (snapshot: Snapshot, state: { delivered: number }) => boolean;
}

/** Follows `tracked` from `first` (or a fresh read) to its end, or until `until` says stop. */
export async function followTask(engine: TaskEngine, tracked: TrackedTask, first: Snapshot | undefined, options: FollowOptions): Promise<{ outcome?: FinalOutcome; last: Snapshot }> {
  try {
    return await follow(engine, tracked, first, options);
  } finally {
    // Whatever happens (an error, Ctrl-C), what was seen is written.
    await tracked.flush().catch(() => {});
  }
}

function follow(engine: TaskEngine, tracked: TrackedTask, first: Snapshot | undefined, options: FollowOptions): Promise<{ outcome?: FinalOutcome; last: Snapshot }> {
  return markingGone(tracked, async () => {
    const printStatus = (snapshot: Snapshot) => {
      if (options.statusLines !== false) options.printer.status(snapshot, new Date(options.clock.now()));
    };
    const answered = new Set(tracked.handle.answered);
    let last = first;
    if (last) printStatus(last);
    const state = { delivered: 0 };
    if (!last || !isTerminal(last.status)) {
      for await (const snapshot of engine.watch(tracked.taskId, {
        signal: options.signal,
        answered,
        answerInput: true,
        floorMs: options.floorMs,
        giveUpMs: options.giveUpMs,
        push: options.push,
        initial: last,
        onRetry: (error, retryInMs) => options.printer.note(`reconnecting: ${error.message}; next try in ${Math.round(retryInMs / 100) / 10} s`),
        onAnswered: (keys) => tracked.answered(keys),
        onDelivered: () => void state.delivered++,
        onInput: (taskId, requests) => requests.forEach((request) => options.printer.input(taskId, request)),
        onDelivery: (event) => options.printer.note(deliveryNote(event)),
      })) {
        if (!last || snapshot.status !== last.status || snapshot.statusMessage !== last.statusMessage) printStatus(snapshot);
        last = snapshot;
        await tracked.observe(snapshot);
        if (options.until?.(snapshot, state)) return { last };
      }
    }
    if (last && isTerminal(last.status) && last.status !== "cancelled" && !last.result && !last.error) {
      // A snapshot that ended without its payload (a push, or a task born terminal): read it once.
      last = await engine.wire.getTask(tracked.taskId, options.signal);
    }
    const outcome = await engine.final(last!, tracked.handle.tool);
    await tracked.finish(outcome);
    if (options.printResult !== false) options.printer.result(outcome);
    return { outcome, last: last! };
  });
}

/** The exit code of a final outcome (../shared/CLI.md). */
export function exitCodeOf(outcome: FinalOutcome): number {
  if (outcome.status === "cancelled") return ExitCode.cancelled;
  if (outcome.status === "failed" || outcome.result?.isError) return ExitCode.failed;
  return ExitCode.ok;
}
