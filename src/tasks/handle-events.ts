// What a wire says that changes a task's handle outside its snapshots: the task reached through a new session
// (saveMoves), or no longer known to the server (markingGone).
import { TaskNotFoundError } from "../errors.js";
import type { Wire } from "../protocol/wire.js";
import type { TrackedTask } from "./tracker.js";

/**
 * Keeps handles reachable when their wire reaches their task through a new session (Wire.onTaskMoved): `find` gives
 * the tracked task of an id, if this process tracks it; `note` is told what happened, in a line for the user. A
 * handle that cannot be written keeps the old session; a later command finds the task again the same way.
 */
export function saveMoves(
  wire: Wire,
  find: (taskId: string) => TrackedTask | undefined,
  note?: (text: string) => void,
): void {
  wire.onTaskMoved = async (taskId, token) => {
    const tracked = find(taskId);
    if (!tracked) return;
    note?.(
      `the server no longer knew the session of task ${taskId} (it restarted?), but knows the task in a new session: the handle now uses that one`,
    );
    await tracked.moved(token).catch(() => {});
  };
}

/** Runs `work`; if the server says the task is unknown, records that on the handle before rethrowing. */
export async function markingGone<T>(tracked: TrackedTask, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof TaskNotFoundError) await tracked.markGone(error.message, true).catch(() => {});
    throw error;
  }
}
