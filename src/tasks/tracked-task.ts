// A saved task kept in step with what the engine observes (made by ./tracker.ts): each status change, each delivered
// answer and the final outcome are recorded on its handle, the frequent ones in batches (HANDLE_BATCH_MS).
import type { Clock, FinalOutcome, Handle } from "../model.js";
import { StoreUnwritableError } from "../errors.js";
import { sanitizeLine } from "../sanitize.js";
import type { Progress, ResumeToken, Snapshot } from "../protocol/wire.js";
import type { HandleStore } from "../store/handles.js";
import { HANDLE_BATCH_MS, HANDLE_BATCH_WRITES_PER_S, MAX_HISTORY_MESSAGES, MAX_SAVED_RESULT_CHARS } from "../limits.js";
import { isoTime } from "../iso-time.js";
import { applyObserved, applySnapshot, trimHistory, type Observed } from "./handle-changes.js";

/** The tasks of this process with a batch waiting to be written (see `later`). */
let batching = 0;

export class TrackedTask {
  constructor(
    private readonly store: HandleStore,
    private readonly clock: Clock,
    readonly stem: string,
    public handle: Handle,
  ) {}

  get taskId(): string {
    return this.handle.taskId;
  }

  private at(): string {
    return isoTime(this.clock.now());
  }

  /** Changes not yet written, replayed onto the handle as saved when it is written (see flush). */
  private pending: Array<(handle: Handle) => void> = [];
  /** The message-only observations not yet written, merged as they come (see observe). */
  private observed?: Observed;
  private flushTimer?: AbortController;

  private async change(apply: (handle: Handle) => void): Promise<void> {
    this.pending.push(apply);
    await this.flush();
  }

  /** Writes every pending change now, in one read-modify-write under the handle's lock. */
  async flush(): Promise<void> {
    if (this.flushTimer) batching--;
    this.flushTimer?.abort();
    this.flushTimer = undefined;
    const { pending: changes, observed } = this;
    if (changes.length === 0 && !observed) return;
    this.pending = [];
    this.observed = undefined;
    try {
      this.handle = await this.store.update(this.stem, (handle) => {
        // The observations came before any change pending beside them (a new status is written at once).
        if (observed) applyObserved(handle, observed);
        for (const apply of changes) apply(handle);
        handle.updatedAt = this.at();
      });
    } catch (error) {
      if (!(error instanceof StoreUnwritableError)) throw error;
      // The store cannot take it (a full disk, a read-only home): this process goes on with what it saw, kept in
      // memory (the observations are there already; each change applies again as it did), and the command ends with
      // the error once it has shown it (src/cli.ts). The handle on disk stays as it was.
      for (const apply of changes) apply(this.handle);
      this.store.unsaved ??= error.about(
        `task ${sanitizeLine(this.taskId)}: what was read is shown but not saved`,
        this.taskId,
      );
    }
  }

  /**
   * Writes what is pending within HANDLE_BATCH_MS (with whatever follows), or later when many tasks of this process
   * batch theirs: at most HANDLE_BATCH_WRITES_PER_S batched writes a second in all.
   */
  private later(): void {
    if (this.flushTimer) return;
    const timer = (this.flushTimer = new AbortController());
    batching++;
    const wait = Math.max(HANDLE_BATCH_MS, (batching * 1000) / HANDLE_BATCH_WRITES_PER_S);
    void this.clock.sleep(wait, timer.signal).then(() => {
      if (!timer.signal.aborted) void this.flush().catch(() => {});
    });
  }

  /**
   * Records a snapshot. A new status is written at once; a new status message, poll interval or ttl alone (servers
   * may change them on every read, for many tasks) is kept in memory at once but written in batches, at most once per
   * HANDLE_BATCH_MS: each write is an fsync and an index line. A batch is one merged observation, not a list of
   * them: a dashboard following 1,000 tasks holds each one's changes for up to 200 s (see HANDLE_BATCH_WRITES_PER_S).
   * The promise (of the write) only where a write is due now: a message-only change costs its caller no await.
   */
  observe(snapshot: Snapshot): Promise<void> | undefined {
    const last = this.handle.history.at(-1);
    const statusChanged = !last || last.status !== snapshot.status;
    const messageChanged = (last?.statusMessage ?? "") !== (snapshot.statusMessage ?? "");
    const timing =
      snapshot.pollIntervalMs !== this.handle.pollIntervalMs ||
      (snapshot.ttlMs !== undefined && snapshot.ttlMs !== this.handle.ttlMs);
    if (!statusChanged && !messageChanged && !timing) return undefined;
    const at = this.at();
    if (statusChanged) return this.change((handle) => void applySnapshot(handle, snapshot, at));
    const entry = applySnapshot(this.handle, snapshot, at);
    // The batch not yet written is changed in place (flush takes it whole and starts the next one).
    const observed = (this.observed ??= { snapshot, entries: [] });
    // Only the newest MAX_HISTORY_MESSAGES message changes can outlast trimHistory: older ones are not kept.
    if (entry) observed.entries.push(entry);
    if (observed.entries.length > MAX_HISTORY_MESSAGES) observed.entries.shift();
    observed.snapshot = snapshot;
    if (snapshot.pollIntervalMs !== undefined) observed.pollIntervalMs = snapshot.pollIntervalMs;
    // A ttl of null (unlimited) is a value, written as each observation would have written it.
    if (snapshot.ttlMs !== undefined) observed.ttlMs = snapshot.ttlMs;
    this.later();
    return undefined;
  }

  /**
   * Records a snapshot when that needs no write now (its status is the one recorded: see observe); false, and
   * nothing recorded, when it does.
   */
  observeQuietly(snapshot: Snapshot): boolean {
    if (this.handle.history.at(-1)?.status !== snapshot.status) return false;
    this.observe(snapshot);
    return true;
  }

  /** Keeps the last progress the server reported (written with the next batch: see `later`). */
  progressed(progress: Progress): void {
    const at = this.at();
    const apply = (handle: Handle) => {
      // The first report of this run stays for the rate; one that goes backwards starts a new run.
      const before =
        handle.progress?.first ?? (handle.progress && { progress: handle.progress.progress, at: handle.progress.at });
      const first = before && before.progress <= progress.progress ? before : { progress: progress.progress, at };
      handle.progress = { ...progress, at, first };
    };
    apply(this.handle);
    this.pending.push(apply);
    this.later();
  }

  async answered(keys: string[]): Promise<void> {
    if (keys.length === 0) return;
    await this.change((handle) => {
      handle.answered = [...new Set([...handle.answered, ...keys])];
    });
  }

  /**
   * Records the final outcome. One whose result is larger than MAX_SAVED_RESULT_CHARS (as JSON) is not saved with
   * the handle: the handle records the final status only, and `result` / `watch` read the result from the server
   * again (while its ttl lasts). Handles stay small, so that listing and finding them stays fast.
   */
  async finish(outcome: FinalOutcome): Promise<void> {
    const tooBig = outcome.result !== undefined && JSON.stringify(outcome.result).length > MAX_SAVED_RESULT_CHARS;
    await this.change((handle) => {
      if (!tooBig) handle.outcome = outcome;
      if (handle.last.status !== outcome.status) handle.last = { ...handle.last, status: outcome.status };
      if (handle.history.at(-1)?.status !== outcome.status)
        handle.history.push({ status: outcome.status, at: this.at() });
      trimHistory(handle.history);
    });
  }

  /** The task is lost: `notFound` when the server said it does not know it (or its ttl passed), see Handle.gone. */
  async markGone(reason: string, notFound = false): Promise<void> {
    await this.change((handle) => {
      handle.gone = { at: this.at(), reason, ...(notFound ? { notFound } : {}) };
    });
  }

  /** The V1 question held for the task was dropped (its keeper stopped): see Handle.questionDropped. */
  async markQuestionDropped(reason: string): Promise<void> {
    await this.change((handle) => {
      handle.questionDropped = { at: this.at(), reason };
    });
  }

  /**
   * The task is reached another way from now on (its server forgot the old session and knows the task in a new
   * one).
   */
  async moved(resume: ResumeToken): Promise<void> {
    await this.change((handle) => {
      handle.resume = resume;
    });
  }
}
