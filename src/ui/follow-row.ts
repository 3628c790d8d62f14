// Following one task of the dashboard until it ends, told to its row: the same follow loop as the commands'
// (tasks/run.ts), with the same settings, over the connection the model's ServerLinks keep for its server; and the
// row's change as it is followed.
import type { Context } from "../context.js";
import { describeError } from "../errors.js";
import { deliveryNote, heldElsewhereNote } from "../tasks/input.js";
import type { ServerLinks } from "../tasks/reconnect.js";
import { followSettings, followTask } from "../tasks/run.js";
import type { TrackedTask } from "../tasks/tracker.js";
import type { Handle } from "../model.js";
import { isTerminal, type QuestionHolder, type Snapshot } from "../protocol/wire.js";
import { summarize } from "../store/handle-file.js";
import type { Connection, TaskRow } from "./state.js";

export interface RowFollow {
  ctx: Context;
  links: ServerLinks;
  tracked: TrackedTask;
  /** Stops following (the task goes on). */
  signal: AbortSignal;
  /** Tells the row its following state (its summary is the tracked handle's), and who holds its question elsewhere. */
  setRow(connection: Connection, error?: string, held?: QuestionHolder): void;
  notify(text: string): void;
}

/** Follows the task to its end; a failure is told to the row and the notice, unless following was stopped. */
export async function followRow({ ctx, links, tracked, signal, setRow, notify }: RowFollow): Promise<void> {
  const { tool, taskId } = tracked.handle;
  const label = `${tool} (${taskId.slice(0, 8)})`;
  setRow("connecting");
  try {
    const { engine } = await links.linkFor(tracked);
    setRow("following");
    await followTask(engine, tracked, undefined, {
      clock: ctx.clock,
      signal,
      spread: true,
      settings: followSettings(ctx),
      hooks: {
        // Its question, where another process holds it (InputRequest.heldBy): on the row while it lasts, and said
        // once in the notice (input).
        snapshot: (snapshot) => setRow("following", undefined, heldBy(snapshot)),
        input: (_taskId, requests) => {
          const holder = requests.find((request) => request.heldBy)?.heldBy;
          if (holder) notify(`${label}: ${heldElsewhereNote(taskId, holder)}`);
        },
        // The server unreachable for a while: the row says so until a read succeeds again.
        retry: (error) => setRow("reconnecting", error.message),
        // What the server made of the answer: delivered (the task's next state shows what it did with it).
        delivered: () => notify(`answer delivered to ${label}`),
        // The connection dropped with an answer on its way: what the next read says became of it.
        delivery: (event) => notify(`${label}: ${deliveryNote(event)}`),
      },
    });
    setRow("idle");
  } catch (error) {
    if (signal.aborted) return;
    setRow("error", describeError(error).message);
    notify(`${label}: ${describeError(error).message}`);
  }
}

/** Who holds the question of a task that waits for input, where another process does (InputRequest.heldBy). */
function heldBy(snapshot: Snapshot): QuestionHolder | undefined {
  if (snapshot.status !== "input_required" || snapshot.inputRequests.length === 0) return undefined;
  return snapshot.inputRequests.find((request) => request.heldBy)?.heldBy;
}

/** How a task has ended, by its handle (its outcome, gone, or a terminal status seen); undefined while it runs. */
export function endedAs(handle: Handle): string | undefined {
  if (handle.outcome) return handle.outcome.status;
  if (handle.gone) return "gone";
  return isTerminal(handle.last.status) ? handle.last.status : undefined;
}

/**
 * The change of a followed task's row: its summary from the tracked handle, its following state. Every field written
 * out (the type leaves none out), not `{ ...row, ... }`: a spread followed by keys the row lacks cost V8 several times
 * the garbage, and this runs for each followed task that changed, at every frame.
 */
export const followedRow =
  (tracked: TrackedTask, connection: Connection, error?: string, held?: QuestionHolder) =>
  (row: TaskRow): TaskRow => {
    const next: { [K in keyof Required<TaskRow>]: TaskRow[K] } = {
      stem: row.stem,
      summary: summarize(row.stem, tracked.handle, row.summary.mtime),
      handle: tracked.handle,
      unreadable: undefined,
      connection,
      error,
      progress: row.progress,
      held,
    };
    return next;
  };
