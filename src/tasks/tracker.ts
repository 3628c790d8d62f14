// Keeping a task's handle in step with what the engine observes: the handle is written the moment the task
// exists, then each status change, each delivered answer and the final outcome are recorded.
import type { Clock, FinalOutcome, Handle } from "../model.js";
import { ProtocolViolation, StoreUnwritableError, TaskNotFoundError } from "../errors.js";
import { descriptorKey, forHandle, withoutCredentials } from "../protocol/server.js";
import type { Progress, ResumeToken, Snapshot, Wire } from "../protocol/wire.js";
import type { HandleStore } from "../store/handles.js";
import { fileStem } from "../store/handle-file.js";
import {
  HANDLE_BATCH_MS,
  HANDLE_BATCH_WRITES_PER_S,
  MAX_CLOCK_SKEW_MS,
  MAX_HISTORY_MESSAGES,
  MAX_SAVED_RESULT_CHARS,
} from "../limits.js";
import { sanitizeLine, shellWord } from "../sanitize.js";
import { rescueHandle } from "../store/rescue.js";
import { isoTime } from "../iso-time.js";
import { applyObserved, applySnapshot, trimHistory, withoutResult, type Observed } from "./handle-changes.js";

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

export class Tracker {
  constructor(
    readonly store: HandleStore,
    private readonly clock: Clock,
  ) {}

  /** Saves the handle of a task that has just been created, before anything else can fail. */
  async start(
    server: Handle["server"],
    wire: Wire,
    tool: string,
    args: Record<string, unknown>,
    snapshot: Snapshot,
    via?: Handle["via"],
  ): Promise<TrackedTask> {
    const now = new Date(this.clock.now()).toISOString();
    // The server's creation time where it is believable (see expiryBase, tasks/expiry.ts), else when mcp-task saw
    // the task.
    const serverCreated = snapshot.createdAt === undefined ? NaN : Date.parse(snapshot.createdAt);
    const createdAt =
      Math.abs(serverCreated - this.clock.now()) <= MAX_CLOCK_SKEW_MS ? new Date(serverCreated).toISOString() : now;
    const handle: Handle = {
      version: 1,
      taskId: snapshot.taskId,
      // An HTTP server's headers are never copied into a handle: reached again, it takes the saved server's current
      // ones (protocol/server.ts: credentialed), and a handle holds no credential, not even a reference.
      server: { name: server.name, descriptor: forHandle(server.descriptor) },
      resume: wire.resumeToken(),
      tool,
      arguments: args,
      createdAt,
      updatedAt: now,
      ttlMs: snapshot.ttlMs,
      pollIntervalMs: snapshot.pollIntervalMs,
      last: withoutResult(snapshot),
      history: [
        {
          status: snapshot.status,
          ...(snapshot.statusMessage ? { statusMessage: snapshot.statusMessage } : {}),
          at: now,
        },
      ],
      answered: [],
      ...(via ? { via } : {}),
    };
    const stem = fileStem(snapshot.taskId, descriptorKey(server.descriptor));
    let created: boolean;
    try {
      created = await this.store.createNew(stem, handle);
    } catch (error) {
      if (error instanceof StoreUnwritableError) throw notSaved(error, stem, handle);
      throw error;
    }
    // A task id names one task: one the server already gave to a task saved here never replaces that task's handle.
    if (!created) throw await reusedId(this.store, stem, snapshot.taskId);
    return new TrackedTask(this.store, this.clock, stem, handle);
  }

  /** Opens a saved task by id or prefix; `server` (its name as saved) picks among handles of one id on two servers. */
  async open(idOrPrefix: string, server?: string): Promise<TrackedTask> {
    const { stem, handle } = await this.store.find(idOrPrefix, server);
    return new TrackedTask(this.store, this.clock, stem, handle);
  }

  /**
   * Saves a handle brought from elsewhere (`import`) where none is saved for its task: one saved here (however old,
   * whatever the import says of it, readable or not) is left as it is, `kept`. An import adds tasks, never rewrites
   * one: a crafted file could otherwise replace a task's arguments, outcome and history with its own, and `result`
   * print them as the server's.
   */
  async adopt(handle: Handle): Promise<{ tracked: TrackedTask; kept: boolean }> {
    const stem = fileStem(handle.taskId, descriptorKey(handle.server.descriptor));
    const added = await this.store.createNew(stem, handle);
    return { tracked: new TrackedTask(this.store, this.clock, stem, handle), kept: !added };
  }
}

/**
 * The error for a new task whose handle the store could not take (a full disk, a read-only home): the task exists on
 * its server, so the error names it (the command prints its id as --detach does), and the handle goes to the rescue
 * folder (src/store/rescue.ts) for `import` once the store has room; the hint names only commands that can work
 * (without a handle, no `watch` or `get` can find the task).
 */
function notSaved(error: StoreUnwritableError, stem: string, handle: Handle): StoreUnwritableError {
  const { server } = handle;
  const exported = { ...handle, server: { name: server.name, descriptor: withoutCredentials(server.descriptor) } };
  const file = rescueHandle(stem, exported);
  const id = sanitizeLine(handle.taskId);
  const lead = `task ${id} was created on ${sanitizeLine(server.name)}, but its handle could not be saved`;
  const hint = file
    ? `${error.remedy}; then save the task with: mcp-task import --yes ${shellWord(file)} (its handle, kept there), ` +
      `and follow it with: mcp-task watch ${shellWord(handle.taskId)}`
    : `${error.remedy}; the task runs on at its server, but mcp-task cannot reach it without its handle`;
  return error.about(lead, handle.taskId, hint);
}

/**
 * The error for a new task whose id the same server already gave to a task saved here. The two cannot be told apart
 * on the wire (the id is all a read names), so following the new one would mix their states and outcomes into one
 * handle: the call fails (exit 4), the first task's handle is kept as it was.
 */
async function reusedId(store: HandleStore, stem: string, taskId: string): Promise<ProtocolViolation> {
  let first = "";
  try {
    const handle = store.load(stem);
    if (handle)
      first = ` (${sanitizeLine(handle.tool)}, started ${handle.createdAt}, ${handle.outcome?.status ?? handle.last.status})`;
  } catch {
    /* unreadable: named without details */
  }
  return new ProtocolViolation(
    `the server gave the new task the id ${sanitizeLine(taskId)}, which it already gave to another task saved here${first}; ` +
      "mcp-task keeps that task's handle and does not follow this call's task (the server may still run it)",
    // Its own hint, so that no caller adds "follow it again": this call's task cannot be followed, the saved one is
    // another.
    `the task saved before is unchanged: mcp-task get ${shellWord(taskId)} reads it`,
    taskId,
  );
}
