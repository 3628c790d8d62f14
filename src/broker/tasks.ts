// The tasks a broker holds: what it has seen of each (written onto their handles by tasks/recorder.ts, so that
// their outcomes outlive it), its own unhurried following of each to its end, the push updates it passes on to the
// commands watching, and what it writes on the handles when its server dies. It stays while a task runs (within the
// task's ttl and MAX_BROKER_FOLLOW_MS) or an outcome is still to be written.
import type { Context } from "../context.js";
import { TaskNotFoundError } from "../errors.js";
import { sameServer, type ServerDescriptor } from "../protocol/server.js";
import { isTerminal, type Progress, type Snapshot, type Wire } from "../protocol/wire.js";
import { pollInterval } from "../protocol/checks.js";
import { TrackedTask } from "../tasks/tracker.js";
import { ttlEnd } from "../tasks/expiry.js";
import { Recorder } from "../tasks/recorder.js";
import { saveStarted } from "../tasks/start.js";
import { sanitizeLine } from "../sanitize.js";
import { BROKER_FOLLOW_PACE_MS, MAX_BROKER_FOLLOW_MS } from "../limits.js";
import { brokerKey, brokerPace } from "./paths.js";
import { send } from "./protocol.js";
import type { Client } from "./attached.js";
import { sentTo, type Holders } from "./holders.js";
import { requestScope } from "./relay.js";
import { TaskReads } from "./reads.js";

export class HeldTasks {
  /** Every task the broker has heard of, with its latest snapshot (undefined until one is read). */
  readonly known = new Map<string, Snapshot | undefined>();
  /** When each task was first seen: wall time (a ttl counts from it where the server's createdAt is not believable)
   *  and monotonic (MAX_BROKER_FOLLOW_MS counts from it). */
  private readonly firstSeen = new Map<string, { wall: number; mono: number }>();
  private readonly followed = new Set<string>();
  /** Followed tasks past the end of their following (followLeft) whose last read has not come yet. */
  private readonly lastReadOwed = new Set<string>();
  /** The latest snapshot of each task that a command's request returned (what that command knows). */
  private readonly handed = new Map<string, Snapshot>();
  private readonly recorder: Recorder;
  /** The server's reads of each task, shared by the commands and the broker's own following (reads.ts). */
  readonly reads: TaskReads;
  /** Since when nothing happened that keeps the broker up (a task ended, a command left): monotonic. */
  idleSince: number;
  /** The least time between its own reads of a task (MCP_TASK_BROKER_PACE, read where the broker starts). */
  private readonly paceMs: number;

  constructor(
    private readonly wire: Wire,
    private readonly ctx: Context,
    private readonly descriptor: ServerDescriptor,
    private readonly clients: ReadonlySet<Client>,
    /** What the broker's questions make of a snapshot (input_required while one is held). */
    private readonly heldFor: (snapshot: Snapshot) => Snapshot,
    private readonly stop: AbortSignal,
    /** What marks the questions another command holds, on what each command is sent. */
    private readonly holders?: Holders,
  ) {
    this.recorder = new Recorder(wire, ctx.tracker.store, ctx.clock, descriptor);
    this.reads = new TaskReads(ctx.clock);
    this.idleSince = ctx.clock.monotonic();
    this.paceMs = brokerPace(ctx.env) ?? BROKER_FOLLOW_PACE_MS;
  }

  running(snapshot: Snapshot | undefined, taskId: string): boolean {
    if (snapshot && isTerminal(snapshot.status)) return false;
    return this.followLeft(snapshot, taskId) >= 0;
  }

  /**
   * How long until the broker stops following a task that has not ended (below 0: past it): its ttl's end, a wall
   * time (as the server's createdAt it counts from), or MAX_BROKER_FOLLOW_MS after it came (on the monotonic clock).
   */
  private followLeft(snapshot: Snapshot | undefined, taskId: string): number {
    const { clock } = this.ctx;
    const since = this.firstSeen.get(taskId) ?? { wall: clock.now(), mono: clock.monotonic() };
    // The ttl counts as on the handle (tasks/expiry.ts): from the server's createdAt where it is believable.
    const end = ttlEnd({
      createdAt: new Date(since.wall).toISOString(),
      taskCreatedAt: snapshot?.createdAt ?? null,
      ttlMs: snapshot?.ttlMs ?? null,
    });
    return Math.min(
      end === undefined ? Infinity : end - clock.now(),
      since.mono + MAX_BROKER_FOLLOW_MS - clock.monotonic(),
    );
  }

  /** What keeps the broker up: tasks running or owed their last read, and outcomes still to be written. */
  live(): number {
    return (
      [...this.known].filter(([taskId, s]) => this.running(s, taskId) || this.lastReadOwed.has(taskId)).length +
      this.recorder.pending
    );
  }

  /** The tasks still running, as far as the broker knows (those that could ask a question now). */
  runningTasks(): string[] {
    return [...this.known].filter(([taskId, snapshot]) => this.running(snapshot, taskId)).map(([taskId]) => taskId);
  }

  /** A snapshot seen (from a command's request, the broker's own reading or a push): kept, and written down. */
  seen(snapshot: Snapshot): void {
    if (!this.firstSeen.has(snapshot.taskId))
      this.firstSeen.set(snapshot.taskId, { wall: this.ctx.clock.now(), mono: this.ctx.clock.monotonic() });
    this.known.set(snapshot.taskId, snapshot);
    void this.recorder.record(snapshot);
    if (isTerminal(snapshot.status)) this.idleSince = this.ctx.clock.monotonic();
  }

  /** Progress the server reported for a task: onto its handle. */
  progressed(taskId: string, progress: Progress): void {
    this.recorder.progressed(taskId, progress);
  }

  /** A snapshot a command's request brought (and the command has): seen, and the task followed while it runs. */
  remember(snapshot: Snapshot): void {
    this.seen(snapshot);
    this.handed.set(snapshot.taskId, snapshot);
    if (!isTerminal(snapshot.status)) void this.follow(snapshot.taskId);
  }

  /**
   * Saves the handle of a new task whose command is gone, or abandoned the call, before its reply came: nobody else
   * will, and the broker has all a handle needs (the server as the command named it, the tool, the arguments, the
   * reply), so the outcome it records later lands on it. Only for this broker's server; never throws (an id saved
   * already, a store that fails: there is nothing more to do here).
   */
  async saveAbandoned(
    owner: { name: string; descriptor: ServerDescriptor } | undefined,
    tool: string,
    args: Record<string, unknown>,
    snapshot: Snapshot,
  ): Promise<void> {
    // Not saved, it is followed still, but its outcome has no handle to go to: its log says why (`server logs`).
    const task = `task ${sanitizeLine(snapshot.taskId)} (${sanitizeLine(tool)})`;
    const unsaved = (why: string): void =>
      void this.ctx.io.stderr.write(`mcp-task broker: ${task} has no handle: ${sanitizeLine(why)}\n`);
    if (!owner || !sameServer(owner.descriptor, this.descriptor))
      return unsaved("its command named another server than this broker's");
    try {
      await saveStarted(this.ctx.tracker, owner, this.wire, tool, args, snapshot);
    } catch (error) {
      unsaved(error instanceof Error ? error.message : String(error));
    }
  }

  /** A change of a task: seen, and sent to the commands watching it. */
  readonly broadcast = (given: Snapshot): void => {
    const snapshot = this.heldFor(given);
    this.seen(snapshot);
    // Whether the server has confirmed it pushes this task's changes travels with each update, so that a command
    // behind the broker relaxes its polling as it would on a direct connection.
    const { confirmed } = this.update(snapshot);
    for (const client of this.clients)
      if (client.watching.has(snapshot.taskId))
        send(client.socket, {
          method: "snapshot",
          params: { snapshot: sentTo(client, snapshot, this.holders), confirmed },
        });
  };

  /**
   * A command watches these tasks: they are followed, and their changes sent to it, starting with the latest seen
   * (a change that came before the command asked, such as the end of a task that ended before its call's reply was
   * read, would otherwise wait for the command's next poll).
   */
  watch(client: Client, taskIds: string[]): void {
    for (const taskId of taskIds) {
      client.watching.add(taskId);
      const last = this.known.get(taskId);
      // Only news: the reply a command already has is no push (it would postpone the command's next poll).
      if (last && last !== this.handed.get(taskId)) {
        const { snapshot, confirmed } = this.update(this.heldFor(last));
        send(client.socket, {
          method: "snapshot",
          params: { snapshot: sentTo(client, snapshot, this.holders), confirmed },
        });
      }
      if (!last) this.known.set(taskId, undefined);
      void this.follow(taskId);
    }
  }

  /** A snapshot as sent to the commands: with whether the server confirmed it pushes this task's changes. */
  private update(snapshot: Snapshot): { snapshot: Snapshot; confirmed: boolean } {
    return { snapshot, confirmed: this.wire.pushConfirmed?.(snapshot.taskId) ?? false };
  }

  /**
   * The broker's own, unhurried reading of a task: enough to know when it ends (and so when to leave). Not the loop
   * every follower uses (TaskEngine.watch), because it reads at least 5 s apart, skips a read a command made within
   * that pace (reads.ts), answers no question (its commands do) and reads once more just past the task's ttl.
   */
  follow(taskId: string): Promise<void> {
    // The broker's own work, outside the scope of the command whose request started it (not traced for it).
    return requestScope.exit(() => this.following(taskId));
  }

  private async following(taskId: string): Promise<void> {
    if (this.followed.has(taskId)) return;
    this.followed.add(taskId);
    // A push is newer than any read: the next read asks the server.
    const pushed = (snapshot: Snapshot) => (this.reads.stale(snapshot.taskId), this.broadcast(snapshot));
    void this.wire.watchNotifications([taskId], pushed).catch(() => {});
    // Where the server answers a read only once the task has ended (V1), its end is a push of its own.
    void this.wire
      .awaitEnd?.(taskId, this.stop)
      .then(pushed)
      .catch(() => {});
    const ended = () => {
      const last = this.known.get(taskId);
      return (last !== undefined && isTerminal(last.status)) || !this.running(last, taskId);
    };
    while (!this.stop.aborted && !ended()) {
      const last = this.known.get(taskId);
      // At least BROKER_FOLLOW_PACE_MS (5 s; MCP_TASK_BROKER_PACE) apart, and never slower than MAX_POLL_INTERVAL_MS
      // (the interval as parsed is clamped already); and once more just past the end of its following (its ttl).
      const pace = Math.max(pollInterval(last?.pollIntervalMs) ?? 1000, this.paceMs);
      const left = this.followLeft(last, taskId) + 100;
      const lastRead = left <= pace;
      if (lastRead) this.lastReadOwed.add(taskId);
      // A pace after the last read of the task, whoever made it: a command following the task is its one reader.
      const due = Math.max(0, this.reads.lastAt(taskId) + pace - this.ctx.clock.monotonic());
      await this.ctx.clock.sleep(Math.min(due || pace, Math.max(0, left)), this.stop);
      try {
        // Seen ended meanwhile (a push, a command's read): nothing left to read.
        if (this.stop.aborted || isTerminal(this.known.get(taskId)?.status ?? "working")) return;
        // Read by a command meanwhile: nothing to add (the ttl's last read is made all the same).
        if (!lastRead && this.ctx.clock.monotonic() - this.reads.lastAt(taskId) < pace) continue;
        // Past its ttl and not seen to end, the last read says whether the server still has it (one that dropped
        // it says "not found", and the handle says so: see read).
        if (!(await this.read(taskId)) || lastRead) return;
      } finally {
        if (lastRead) {
          this.lastReadOwed.delete(taskId);
          this.idleSince = this.ctx.clock.monotonic();
        }
      }
    }
  }

  /** One read of a task by the broker; false once it is no longer followed (unknown to the server, or no answer). */
  private async read(taskId: string): Promise<boolean> {
    try {
      const snapshot = this.heldFor(await this.reads.read(taskId, () => this.wire.getTask(taskId)));
      if (snapshot.status !== this.known.get(taskId)?.status) this.broadcast(snapshot);
      else this.seen(snapshot);
      return true;
    } catch (error) {
      // Unknown to the server (its ttl passed, it forgot it): said on the handle, so that a later command answers
      // "not found" (exit 5), not "its server exited". Either way it no longer keeps the broker up.
      if (error instanceof TaskNotFoundError) await this.recorder.gone(taskId, error.message);
      this.firstSeen.set(taskId, { wall: 0, mono: -Infinity });
      return false;
    }
  }

  /** The questions held for these tasks are dropped (the broker leaves): said on their handles (this server's). */
  async markDropped(taskIds: string[], reason: string): Promise<void> {
    for (const taskId of taskIds) {
      try {
        const { stem, handle } = await this.ctx.tracker.store.find(taskId);
        if (handle.taskId === taskId && sameServer(handle.server.descriptor, this.descriptor) && !handle.outcome)
          await new TrackedTask(this.ctx.tracker.store, this.ctx.clock, stem, handle).markQuestionDropped(reason);
      } catch {
        /* no saved handle for it */
      }
    }
  }

  /** The outcomes seen, written. */
  flush(): Promise<void> {
    return this.recorder.flush();
  }

  /** The writes of markLost, once the server died (what a command told of that death waits for: see settled). */
  private lost: Promise<void> | undefined;

  /** A stdio server died: the tasks it was running are lost; said so on their handles (those of this broker's server). */
  markLost(reason: Error, key: string): Promise<void> {
    // Over HTTP the connection ended, not the server: its tasks live on there, and a later command reaches them.
    if (this.descriptor.transport !== "stdio") return Promise.resolve();
    this.lost ??= this.writeLost(reason, key);
    return this.lost;
  }

  /**
   * Resolves once what a failure may have to do with the server's death is on the handles: a command told that its
   * server exited (exit 4) must find its task's handle marked when it looks, at once, with `list`. The server's
   * close and the failures of the requests it ends are seen in one turn of the event loop: after it, `lost` is set.
   */
  async settled(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    await this.lost;
  }

  private async writeLost(reason: Error, key: string): Promise<void> {
    const message = `the server exited while the task was running: ${reason.message}`;
    for (const [taskId, snapshot] of this.known) {
      if (snapshot && isTerminal(snapshot.status)) continue;
      try {
        const { stem, handle } = await this.ctx.tracker.store.find(taskId);
        if (handle.taskId === taskId && brokerKey(handle.server.descriptor) === key)
          await new TrackedTask(this.ctx.tracker.store, this.ctx.clock, stem, handle).markGone(message);
      } catch {
        /* no saved handle for it */
      }
    }
  }
}
