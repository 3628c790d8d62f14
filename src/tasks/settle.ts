// Writing a task's outcome, in one place: the follow loop (run.ts), the broker's recorder (recorder.ts), `get` and
// `cancel`, and `list --status`'s reads (refresh.ts) all settle a task they saw end through `settle`.
import type { FinalOutcome } from "../model.js";
import { isTerminal, type Snapshot, type ToolInfo } from "../protocol/wire.js";
import { finalOutcome } from "./engine.js";
import type { TrackedTask } from "./tracker.js";

/** What settle reads through: the task once more, and its tool (for the outputSchema check). A TaskEngine is one. */
export interface OutcomeSource {
  readonly wire: { getTask(taskId: string, signal?: AbortSignal): Promise<Snapshot> };
  tool(name: string): Promise<ToolInfo | undefined>;
}

/**
 * Settles a task seen to end (`ended`): a terminal snapshot that came without its payload (a push, a task born
 * terminal, a cancel's reply) is read once more; the final outcome (a completed result checked against the tool's
 * outputSchema) is written on the handle, unless the handle has one already, and returned with the snapshot it came
 * from.
 */
export async function settle(
  tracked: TrackedTask,
  ended: Snapshot,
  source: OutcomeSource,
  signal?: AbortSignal,
): Promise<{ outcome: FinalOutcome; last: Snapshot }> {
  const bare = isTerminal(ended.status) && ended.status !== "cancelled" && !ended.result && !ended.error;
  const full = bare ? await source.wire.getTask(tracked.taskId, signal) : ended;
  const outcome = await finalOutcome(full, await source.tool(tracked.handle.tool).catch(() => undefined));
  if (!tracked.handle.outcome) await tracked.finish(outcome);
  return { outcome, last: full };
}
