// Following one task until it is terminal (TaskEngine.watch): the poll loop, pushes that wake it early, backoff on
// errors. The task's questions (answering them, settling answers in doubt) are TaskAnswers' (answering.ts).
import type { Clock } from "../model.js";
import { ServerError } from "../errors.js";
import { isTerminal, openRequests, type Snapshot } from "../protocol/wire.js";
import { answerNotDelivered } from "./input.js";
import { pollInterval } from "../protocol/checks.js";
import { PUSH_SAFETY_READS_PER_S } from "../limits.js";
import { TaskAnswers, type AnswerOptions } from "./answering.js";
import { release, taskOf, watching, type EngineShared } from "./engine-task.js";
import type { Alarm } from "./alarms.js";

/** Used when the server gives no poll interval. */
const DEFAULT_POLL_INTERVAL_MS = 1000;
const MAX_BACKOFF_MS = 30_000;
/** While pushes flow, the time between polls of our own (pushes are never the only source of truth), for a
 *  connection with few tasks (see drawTrust). */
const PUSH_TRUST_MS = 30_000;
/** After a push, the next poll waits this many poll intervals. */
const PUSH_GRACE = 3;

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
  private failingSince?: number;
  private lastPoll?: number;
  private failures = 0;
  private due = 0;
  /** The longest wait for a read of our own while pushes flow (see drawTrust), drawn anew at each read. */
  private trustMs = PUSH_TRUST_MS;
  private trustDrawn = false;

  constructor(
    private readonly shared: EngineShared,
    private readonly taskId: string,
    private readonly options: WatchOptions,
  ) {
    this.answered = options.answered ?? new Set<string>();
    this.clock = shared.clock;
    this.answers = new TaskAnswers(shared, taskId, options, this.answered, {
      wake: this.wakeUp,
      readNow: () => {
        this.due = this.clock.monotonic();
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
   * Sleeps until `due` or a wake. Pushes move `due` later while the loop naps (see deferPoll) without touching the
   * alarm: it rings at the time first asked, and the nap goes on to the new `due` (a dashboard's 1,000 tasks pushed
   * every second would otherwise move 1,000 alarms a second).
   */
  private nap(): Promise<void> {
    this.alarm.at(this.due);
    return new Promise<void>((resolve) => (this.wakeNow = resolve));
  }

  private readonly ring = () => {
    if (this.wakeNow && this.due > this.clock.monotonic()) return this.alarm.at(this.due);
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
    const now = this.clock.monotonic();
    this.due = this.last
      ? now + this.intervalOf(this.last)
      : now + (options.spread ? Math.round(shared.random() * this.intervalOf()) : 0);
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
        if (this.clock.monotonic() >= this.due) {
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

  // The server's interval as parsed is within the floor and ceiling (src/limits.ts); kept there here too, for
  // snapshots that come from elsewhere (a handle saved by an older version).
  private intervalOf(snapshot?: Snapshot): number {
    return Math.max(pollInterval(snapshot?.pollIntervalMs) ?? DEFAULT_POLL_INTERVAL_MS, this.options.floorMs ?? 0);
  }

  // With a confirmed subscription the server has promised to push every change: polls are only a safety net.
  private pace(snapshot?: Snapshot): number {
    return this.intervalOf(snapshot) * (this.shared.wire.pushConfirmed?.(this.taskId) ? PUSH_GRACE : 1);
  }

  /**
   * While pushes flow, the safety-net reads of all the tasks watched on one connection come PUSH_SAFETY_READS_PER_S a
   * second in all, from the start: each task's window is the time in which every task can be read at that rate (30 s
   * at least: up to 60 tasks, one read each 27 to 33 s; 1,000 tasks, one each 450 to 550 s). A task's first safety
   * read comes anywhere within its first window (10 % to 110 % of it), the next ones a window apart (±10 %): the reads
   * of many tasks followed together (a dashboard's 1,000, started in the same second) come spread out at the steady
   * rate at once, not in a wave once the first windows end.
   */
  private drawTrust(): number {
    const window = Math.max(PUSH_TRUST_MS, (this.shared.watched * 1000) / PUSH_SAFETY_READS_PER_S);
    const first = !this.trustDrawn;
    this.trustDrawn = true;
    const random = this.shared.random();
    return window * (first ? 0.1 + random : 0.9 + random / 5);
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
      this.due = this.clock.monotonic();
      return false;
    }
    this.deferPoll(snapshot);
    if (this.changed(snapshot)) {
      this.last = snapshot;
      yield snapshot;
      this.answers.serviceInput(snapshot);
    }
    return false;
  }

  /**
   * A push is fresh word from the server: the next poll waits PUSH_GRACE intervals from it (so no poll is spent while
   * pushes flow, even when they come at the poll's own pace), but never longer than the trust window (see drawTrust)
   * without a read of our own.
   */
  private deferPoll(snapshot: Snapshot): void {
    const interval = this.intervalOf(snapshot.pollIntervalMs !== undefined ? snapshot : this.last);
    this.lastPoll ??= this.clock.monotonic();
    this.due = Math.min(
      Math.max(this.due, this.clock.monotonic() + PUSH_GRACE * interval),
      this.lastPoll + Math.max(this.trustMs, interval),
    );
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
    this.deferPoll(snapshot);
    // A due moved earlier (the trust window) than the time the alarm was asked for: it is asked for the new one.
    this.alarm.at(this.due);
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
    this.due =
      this.clock.monotonic() + Math.min(this.pace(snapshot), Math.max(this.trustMs, this.intervalOf(snapshot)));
    return "next";
  }

  /** Reads the task; undefined after a transient failure (backing off), thrown once failures outlast giveUpMs. */
  private async read(): Promise<Snapshot | undefined> {
    const { options } = this;
    try {
      this.lastPoll = this.clock.monotonic();
      this.trustMs = this.drawTrust();
      const snapshot = await this.shared.wire.getTask(this.taskId, options.signal);
      this.failures = 0;
      this.failingSince = undefined;
      return snapshot;
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason;
      if (!(error instanceof ServerError) || !error.transient) throw error;
      this.failingSince ??= this.clock.monotonic();
      if (this.clock.monotonic() - this.failingSince > (options.giveUpMs ?? 60_000)) {
        // An answer still in doubt is reported as not delivered: the handle does not count it as answered.
        const inDoubt = this.answers.inDoubt;
        if (inDoubt) throw answerNotDelivered(this.taskId, inDoubt, error);
        throw error;
      }
      this.failures++;
      const wait = backoff(this.failures, this.shared.random(), options.floorMs);
      options.onRetry?.(error, wait);
      this.due = this.clock.monotonic() + wait;
      return undefined;
    }
  }
}

/** Whether two snapshots differ in what counts as a visible change: status, message, open questions, poll interval. */
function differs(a: Snapshot, b: Snapshot, answered: ReadonlySet<string>): boolean {
  if (a.status !== b.status || (a.statusMessage ?? "") !== (b.statusMessage ?? "")) return true;
  if ((a.pollIntervalMs ?? null) !== (b.pollIntervalMs ?? null)) return true;
  // Most snapshots ask nothing: no arrays made for them (this runs at each push of each followed task).
  if (a.inputRequests.length === 0 && b.inputRequests.length === 0) return false;
  const open = (snapshot: Snapshot) => openRequests(snapshot.inputRequests, answered);
  const [x, y] = [open(a), open(b)];
  return x.length !== y.length || x.some((request, i) => request.key !== y[i].key);
}

/** Exponential backoff with jitter (`random`: in [0, 1)), from 500 ms up to 30 s: half the ceiling, plus up to half. */
function backoff(failures: number, random: number, floorMs = 0): number {
  const ceiling = Math.min(MAX_BACKOFF_MS, 500 * 2 ** Math.min(failures, 10));
  return Math.max(floorMs, Math.round(ceiling / 2 + (random * ceiling) / 2));
}
