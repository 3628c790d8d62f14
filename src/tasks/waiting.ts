// A command that waits for a task: the signals that stop it waiting (Ctrl-C, --timeout), and the hint that says
// how to pick the task up again (stopping to wait never stops the task).
import type { Clock } from "../model.js";
import { InterruptedError, ServerError, ServerExitedError, StillRunningError, TerminatedError } from "../errors.js";
import { formatDuration } from "../duration.js";
import { shellWord } from "../sanitize.js";

/** Stop signals for a waiting command: Ctrl-C (exit 130) and --timeout (exit 7), both leaving the task running. */
export function waitSignal(
  ctx: { interrupt: AbortSignal; clock: Clock },
  timeoutMs: number | undefined,
): { signal: AbortSignal; dispose: () => void } {
  const stop = new AbortController();
  // Ctrl-C or SIGTERM, as the context was interrupted (its reason: which of the two).
  const onInterrupt = () =>
    stop.abort(
      ctx.interrupt.reason instanceof InterruptedError ? ctx.interrupt.reason : new InterruptedError("interrupted"),
    );
  ctx.interrupt.addEventListener("abort", onInterrupt, { once: true });
  if (ctx.interrupt.aborted) onInterrupt();
  const timer = new AbortController();
  if (timeoutMs !== undefined) {
    void ctx.clock.sleep(timeoutMs, timer.signal).then(() => {
      if (!timer.signal.aborted)
        stop.abort(new StillRunningError(`stopped waiting after ${formatDuration(timeoutMs)}`));
    });
  }
  return {
    signal: stop.signal,
    dispose: () => {
      timer.abort();
      ctx.interrupt.removeEventListener("abort", onInterrupt);
    },
  };
}

/** Stopping to wait never stops the task: say how to pick it up again. */
export function withResumeHint(error: unknown, taskId: string | null): unknown {
  if (taskId && error instanceof ServerError && error.taskId === null) {
    // The server failed (or misbehaved) after the task was created: the error names it, and the handle is saved.
    error.taskId = taskId;
    // A stdio server's exit took its tasks with it (its broker marks the handle gone): no watch can follow it.
    error.hint ??=
      error instanceof ServerExitedError
        ? "the task ended with its server: start it again"
        : `the task is saved; follow it again with: mcp-task watch ${shellWord(taskId)}`;
    return error;
  }
  if (!taskId || !(error instanceof StillRunningError || error instanceof InterruptedError)) return error;
  const message = `${error.message}; task ${taskId} keeps running`;
  const hint = `resume with: mcp-task watch ${shellWord(taskId)}`;
  if (error instanceof StillRunningError) return new StillRunningError(message, hint, taskId);
  return error instanceof TerminatedError
    ? new TerminatedError(message, hint, taskId)
    : new InterruptedError(message, hint, taskId);
}
