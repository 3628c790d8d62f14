// The dashboard's state: the summary of every saved handle (from the store's index, not one read per file), the
// live state of the tasks still running, and the questions they ask. A plain class that emits change events,
// consumed by one React hook (useDashboard) so that the views stay pure functions of props. All async work
// (connections, watching, answering) lives here, not in components. Full handles are read only where needed: the
// tasks being followed, the one open in the detail view, and the one a key acts on (cancel, pager). Its parts: ./state.ts,
// ./scan.ts (store changes), ./follow-row.ts, ./row-changes.ts, ../ask/queue.ts, ../tasks/reconnect.ts (ServerLinks).
import type { Context } from "../context.js";
import { TaskNotFoundError, describeError } from "../errors.js";
import type { ServerDescriptor } from "../protocol/server.js";
import { isTerminal, type InputResponse, type QuestionHolder } from "../protocol/wire.js";
import { TrackedTask } from "../tasks/tracker.js";
import { endedAs, followedRow, followRow } from "./follow-row.js";
import { startCall, type CallHost } from "./start-call.js";
import { summarize } from "../store/handle-file.js";
import type { Handle } from "../model.js";
import { ServerLinks } from "../tasks/reconnect.js";
import { rowsAfterScan, StoreScan } from "./scan.js";
import { QuestionQueue } from "../ask/queue.js";
import { DashboardStore } from "./dashboard-store.js";
import type { AnsweredAtOnce, Connection, TaskRow } from "./state.js";
import { withUrlOpening } from "../ask/url-open.js";

/** How often the store is re-read for handles created by other processes. */
const RESCAN_MS = 5000;
export class DashboardModel extends DashboardStore {
  private readonly links: ServerLinks;
  private readonly questions: QuestionQueue;
  private readonly following = new Map<string, AbortController>();
  /** Writes what was seen of each followed task (on close). */
  private readonly flushed = new Map<string, () => Promise<void>>();
  private readonly stop = new AbortController();
  /** Made on the first rescan (the store is the context's, read when needed). */
  private scan?: StoreScan;

  constructor(private readonly ctx: Context) {
    super(ctx.clock);
    this.questions = new QuestionQueue({
      questions: () => this.state.questions,
      change: (change) => this.set(change),
    });
    // A URL-mode question's page is opened after the person's yes in its form (../ask/url-open.ts).
    const provider = withUrlOpening(ctx, this.questions.provider, { person: true, say: (text) => this.notify(text) });
    this.links = new ServerLinks(ctx, provider, (text) => this.notify(text));
  }

  /**
   * Loads the summary of every saved handle and follows the tasks still running; re-reads the store now and then.
   * With `firstPage`, a store past PROVISIONAL_MIN_BYTES shows its newest that many at once, only those parsed,
   * from its index as it is (provisional: the full read corrects it), and the rest is read at the event loop's next
   * turn, after the first frame (drawn in this turn: Ink draws it as it mounts). 100,000 handles: a first frame in
   * ~280 ms instead of ~800.
   */
  async start(firstPage?: number): Promise<void> {
    const page = firstPage === undefined ? undefined : this.ctx.tracker.store.newest(firstPage, { provisional: true });
    let read = () => {};
    if (page) {
      const rows = page.newest.map((summary): TaskRow => ({ stem: summary.stem, summary, connection: "idle" }));
      this.set({ rows, unread: page.total - rows.length });
      this.storeScan().holding(page.newest);
      this.pending = new Promise<void>((resolve) => (read = resolve));
    } else await this.rescan();
    void (async () => {
      if (page) {
        await new Promise((next) => setImmediate(next));
        await this.rescan().catch(() => {});
        this.frames.tick(); // drawn now, not at the next frame
        this.pending = undefined;
        read();
      }
      while (!this.stop.signal.aborted) {
        await this.ctx.clock.sleep(RESCAN_MS, this.stop.signal);
        if (!this.stop.signal.aborted) await this.rescan().catch(() => {});
      }
    })();
  }

  /**
   * Settles once the rest of a large store is read (see start), and the views told of it; undefined when nothing
   * is left to read. A key pressed before then waits for it (see useDashboardKeys): else "G" would go to the end of
   * the first page, and a filter match only in its rows.
   */
  get reading(): Promise<void> | undefined {
    return this.pending;
  }
  private pending?: Promise<void>;

  /** Unfinished tasks found not to be followed (a V1 task of a stdio server, an unreadable file), at that file time. */
  private readonly unfollowable = new Map<string, number>();
  /** The task open in the detail view: its row holds the full handle, read again when its file changes. */
  private opened?: string;

  private storeScan(): StoreScan {
    return (this.scan ??= new StoreScan(this.ctx.tracker.store, RESCAN_MS));
  }

  private async rescan(): Promise<void> {
    const found = await this.storeScan().changes();
    if (!found) return;
    // Rows being followed keep their in-memory state (it is the newer one; ./scan.ts rowsAfterScan).
    let rows = this.getState().rows;
    const next = rowsAfterScan(
      rows,
      found,
      (stem) => this.following.has(stem),
      (row) => this.withHandle(row),
    );
    if (next) {
      for (const stem of found.removed) this.unfollowable.delete(stem);
      rows = next;
      this.set({ rows, unread: 0 });
    }
    for (const row of rows) {
      const { stem, summary } = row;
      if (
        summary.final ||
        summary.gone !== null ||
        this.following.has(stem) ||
        this.unfollowable.get(stem) === summary.mtime
      )
        continue;
      let handle: Handle | undefined;
      try {
        handle = row.handle ?? this.ctx.tracker.store.load(stem);
      } catch {
        /* unreadable: not followed */
      }
      if (handle && this.wantsFollowing(handle)) this.follow(stem, handle);
      else this.unfollowable.set(stem, summary.mtime);
    }
  }

  /** The row with its full handle if it is the one open in the detail view (read now), else without. */
  private withHandle(row: TaskRow): TaskRow {
    const { handle: _handle, unreadable: _unreadable, ...rest } = row;
    if (row.stem !== this.opened) return rest;
    try {
      const handle = this.ctx.tracker.store.load(row.stem);
      return handle ? { ...rest, handle } : { ...rest, unreadable: "its file is gone (forgotten by another command?)" };
    } catch (error) {
      return { ...rest, unreadable: describeError(error).message };
    }
  }

  /**
   * Opens a task in the detail view (undefined: none): its row gets its full handle, read now from its file unless
   * it is being followed (then it has it already); the row open before lets go of its own.
   */
  open(stem: string | undefined): void {
    if (stem === this.opened) return;
    const before = this.opened;
    this.opened = stem;
    this.set({
      rows: this.getState().rows.map((row) => {
        if (this.following.has(row.stem) || (row.stem !== stem && row.stem !== before)) return row;
        return this.withHandle(row);
      }),
    });
  }

  /** The full handle of a task: the one in memory, else read from its file (undefined if gone or unreadable). */
  handleOf(stem: string): Handle | undefined {
    const row = this.getState().rows.find((r) => r.stem === stem);
    if (row?.handle) return row.handle;
    try {
      return this.ctx.tracker.store.load(stem);
    } catch {
      return undefined;
    }
  }

  private wantsFollowing(handle: Handle): boolean {
    return !handle.outcome && !handle.gone && !isTerminal(handle.last.status);
  }

  /** Follows one task at its server's pace until it ends; push notifications where the server sends them. */
  private follow(stem: string, handle: Handle): void {
    const abort = new AbortController();
    this.following.set(stem, abort);
    const tracked = new TrackedTask(this.ctx.tracker.store, this.ctx.clock, stem, handle);
    // One change for the common case, given again at each snapshot: pending once however many come before a frame.
    const following = followedRow(tracked, "following");
    const setRow = (connection: Connection, error?: string, held?: QuestionHolder) =>
      this.updateRow(
        stem,
        connection === "following" && error === undefined && held === undefined
          ? following
          : followedRow(tracked, connection, error, held),
      );
    const signal = AbortSignal.any([abort.signal, this.stop.signal]);
    const notify = (text: string) => this.notify(text);
    void (async () => {
      try {
        await followRow({ ctx: this.ctx, links: this.links, tracked, signal, setRow, notify });
      } finally {
        await tracked.flush().catch(() => {});
        // A task that has ended asks nothing any more: a question of it still on screen (its server gave up on it
        // without a word, or the withdrawal was lost) is withdrawn, never answered into nothing.
        const ended = endedAs(tracked.handle);
        if (ended) this.questions.withdrawTask(tracked.taskId, `the task had ended (${ended}) before it was answered`);
        this.following.delete(stem);
        this.flushed.delete(stem);
        this.links.release(tracked);
        // No longer followed: the row keeps its full handle only while it is open in the detail view.
        if (stem !== this.opened)
          this.updateRow(stem, ({ handle: _handle, ...row }) => ({
            ...row,
            summary: summarize(stem, tracked.handle, row.summary.mtime),
          }));
      }
    })();
    this.flushed.set(stem, () => tracked.flush());
  }

  /** Answers a question; it leaves the queue once handed to the engine. */
  answer(questionId: number, response: InputResponse): void {
    this.questions.answer(questionId, response);
  }

  async cancel(stem: string): Promise<void> {
    if (!this.getState().rows.some((r) => r.stem === stem)) return;
    try {
      const handle = this.getState().rows.find((r) => r.stem === stem)?.handle ?? this.ctx.tracker.store.load(stem);
      if (!handle) throw new TaskNotFoundError("the saved handle disappeared (forgotten by another command?)");
      const { engine } = await this.links.linkOf({ handle });
      const after = await engine.cancel(handle.taskId);
      this.notify(after.status === "cancelled" ? "cancelled" : `cancel requested; the server reports ${after.status}`);
    } catch (error) {
      this.notify(`cancel failed: ${describeError(error).message}`);
    }
  }

  async forget(stem: string): Promise<void> {
    this.following.get(stem)?.abort();
    await this.ctx.tracker.store.remove(stem);
    this.set({ rows: this.getState().rows.filter((row) => row.stem !== stem), notice: "forgotten" });
  }

  /**
   * Starts a tool call from the dashboard (./start-call.ts); a task is saved, shown and followed. A call the server
   * answered at once (no task) resolves with its result, for the view to show.
   */
  startCall(
    server: { name: string; descriptor: ServerDescriptor },
    tool: string,
    args: Record<string, unknown>,
  ): Promise<AnsweredAtOnce | undefined> {
    return startCall(this.callHost(), server, tool, args);
  }

  private callHost(): CallHost {
    return {
      ctx: this.ctx,
      links: () => this.links,
      notify: (text) => this.notify(text),
      progress: (stem, change) => this.updateRow(stem, change),
      started: (tracked, tool) => {
        const row: TaskRow = {
          stem: tracked.stem,
          summary: summarize(tracked.stem, tracked.handle, 0),
          handle: tracked.handle,
          connection: "idle",
        };
        this.set({ rows: [...this.getState().rows, row], notice: `started ${tool}` });
        this.follow(tracked.stem, tracked.handle);
      },
    };
  }

  /** The tools of a server, for the new-call form. */
  async tools(server: { name: string; descriptor: ServerDescriptor }) {
    const { wire } = await this.links.linkTo(server);
    return wire.listTools();
  }

  async close(): Promise<void> {
    this.stop.abort();
    await Promise.all([...this.flushed.values()].map((flush) => flush().catch(() => {})));
    this.questions.close();
    await this.links.close();
  }
}
