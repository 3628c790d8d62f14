// Following one task to its end for the plain (non-Ink) commands: print each changed snapshot, answer input
// through the engine, and return the final outcome.
import type { Clock } from "../context.js";
import { ExitCode } from "../errors.js";
import type { Printer } from "../output/printer.js";
import type { Snapshot } from "../protocol/wire.js";
import type { FinalOutcome, TaskEngine } from "./engine.js";

export async function followTask(
  engine: TaskEngine,
  first: Snapshot,
  options: { tool?: string; printer: Printer; clock: Clock; signal?: AbortSignal; answered?: Set<string>; floorMs?: number },
): Promise<FinalOutcome> {
  let last = first;
  options.printer.status(first, new Date(options.clock.now()));
  if (first.status === "completed" || first.status === "failed" || first.status === "cancelled") {
    // A task born terminal: read it once for its result.
    last = await engine.wire.getTask(first.taskId, options.signal);
    const outcome = await engine.final(last, options.tool);
    options.printer.result(outcome);
    return outcome;
  }
  for await (const snapshot of engine.watch(first.taskId, {
    signal: options.signal,
    answered: options.answered,
    answerInput: true,
    floorMs: options.floorMs,
    onInput: (taskId, requests) => requests.forEach((request) => options.printer.input(taskId, request)),
  })) {
    if (snapshot.status !== last.status || snapshot.statusMessage !== last.statusMessage) options.printer.status(snapshot, new Date(options.clock.now()));
    last = snapshot;
  }
  const outcome = await engine.final(last, options.tool);
  options.printer.result(outcome);
  return outcome;
}

/** The exit code of a final outcome (../shared/CLI.md). */
export function exitCodeOf(outcome: FinalOutcome): number {
  if (outcome.status === "cancelled") return ExitCode.cancelled;
  if (outcome.status === "failed" || outcome.result?.isError) return ExitCode.failed;
  return ExitCode.ok;
}
