// A command that waits for a task: the signals that stop it waiting (Ctrl-C, --timeout), and the hint that says
// how to pick the task up again (stopping to wait never stops the task).
import type { Clock } from "../model.js";
import {
  InterruptedError,
  McpTaskError,
  ServerError,
  ServerExitedError,
  StillRunningError,
  TerminatedError,
} from "../errors.js";
import { formatDuration } from "../duration.js";
import { shellWord } from "../sanitize.js";
import { CREATE_REPLY_WAIT_MS } from "../limits.js";

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

/**
 * The signal a call that may become a task is sent with. Stopping the wait (Ctrl-C, SIGTERM, --timeout) while the
 * tools/call is unanswered does not abort it at once: the server may be creating the task, and abandoning the
 * request then would leave a task nobody can find (no id, no handle). A task's create reply is meant to come at
 * once, so it is waited for CREATE_REPLY_WAIT_MS more (within SIGTERM_EXIT_MS), and the task saved when it comes; a
 * second Ctrl-C exits at once (src/process-context.ts). Past that bound the call is abandoned: through a broker, the
 * broker saves the task when the reply comes (src/broker/requests.ts); directly, it is lost, and the error says so
 * (unansweredCall).
 */
export function replyWait(
  ctx: { clock: Clock; interrupt: AbortSignal },
  wait: AbortSignal,
  note: (text: string) => void,
): { signal: AbortSignal; dispose: () => void } {
  const stop = new AbortController();
  const timer = new AbortController();
  // Stopped by --timeout, a Ctrl-C during the wait stops it now; stopped by a Ctrl-C, a second one exits at once.
  const onInterrupt = () => stop.abort(ctx.interrupt.reason);
  const onStop = () => {
    const waiting = formatDuration(CREATE_REPLY_WAIT_MS);
    const interrupted = ctx.interrupt.aborted;
    note(
      `waiting up to ${waiting} for the server's reply, to save its task (Ctrl-C${interrupted ? " again" : ""}: stop now)`,
    );
    if (!interrupted) ctx.interrupt.addEventListener("abort", onInterrupt, { once: true });
    void ctx.clock.sleep(CREATE_REPLY_WAIT_MS, timer.signal).then(() => {
      if (!timer.signal.aborted) stop.abort(wait.reason);
    });
  };
  if (wait.aborted) onStop();
  else wait.addEventListener("abort", onStop, { once: true });
  return {
    signal: stop.signal,
    dispose: () => {
      timer.abort();
      wait.removeEventListener("abort", onStop);
      ctx.interrupt.removeEventListener("abort", onInterrupt);
    },
  };
}

/**
 * The error of a call stopped (`reason`: the wait's) whose reply did not come within CREATE_REPLY_WAIT_MS. `kept`: the
 * call was made by a broker, which saves the task if the server answers with one (then `list` shows it); otherwise
 * no process is left to hear the reply, and no hint could lead to the task.
 */
export function unansweredCall(reason: unknown, kept: boolean): unknown {
  if (!(reason instanceof InterruptedError || reason instanceof StillRunningError)) return reason;
  const unanswered = `${reason.message}; the server had not answered the call ${formatDuration(CREATE_REPLY_WAIT_MS)} later`;
  const message = kept
    ? `${unanswered}: its broker saves the task if the server answers with one`
    : `${unanswered}: it may have started the task, which cannot be found again`;
  const hint = kept ? "find it once the server answers with: mcp-task list" : undefined;
  if (reason instanceof StillRunningError) return new StillRunningError(message, hint);
  return reason instanceof TerminatedError ? new TerminatedError(message, hint) : new InterruptedError(message, hint);
}

/** Stopping to wait never stops the task: say how to pick it up again. */
export function withResumeHint(error: unknown, taskId: string | null): unknown {
  if (taskId && error instanceof ServerError && (error.taskId === null || error.taskId === taskId)) {
    // The server failed (or misbehaved) after the task was created: the error names it, and the handle is saved.
    error.taskId = taskId;
    // A stdio server's exit took its tasks with it (its broker marks the handle gone): no watch can follow it.
    error.hint ??=
      error instanceof ServerExitedError
        ? "the task ended with its server: start it again"
        : `the task is saved; follow it again with: mcp-task watch ${shellWord(taskId)}`;
    return error;
  }
  if (!taskId || !(error instanceof StillRunningError || error instanceof InterruptedError)) {
    // Any other failure after the task was created concerns it too (a refused answer: exit 6, with its own hint).
    if (taskId && error instanceof McpTaskError && error.taskId === null) error.taskId = taskId;
    return error;
  }
  const message = `${error.message}; task ${taskId} keeps running`;
  const hint = `resume with: mcp-task watch ${shellWord(taskId)}`;
  if (error instanceof StillRunningError) return new StillRunningError(message, hint, taskId);
  return error instanceof TerminatedError
    ? new TerminatedError(message, hint, taskId)
    : new InterruptedError(message, hint, taskId);
}
