// When a watch's next read of its task is due (./watch.ts): at the server's pace (never faster than its interval or
// the user's floor), later while pushes flow (but a read of our own at least once a trust window), sooner after a
// terminal push, and backing off with jitter after transient failures. Times are the engine clock's monotonic ms;
// the jitter comes from the engine's random source (the context's), so a test's clock and random make it exact.
import { pollInterval } from "../protocol/checks.js";
import type { Snapshot } from "../protocol/wire.js";
import { PUSH_SAFETY_READS_PER_S } from "../limits.js";
import type { EngineShared } from "./engine-task.js";

/** Used when the server gives no poll interval. */
const DEFAULT_POLL_INTERVAL_MS = 1000;
const MAX_BACKOFF_MS = 30_000;
/** While pushes flow, the time between polls of our own (pushes are never the only source of truth), for a
 *  connection with few tasks (see drawTrust). */
const PUSH_TRUST_MS = 30_000;
/** After a push, the next poll waits this many poll intervals. */
const PUSH_GRACE = 3;

export class PollSchedule {
  /** When the next read is due (monotonic ms). */
  due = 0;
  private lastPoll?: number;
  /** The longest wait for a read of our own while pushes flow (see drawTrust), drawn anew at each read. */
  private trustMs = PUSH_TRUST_MS;
  private trustDrawn = false;
  private failures = 0;
  private failingSince?: number;

  constructor(
    private readonly shared: EngineShared,
    private readonly taskId: string,
    private readonly floorMs = 0,
  ) {}

  private now(): number {
    return this.shared.clock.monotonic();
  }

  /** The first read: an interval after a known state, else at once (or, `spread`, anywhere in the first interval). */
  start(known: Snapshot | undefined, spread: boolean): void {
    const now = this.now();
    this.due = known
      ? now + this.intervalOf(known)
      : now + (spread ? Math.round(this.shared.random() * this.intervalOf()) : 0);
  }

  /** A read now (a terminal push without its outcome). */
  readNow(): void {
    this.due = this.now();
  }

  // The server's interval as parsed is within the floor and ceiling (src/limits.ts); kept there here too, for
  // snapshots that come from elsewhere (a handle saved by an older version).
  private intervalOf(snapshot?: Snapshot): number {
    return Math.max(pollInterval(snapshot?.pollIntervalMs) ?? DEFAULT_POLL_INTERVAL_MS, this.floorMs);
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

  /**
   * A push is fresh word from the server: the next poll waits PUSH_GRACE intervals from it (so no poll is spent while
   * pushes flow, even when they come at the poll's own pace), but never longer than the trust window (see drawTrust)
   * without a read of our own. `last`: the state known before it (its interval, if the push has none).
   */
  pushed(snapshot: Snapshot, last: Snapshot | undefined): void {
    const interval = this.intervalOf(snapshot.pollIntervalMs !== undefined ? snapshot : last);
    this.lastPoll ??= this.now();
    this.due = Math.min(
      Math.max(this.due, this.now() + PUSH_GRACE * interval),
      this.lastPoll + Math.max(this.trustMs, interval),
    );
  }

  /** A read of our own starts. */
  reading(): void {
    this.lastPoll = this.now();
    this.trustMs = this.drawTrust();
  }

  /** A read succeeded: the failures are over. */
  succeeded(): void {
    this.failures = 0;
    this.failingSince = undefined;
  }

  /** The task read goes on: the next read is due at its pace. */
  next(snapshot: Snapshot): void {
    this.due = this.now() + Math.min(this.pace(snapshot), Math.max(this.trustMs, this.intervalOf(snapshot)));
  }

  /** The reads have failed for longer than `giveUpMs`. */
  givenUp(giveUpMs: number): boolean {
    this.failingSince ??= this.now();
    return this.now() - this.failingSince > giveUpMs;
  }

  /** A read failed (transiently): the next one backs off; returns the wait. */
  failed(): number {
    this.failures++;
    const wait = backoff(this.failures, this.shared.random(), this.floorMs);
    this.due = this.now() + wait;
    return wait;
  }
}

/** Exponential backoff with jitter (`random`: in [0, 1)), from 500 ms up to 30 s: half the ceiling, plus up to half. */
function backoff(failures: number, random: number, floorMs = 0): number {
  const ceiling = Math.min(MAX_BACKOFF_MS, 500 * 2 ** Math.min(failures, 10));
  return Math.max(floorMs, Math.round(ceiling / 2 + (random * ceiling) / 2));
}
