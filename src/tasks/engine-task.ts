// What an engine knows of each task, in one object per task (EngineTask), shared by its input handler
// (TaskEngine.answer) and the task's watch (watch.ts, answering.ts).
import type { Alarms } from "./alarms.js";
import type { Clock } from "../model.js";
import type { InputRequest, InputResponse, UncertainDelivery, Wire } from "../protocol/wire.js";
import type { InputProvider } from "./input.js";

/**
 * One task as the engine knows it. The `wake`, `delivered`, `doubted` and `asked` slots are its watch's, set while
 * one runs (the last watch to start holds them); the rest outlives a watch (see release).
 */
export interface EngineTask {
  /** An error raised while answering its input: the task's watch throws it. */
  inputError?: Error;
  /** Questions answered so far (bounded by MAX_ANSWERS_PER_TASK). */
  answers: number;
  /** Questions handed to the input handler before a watch of the task listened (shown once one does). */
  unshown?: InputRequest[];
  /** Answers the server did not take after a dropped connection, sent again without asking again, by key. */
  resend?: Map<string, InputResponse>;
  /**
   * The same where questions have no lasting key (V1: the server asks again with a new request): the answer given
   * again to the same question (method and params) while the task still waits.
   */
  reasked?: Array<{ question: string; response: InputResponse }>;
  /** Wakes the watch at once. */
  wake?: () => void;
  /** Told each time an answer reached the server, with the keys of the questions it answered. */
  delivered?: (keys: string[]) => void;
  /** Told of answers whose delivery is in doubt. */
  doubted?: (delivery: UncertainDelivery) => void;
  /**
   * Told of each question handed to the input handler (V1's come that way only, not on the task's reads), to show it
   * as the task's reads show theirs.
   */
  asked?: (request: InputRequest) => void;
}

/** What an engine shares with its watches: the wire, and its tasks. */
export interface EngineShared {
  readonly wire: Wire;
  readonly clock: Clock;
  /** A number in [0, 1) (Context.random): the jitter of reads and backoff. */
  readonly random: () => number;
  /** The one timer of the engine's watches (alarms.ts). */
  readonly alarms: Alarms;
  readonly input?: InputProvider;
  /** The tasks the engine knows something of, by id. */
  readonly tasks: Map<string, EngineTask>;
  /** How many tasks a watch follows now (those with a `wake`). */
  watched: number;
  /** An error raised while answering input before a task exists (during a call). */
  callInputError?: Error;
}

/** The task `taskId` as the engine knows it, made on first use. */
export function taskOf(shared: EngineShared, taskId: string): EngineTask {
  let task = shared.tasks.get(taskId);
  if (!task) shared.tasks.set(taskId, (task = { answers: 0 }));
  return task;
}

/** A watch of the task starts: it is woken with `wake` (and counted among the tasks watched). */
export function watching(shared: EngineShared, taskId: string, wake: () => void): void {
  const task = taskOf(shared, taskId);
  if (!task.wake) shared.watched++;
  task.wake = wake;
}

/**
 * A watch of the task ends: its slots are emptied, and answers kept for sending again dropped; the task is forgotten
 * unless something outlives the watch (answers counted, a refusal or questions not yet shown).
 */
export function release(shared: EngineShared, taskId: string): void {
  const task = shared.tasks.get(taskId);
  if (!task) return;
  if (task.wake) shared.watched--;
  task.wake = task.delivered = task.doubted = task.asked = undefined;
  task.reasked = task.resend = undefined;
  if (task.answers === 0 && !task.inputError && !task.unshown) shared.tasks.delete(taskId);
}
