// Following one saved task to its end: the one follow loop of every follower (the commands, the live view, the
// dashboard, the demo walk-through). It answers input through the engine, keeps the handle in step, reads the
// outcome once when the task ended without it, and tells its owner what happens through hooks.
import type { Clock, DeliveryEvent, FinalOutcome } from "../model.js";
import { parseDuration } from "../duration.js";
import { ExitCode } from "../errors.js";
import { isTerminal, type InputRequest, type Snapshot } from "../protocol/wire.js";
import type { TaskEngine } from "./engine.js";
import { deliveryNote } from "./input.js";
import { markingGone } from "./handle-events.js";
import type { TrackedTask } from "./tracker.js";
import { settle } from "./settle.js";

/** How every follower follows a task, from the environment. */
export interface FollowSettings {
  /** How long the server may stay unreachable before giving up (exit 4, handle intact): MCP_TASK_GIVE_UP, 60 s. */
  giveUpMs: number;
  /** Use push notifications (MCP_TASK_PUSH=off: poll only). */
  push: boolean;
  /** The user's floor on the poll interval. */
  floorMs?: number;
  /** How long an ignored answer or an empty question lasts before exit 4: MCP_TASK_IGNORED_WAIT, IGNORED_ANSWER_MS. */
  ignoredMs?: number;
}

export function followSettings(source: { env: Record<string, string | undefined> }): FollowSettings {
  const env = source.env;
  return {
    giveUpMs: env.MCP_TASK_GIVE_UP ? parseDuration(env.MCP_TASK_GIVE_UP, "MCP_TASK_GIVE_UP") : 60_000,
    push: env.MCP_TASK_PUSH !== "off",
    ...(env.MCP_TASK_IGNORED_WAIT
      ? { ignoredMs: parseDuration(env.MCP_TASK_IGNORED_WAIT, "MCP_TASK_IGNORED_WAIT") }
      : {}),
  };
}

/** What a follower hears while it follows. */
export interface FollowHooks {
  /** Each changed snapshot, after it is recorded on the handle; `previous` is the one before (if any). */
  snapshot?(snapshot: Snapshot, previous: Snapshot | undefined): void;
  /** A transient failure, and when the next try comes. */
  retry?(error: Error, retryInMs: number): void;
  /** Questions the task asks (keys already answered left out). */
  input?(taskId: string, requests: InputRequest[]): void;
  /** An answer reached the server: the keys of the questions it answered. */
  delivered?(keys: string[]): void;
  /** An answer's delivery in doubt, and what became of it. */
  delivery?(event: DeliveryEvent): void;
  /** The final outcome, once recorded. */
  outcome?(outcome: FinalOutcome): void;
}

export interface FollowOptions {
  clock: Clock;
  settings: FollowSettings;
  hooks: FollowHooks;
  signal?: AbortSignal;
  /** Stop early, before the task ends, when this says so (used by `respond`); a task that ended is read to its outcome. */
  until?: (snapshot: Snapshot, state: { delivered: number }) => boolean;
  /** One of many tasks followed together (the dashboard): see WatchOptions.spread. */
  spread?: boolean;
  /** false: the task's questions are only reported (hooks.input), left to whoever else answers them (`serve`). */
  answerInput?: boolean;
}

/** Follows `tracked` from `first` (or a fresh read) to its end, or until `until` says stop. */
export async function followTask(
  engine: TaskEngine,
  tracked: TrackedTask,
  first: Snapshot | undefined,
  options: FollowOptions,
): Promise<{ outcome?: FinalOutcome; last: Snapshot }> {
  try {
    return await follow(engine, tracked, first, options);
  } finally {
    // Whatever happens (an error, Ctrl-C), what was seen is written.
    await tracked.flush().catch(() => {});
  }
}

function follow(
  engine: TaskEngine,
  tracked: TrackedTask,
  first: Snapshot | undefined,
  options: FollowOptions,
): Promise<{ outcome?: FinalOutcome; last: Snapshot }> {
  const { hooks, settings } = options;
  return markingGone(tracked, async () => {
    const answered = new Set(tracked.handle.answered);
    let last = first;
    if (last) hooks.snapshot?.(last, undefined);
    const state = { delivered: 0 };
    // A pushed message change of a working task, taken as it comes (WatchOptions.quiet): recorded and told as a
    // yielded one is, where recording it needs no write now (a write due now is awaited: it is yielded instead).
    const quiet = (snapshot: Snapshot) => {
      if (options.until || !tracked.observeQuietly(snapshot)) return false;
      const previous = last;
      last = snapshot;
      hooks.snapshot?.(snapshot, previous);
      return true;
    };
    if (!last || !isTerminal(last.status)) {
      for await (const snapshot of engine.watch(tracked.taskId, {
        signal: options.signal,
        answered,
        answerInput: options.answerInput !== false,
        floorMs: settings.floorMs,
        giveUpMs: settings.giveUpMs,
        ignoredMs: settings.ignoredMs,
        push: settings.push,
        initial: last,
        spread: options.spread,
        onRetry: hooks.retry,
        quiet,
        onAnswered: (keys) => tracked.answered(keys),
        onDelivered: (keys) => {
          state.delivered++;
          hooks.delivered?.(keys);
        },
        onInput: hooks.input,
        onDelivery: hooks.delivery,
      })) {
        const previous = last;
        last = snapshot;
        const writing = tracked.observe(snapshot);
        if (writing) await writing;
        hooks.snapshot?.(snapshot, previous);
        if (!isTerminal(snapshot.status) && options.until?.(snapshot, state)) return { last };
      }
    }
    // The outcome, read once more where the end came without it (a push, a task born terminal), and written.
    const settled = await settle(tracked, last!, engine, options.signal);
    hooks.outcome?.(settled.outcome);
    return settled;
  });
}

/**
 * What printerHooks writes to: the part of a command's printer (src/output/printer.ts) a follow uses, declared here
 * so that the engine's layer does not import the printers above it.
 */
export interface FollowPrinter {
  status(snapshot: Snapshot, at: Date): void;
  input(taskId: string, request: InputRequest): void;
  result(outcome: FinalOutcome): void;
  note(text: string): void;
}

/** The hooks of a command that prints: status lines (unless `statusLines` is false), notes, questions, the result. */
export function printerHooks(
  printer: FollowPrinter,
  clock: Clock,
  options: { statusLines?: boolean; printResult?: boolean } = {},
): FollowHooks {
  return {
    snapshot: (snapshot, previous) => {
      if (options.statusLines === false) return;
      if (!previous || snapshot.status !== previous.status || snapshot.statusMessage !== previous.statusMessage)
        printer.status(snapshot, new Date(clock.now()));
    },
    retry: (error, retryInMs) =>
      printer.note(`reconnecting: ${error.message}; next try in ${Math.round(retryInMs / 100) / 10} s`),
    input: (taskId, requests) => requests.forEach((request) => printer.input(taskId, request)),
    delivery: (event) => printer.note(deliveryNote(event)),
    outcome: options.printResult === false ? undefined : (outcome) => printer.result(outcome),
  };
}

/** The exit code of a final outcome (docs/cli.md#exit-codes). */
export function exitCodeOf(outcome: FinalOutcome): number {
  if (outcome.status === "cancelled") return ExitCode.cancelled;
  if (outcome.status === "failed" || outcome.result?.isError) return ExitCode.failed;
  return ExitCode.ok;
}
