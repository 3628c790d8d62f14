// V2's push updates: one `subscriptions/listen` stream for every watched task, the task notifications that come on
// it, and which tasks the server acknowledged (so that a watcher relaxes its polling). Best effort: polling remains
// the source of truth.
import type { RawChannel } from "./rpc.js";
import { snapshotFromV2 } from "./parse.js";
import { isTerminal, type Snapshot } from "./wire.js";

export class V2Push {
  /** The listeners of each watched task: a notification reaches its own task's listeners, not every watcher's (a
   *  dashboard following 1,000 tasks would otherwise call 1,000 listeners per notification). */
  private readonly listeners = new Map<string, Set<(snapshot: Snapshot) => void>>();
  private watches = 0;
  private subscription?: { taskIds: string[]; abort: AbortController };
  private readonly wanted = new Set<string>();
  /** Task ids the server acknowledged in subscriptions/listen. */
  private readonly acknowledged = new Set<string>();
  private resubscribing = false;

  constructor(
    rpc: RawChannel,
    /** Opens a subscriptions/listen stream for these tasks (no timeout: it stays open until aborted). */
    private readonly listen: (taskIds: string[], signal: AbortSignal) => Promise<unknown>,
  ) {
    rpc.onTaskNotification = (method, params) => {
      if (method === "notifications/subscriptions/acknowledged") {
        const ids = (params as { notifications?: { taskIds?: unknown } } | undefined)?.notifications?.taskIds;
        if (Array.isArray(ids)) for (const id of ids) if (typeof id === "string") this.acknowledged.add(id);
        return;
      }
      // A push about a task nobody here watches is dropped unread: a server may push every task it has, or junk (a
      // flood of pushes for unknown tasks cost a zod parse and a ProtocolViolation's stack trace each).
      const taskId = (params as { taskId?: unknown } | undefined)?.taskId;
      if (typeof taskId !== "string" || (!this.listeners.has(taskId) && !this.wanted.has(taskId))) return;
      // `notifications/tasks/status` is the older name of `notifications/tasks`.
      let snapshot: Snapshot;
      try {
        snapshot = snapshotFromV2(params, "task notification");
      } catch {
        return; // Ignored: polling remains the source of truth.
      }
      // An ended task has nothing more to push: the next stream leaves it out (a broker's stream would otherwise
      // name every task of its life, and the server send each one's state again at every new call).
      if (isTerminal(snapshot.status)) this.wanted.delete(snapshot.taskId);
      for (const listener of this.listeners.get(snapshot.taskId) ?? []) listener(snapshot);
    };
  }

  confirmed(taskId: string): boolean {
    return this.acknowledged.has(taskId);
  }

  /** Calls `listener` with each pushed state of these tasks; returns the function that stops it. */
  watch(taskIds: string[], listener: (snapshot: Snapshot) => void): () => void {
    this.watches++;
    for (const id of taskIds) {
      const set = this.listeners.get(id) ?? new Set();
      this.listeners.set(id, set.add(listener));
    }
    // Many watches start together (a dashboard): one subscriptions/listen for all of them, not one each.
    for (const id of taskIds) this.wanted.add(id);
    if (!this.resubscribing) {
      this.resubscribing = true;
      queueMicrotask(() => {
        this.resubscribing = false;
        this.resubscribe([...this.wanted]);
      });
    }
    let stopped = false;
    return () => {
      if (stopped) return;
      stopped = true;
      for (const id of taskIds) {
        const set = this.listeners.get(id);
        set?.delete(listener);
        if (set?.size === 0) this.listeners.delete(id);
      }
      if (--this.watches === 0) this.subscription?.abort.abort();
    };
  }

  /** Keeps one `subscriptions/listen` stream open for the watched tasks (best effort: polling still runs). */
  private resubscribe(taskIds: string[]): void {
    const wanted = [...new Set(taskIds)];
    if (this.subscription && wanted.every((id) => this.subscription!.taskIds.includes(id))) return;
    this.subscription?.abort.abort();
    this.acknowledged.clear();
    const abort = new AbortController();
    this.subscription = { taskIds: wanted, abort };
    void this.listen(wanted, abort.signal).catch(() => {});
  }

  close(): void {
    this.subscription?.abort.abort();
  }
}
