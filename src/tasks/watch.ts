// Following one task until it is terminal (TaskEngine.watch): the poll loop, pushes that wake it early, backoff on
// errors. The task's questions (answering them, settling answers in doubt) are TaskAnswers' (answering.ts).
import type { Clock } from "../model.js";
import { ServerError } from "../errors.js";
import { isTerminal, openRequests, type InputRequest, type Snapshot } from "../protocol/wire.js";
import { answerNotDelivered } from "./input.js";
import { TaskAnswers, type AnswerOptions } from "./answering.js";
import { release, taskOf, watching, type EngineShared } from "./engine-task.js";
import type { Alarm } from "./alarms.js";
import { PollSchedule } from "./poll-schedule.js";

export interface WatchOptions extends AnswerOptions {
  /** The user's floor on the poll interval. */
  floorMs?: number;
  /** How long transient failures (server unreachable) may last before giving up. */
  giveUpMs?: number;
  /** Use push notifications where the server sends them (default true). */
  push?: boolean;
  /** The state already known (the create reply): the first read waits an interval instead of coming at once. */
  initial?: Snapshot;
  /**
   * One of many tasks followed together (the dashboard): without a known state, the first read comes at a
   * random moment within the first interval instead of at once. 1,000 reads in the same instant took 1,000 HTTP
   * connections (and the memory of 1,000 response parsers, which stays), and every later poll came in the same burst.
   */
  spread?: boolean;
  /** Told of each transient failure and when the next try comes (to show "reconnecting"). */
  onRetry?: (error: Error, retryInMs: number) => void;
  /**
   * Takes, as it comes, a pushed change of a working task that stays working (its status message, its poll
   * interval), instead of it being yielded; returns false to have it yielded after all. A dashboard's 1,000 tasks
   * push about 1,000 of these a second, and each one yielded woke the watch's loop and its follower's (promises, two
   * generators resumed) for what a follower takes in a few assignments.
   */
  quiet?: (snapshot: Snapshot) => boolean;
}

/**
 * One watch of one task (see TaskEngine.watch). Polls at the server's pace (never faster than its interval or the
 * user's floor); a pushed update is shown at once, postpones the next poll by three intervals (so no poll is spent
 * while pushes flow, yet one comes at least every 30 s), and a terminal push triggers an immediate read (for the
 * result). Transient failures back off exponentially with jitter. Abort with `signal`; the abort reason is thrown.
 */
export class TaskWatch {
  private readonly answered: Set<string>;
  private readonly clock: Clock;
  private woken = false;
  /** Ends the current nap (see `nap`). */
  private wakeNow?: () => void;
  /** Rings when `due` comes (the engine's shared timer: alarms.ts). */
  private readonly alarm: Alarm;
  private pushed?: Snapshot;
  private last?: Snapshot;
  private readonly answers: TaskAnswers;
  /** When the next read is due (`schedule.due`). */
  private readonly schedule: PollSchedule;

  constructor(
    private readonly shared: EngineShared,
    private readonly taskId: string,
    private readonly options: WatchOptions,
  ) {
    this.answered = options.answered ?? new Set<string>();
    this.clock = shared.clock;
    this.schedule = new PollSchedule(shared, taskId, options.floorMs);
    this.answers = new TaskAnswers(shared, taskId, options, this.answered, {
      wake: this.wakeUp,
      readNow: () => {
        this.schedule.readNow();
        this.wakeUp();
      },
    });
    this.alarm = shared.alarms.alarm(this.ring);
  }

  private readonly wakeUp = () => {
    this.woken = true;
    this.wakeNow?.();
    this.wakeNow = undefined;
  };

  /**
   * Sleeps until the read is due or a wake. Pushes move `due` later while the loop naps (see deferPoll) without touching the
   * alarm: it rings at the time first asked, and the nap goes on to the new `due` (a dashboard's 1,000 tasks pushed
   * every second would otherwise move 1,000 alarms a second).
   */
  private nap(): Promise<void> {
    this.alarm.at(this.schedule.due);
    return new Promise<void>((resolve) => (this.wakeNow = resolve));
  }

  private readonly ring = () => {
    const { due } = this.schedule;
    if (this.wakeNow && due > this.clock.monotonic()) return this.alarm.at(due);
    this.wakeUp();
  };

  /** Yields each changed snapshot until the task is terminal. */
  async *run(): AsyncGenerator<Snapshot> {
    const { shared, taskId, options } = this;
    watching(shared, taskId, this.wakeUp);
    if (options.onDelivered) taskOf(shared, taskId).delivered = options.onDelivered;
    const unsubscribe =
      options.push === false
        ? () => {}
        : await shared.wire
            .watchNotifications([taskId], (snapshot) => {
              if (snapshot.taskId !== taskId || this.takeQuietly(snapshot)) return;
              this.pushed = snapshot;
              this.wakeUp();
            })
            .catch(() => () => {});
    if (options.initial?.taskId === taskId && !isTerminal(options.initial.status)) this.last = options.initial;
    this.schedule.start(this.last, options.spread === true);
    taskOf(shared, taskId).doubted = (delivery) => this.answers.doubted(delivery);
    // The caller's signal wakes the sleep below (once, here: an AbortSignal.any per sleep leaves a dependent signal
    // on the caller's long-lived one each time, which only the garbage collector removes).
    options.signal?.addEventListener("abort", this.wakeUp);
    const task = taskOf(shared, taskId);
    task.asked = (request) => this.answers.asked(request);
    const unshown = task.unshown ?? [];
    task.unshown = undefined;
    for (const request of unshown) this.answers.asked(request);
    try {
      for (;;) {
        if (options.signal?.aborted) throw options.signal.reason;
        // A refusal waits for the answers delivered beside it to be recorded (their job is still running).
        const refused = this.answers.busy ? undefined : shared.tasks.get(taskId)?.inputError;
        if (refused) {
          shared.tasks.get(taskId)!.inputError = undefined;
          throw refused;
        }
        if (this.pushed && (yield* this.takePush())) return;
        if (this.clock.monotonic() >= this.schedule.due) {
          const step = yield* this.poll();
          if (step === "end") return;
          if (step === "retry") continue;
        }
        if (!this.woken && !options.signal?.aborted) await this.nap();
        this.woken = false;
      }
    } finally {
      this.alarm.clear();
      options.signal?.removeEventListener("abort", this.wakeUp);
      this.answers.close();
      release(shared, taskId);
      unsubscribe();
    }
  }

  private changed(next: Snapshot): boolean {
    return !this.last || differs(this.last, next, this.answered);
  }

  /** Handles the latest push; true when it ended the watch. */
  private async *takePush(): AsyncGenerator<Snapshot, boolean> {
    const snapshot = this.pushed!;
    this.pushed = undefined;
    if (this.answers.unsettled) await this.answers.settle(snapshot);
    if (isTerminal(snapshot.status)) {
      // A final push that carries its outcome ends the watch without a read; one without, reads it now.
      if (snapshot.status === "cancelled" || snapshot.result || snapshot.error) {
        this.last = snapshot;
        yield snapshot;
        return true;
      }
      this.schedule.readNow();
      return false;
    }
    this.schedule.pushed(snapshot, this.last);
    if (this.changed(snapshot)) {
      this.last = snapshot;
      yield snapshot;
      this.answers.serviceInput(snapshot);
    }
    return false;
  }

  /**
   * A push taken at once, without waking the loop (see WatchOptions.quiet): only while the loop naps with nothing
   * else to do (no push waiting, no answer in doubt or on its way), and only a working task that stays working (no
   * question to show or withdraw, nothing to read). What takePush would do, done here: the poll deferred, the
   * change handed over.
   */
  private takeQuietly(snapshot: Snapshot): boolean {
    const { last, options } = this;
    if (!options.quiet || !this.wakeNow || this.pushed || this.answers.unsettled || this.answers.busy) return false;
    if (last?.status !== "working" || snapshot.status !== "working") return false;
    const changed = this.changed(snapshot);
    if (changed && !options.quiet(snapshot)) return false;
    if (changed) this.last = snapshot;
    this.schedule.pushed(snapshot, this.last);
    // A due moved earlier (the trust window) than the time the alarm was asked for: it is asked for the new one.
    this.alarm.at(this.schedule.due);
    return true;
  }

  /** One poll: "end" once the task is terminal, "retry" after a transient failure (the next try is scheduled). */
  private async *poll(): AsyncGenerator<Snapshot, "end" | "retry" | "next"> {
    const snapshot = await this.read();
    if (!snapshot) return "retry";
    if (this.answers.unsettled) await this.answers.settle(snapshot);
    this.answers.checkIgnored(snapshot);
    this.answers.checkUnasked(snapshot);
    if (this.changed(snapshot) || isTerminal(snapshot.status)) {
      this.last = snapshot;
      yield snapshot;
    }
    if (isTerminal(snapshot.status)) return "end";
    this.answers.serviceInput(snapshot);
    this.schedule.next(snapshot);
    return "next";
  }

  /** Reads the task; undefined after a transient failure (backing off), thrown once failures outlast giveUpMs. */
  private async read(): Promise<Snapshot | undefined> {
    const { options } = this;
    try {
      this.schedule.reading();
      const snapshot = await this.shared.wire.getTask(this.taskId, options.signal);
      this.schedule.succeeded();
      return snapshot;
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason;
      if (!(error instanceof ServerError) || !error.transient) throw error;
      if (this.schedule.givenUp(options.giveUpMs ?? 60_000)) {
        // An answer still in doubt is reported as not delivered: the handle does not count it as answered.
        const inDoubt = this.answers.inDoubt;
        if (inDoubt) throw answerNotDelivered(this.taskId, inDoubt, error);
        throw error;
      }
      options.onRetry?.(error, this.schedule.failed());
      return undefined;
    }
  }
}

/**
 * Whether two snapshots differ in what counts as a visible change: status, message, open questions (and who holds
 * them elsewhere), poll interval.
 */
function differs(a: Snapshot, b: Snapshot, answered: ReadonlySet<string>): boolean {
  if (a.status !== b.status || (a.statusMessage ?? "") !== (b.statusMessage ?? "")) return true;
  if ((a.pollIntervalMs ?? null) !== (b.pollIntervalMs ?? null)) return true;
  // Most snapshots ask nothing: no arrays made for them (this runs at each push of each followed task).
  if (a.inputRequests.length === 0 && b.inputRequests.length === 0) return false;
  const open = (snapshot: Snapshot) => openRequests(snapshot.inputRequests, answered);
  const [x, y] = [open(a), open(b)];
  // Who holds a question elsewhere (InputRequest.heldBy) changes too: its holder left, and it may be answered here.
  const holder = (request: InputRequest) => request.heldBy && (request.heldBy.pid ?? 0);
  return x.length !== y.length || x.some((request, i) => request.key !== y[i].key || holder(request) !== holder(y[i]));
}
