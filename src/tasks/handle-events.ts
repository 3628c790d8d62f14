// What a wire says that changes a task's handle outside its snapshots: the task reached through a new session
// (saveMoves), or no longer known to the server (markingGone).
import { InterruptedError, McpTaskError, StillRunningError, TaskNotFoundError } from "../errors.js";
import type { Wire } from "../protocol/wire.js";
import type { TrackedTask } from "./tracker.js";

/**
 * Keeps handles reachable when their wire reaches their task through a new session (its `taskMoved`): `find` gives
 * the tracked task of an id, if this process tracks it; `note` is told what happened, in a line for the user. A
 * handle that cannot be written keeps the old session; a later command finds the task again the same way.
 */
export function saveMoves(
  wire: Wire,
  find: (taskId: string) => TrackedTask | undefined,
  note?: (text: string) => void,
): void {
  wire.on("taskMoved", async (taskId, token) => {
    const tracked = find(taskId);
    if (!tracked) return;
    note?.(
      `the server no longer knew the session of task ${taskId} (it restarted?), but knows the task in a new session: the handle now uses that one`,
    );
    await tracked.moved(token).catch(() => {});
  });
}

/**
 * Runs `work` on a task that exists; if the server says the task is unknown, records that on the handle before
 * rethrowing. Whatever fails here concerns this task, so the error names it (`taskId`, the JSON error line's): a
 * refused answer, a form past its bounds, a server's failure while a question is answered. (A stop, Ctrl-C or
 * --timeout, is the command's, shared by every task it follows: withResumeHint names the task for it.)
 */
export async function markingGone<T>(tracked: TrackedTask, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof TaskNotFoundError) await tracked.markGone(error.message, true).catch(() => {});
    if (aboutTask(error)) error.taskId = tracked.taskId;
    throw error;
  }
}

/** An error raised while a task was worked on that names no task yet, and is not the command's stop. */
function aboutTask(error: unknown): error is McpTaskError {
  return (
    error instanceof McpTaskError &&
    error.taskId === null &&
    !(error instanceof InterruptedError || error instanceof StillRunningError)
  );
}
