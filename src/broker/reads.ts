// One reader per task: the server's tasks/get of a task, shared by everyone behind the broker. A command's read that
// comes while another is on its way takes that one's answer; one that comes within half the task's poll interval of
// the last answer takes that answer (two commands following one task, a dashboard and a `watch`, read it once);
// and the broker's own following of a task reads it only when nobody has for its pace (tasks.ts), so a command that
// follows a task through its broker is the only reader of it, at the pace its pollInterval asks.
// An answer, a cancel or a push makes what was read stale: the next read goes to the server.
import type { Clock } from "../context.js";
import type { Snapshot } from "../protocol/wire.js";
import { pollInterval } from "../protocol/checks.js";

interface LastRead {
  /** The server's answer, as it came (before the broker's held questions are added). */
  snapshot: Snapshot;
  /** When it came (monotonic). */
  at: number;
}

export class TaskReads {
  private readonly last = new Map<string, LastRead>();
  private readonly reading = new Map<string, Promise<Snapshot>>();

  constructor(private readonly clock: Clock) {}

  /** When the server was last read for `taskId` (monotonic), by anyone; -Infinity when never. */
  lastAt(taskId: string): number {
    return this.last.get(taskId)?.at ?? -Infinity;
  }

  /**
   * The task as the server says, read with `read` unless a read is on its way (its answer, shared) or the last came
   * within half the poll interval (1 s where the server gave none, as the engine's default).
   */
  read(taskId: string, read: () => Promise<Snapshot>): Promise<Snapshot> {
    const on = this.reading.get(taskId);
    if (on) return on;
    const last = this.last.get(taskId);
    const fresh = (pollInterval(last?.snapshot.pollIntervalMs) ?? 1000) / 2;
    if (last && this.clock.monotonic() - last.at < fresh) return Promise.resolve(last.snapshot);
    const reading = read().then(
      (snapshot) => {
        this.last.set(taskId, { snapshot, at: this.clock.monotonic() });
        return snapshot;
      },
      (error: unknown) => {
        this.last.delete(taskId);
        throw error;
      },
    );
    this.reading.set(taskId, reading);
    void reading.finally(() => this.reading.get(taskId) === reading && this.reading.delete(taskId)).catch(() => {});
    return reading;
  }

  /** Everything read is stale (a command answered a question: the task it was for may have moved on). */
  staleAll(): void {
    for (const taskId of this.last.keys()) this.stale(taskId);
  }

  /** What was read of `taskId` is stale (an answer or a cancel went to it, a push came): the next read asks. */
  stale(taskId: string): void {
    const last = this.last.get(taskId);
    if (last) this.last.set(taskId, { ...last, at: -Infinity });
  }
}
