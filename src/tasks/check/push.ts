// Pushed status, as `mcp-task check` judges it: where the server pushes the followed task's status, each terminal
// push must be what a tasks/get right after says, and no push or read may contradict a terminal one. Non-terminal
// pushes are counted, not judged: one sent before the task ended may arrive after a read that saw the end (on
// another stream), and working and input_required may alternate.
import { MAX_CHECK_PUSH_READS } from "../../limits.js";
import { describeError } from "../../errors.js";
import { isTerminal, type Snapshot, type TaskStatus, type Wire } from "../../protocol/wire.js";
import { type Check, type PushReport } from "./types.js";

export class PushProbe {
  private readonly pushed: TaskStatus[] = [];
  private readonly terminal = new Set<TaskStatus>();
  private readonly problems: string[] = [];
  private reading: Promise<void> = Promise.resolve();
  private reads = 0;
  private unsubscribe: () => void = () => {};

  private constructor(
    private readonly wire: Wire,
    private readonly taskId: string,
    private readonly signal: AbortSignal,
  ) {}

  /** Listens to the task's pushes (best effort: a server without them leaves nothing to judge). */
  static async start(wire: Wire, taskId: string, signal: AbortSignal): Promise<PushProbe> {
    const probe = new PushProbe(wire, taskId, signal);
    try {
      probe.unsubscribe = await wire.watchNotifications([taskId], (snapshot) => probe.take(snapshot));
    } catch {
      /* no pushes: nothing to judge */
    }
    return probe;
  }

  private take(snapshot: Snapshot): void {
    if (snapshot.taskId !== this.taskId) return;
    this.pushed.push(snapshot.status);
    if (!isTerminal(snapshot.status)) return;
    this.terminal.add(snapshot.status);
    if (this.reads >= MAX_CHECK_PUSH_READS) return;
    this.reads++;
    this.reading = this.reading.then(async () => {
      try {
        const read = await this.wire.getTask(this.taskId, this.signal);
        if (read.status !== snapshot.status)
          this.problems.push(`it pushed ${snapshot.status}, then tasks/get said ${read.status}`);
      } catch (error) {
        if (!this.signal.aborted) this.problems.push(`tasks/get after a push failed: ${describeError(error).message}`);
      }
    });
  }

  /** Stops listening and tells what was seen; `final` is the status the task ended with, as read. */
  async stop(final: TaskStatus | undefined): Promise<PushReport> {
    this.unsubscribe();
    await this.reading;
    if (this.terminal.size > 1) this.problems.push(`it pushed ${[...this.terminal].join(", then ")}`);
    const pushedEnd = [...this.terminal][0];
    if (pushedEnd && final && isTerminal(final) && final !== pushedEnd)
      this.problems.push(`it pushed ${pushedEnd}, but the task ended ${final}`);
    return { pushed: [...this.pushed], compared: this.reads, problems: [...new Set(this.problems)] };
  }
}

export const PUSH_CHECKS: Check[] = [
  {
    name: "notifications",
    title: "pushes status changes",
    spec: { "2025-11-25": "#task-notifications", "2026-07-28": "#task-status-notifications" },
    async run(_engine, _options, learned) {
      if (!learned.task) return ["skip", "no task"];
      if (learned.pushed) return ["pass", "confirmed"];
      const count = learned.pushes?.pushed.length ?? 0;
      return count ? ["pass", `${count} status(es) pushed`] : ["skip", "no push seen (polling serves)"];
    },
  },
  {
    name: "push-agrees",
    title: "pushes the status tasks/get reads",
    spec: { "2025-11-25": "#task-notifications", "2026-07-28": "#task-status-notifications" },
    async run(_engine, _options, learned) {
      const report = learned.pushes;
      if (!report || report.pushed.length === 0) return ["skip", "nothing pushed"];
      if (report.problems.length) return ["fail", report.problems.join("; ")];
      if (report.compared === 0) return ["skip", `${report.pushed.length} push(es), none of an end to compare`];
      return ["pass", `${report.pushed.length} push(es); the end pushed is the end read`];
    },
  },
];
