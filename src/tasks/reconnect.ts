// Reaching a saved task's server again from a later process (its V1 session where it has one; on stdio, its broker).
import type { Clock } from "../model.js";
import { ServerError } from "../errors.js";
import type { ServerDescriptor } from "../protocol/server.js";
import type { ResumeToken, Wire } from "../protocol/wire.js";
import { TaskEngine } from "./engine.js";
import { withdrawnNote, type InputProvider } from "./input.js";
import { saveMoves, type TrackedTask } from "./tracker.js";

/**
 * Reconnects to an opened task's server (its V1 session, where it has one). `note` hears, in a line for the user,
 * when the task is found in a new session (the server forgot the old one) and the handle moves to it.
 */
export async function reconnect(
  tracked: TrackedTask,
  ctx: {
    connect(server: ServerDescriptor, name?: string, how?: { resume?: ResumeToken }): Promise<Wire>;
    clock: Clock;
  },
  input: InputProvider,
  note?: (text: string) => void,
): Promise<{ wire: Wire; engine: TaskEngine }> {
  const { server, resume } = tracked.handle;
  let wire: Wire;
  try {
    wire = await ctx.connect(server.descriptor, server.name, { resume });
  } catch (error) {
    // A stdio task whose broker (and so its server) is gone, and whose outcome the broker did not write, is lost:
    // record it on the handle. (A broker writes the outcome of every task it held before it leaves.)
    if (server.descriptor.transport === "stdio" && error instanceof ServerError && !tracked.handle.outcome)
      await tracked.markGone(error.message).catch(() => {});
    throw error;
  }
  saveMoves(wire, (taskId) => (taskId === tracked.taskId ? tracked : undefined), note);
  wire.onQuestionWithdrawn = (_taskId, request) => note?.(withdrawnNote(request));
  return { wire, engine: new TaskEngine(wire, ctx.clock, input) };
}
