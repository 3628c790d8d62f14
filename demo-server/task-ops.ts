// What a task program may do to its task (TaskOps): sleep, ask, note, complete, fail. Each changes the task's plain
// record (task.ts) and, for sleeps and ends, the runtime's timer for it; a task that has ended ignores them all.
import { isTerminal, iso, type TaskOps, type TaskRecord } from "./task.js";

/** What the operations need of the runtime that holds the task. */
export interface OpsRuntime {
  arm(task: TaskRecord): void;
  clearTimer(taskId: string): void;
  /** The status of a task whose result is a tool error (see RuntimeOptions.toolErrorStatus). */
  toolErrorStatus: "completed" | "failed";
}

/** The operations of one task, bound to the runtime that holds it. */
export function taskOps(task: TaskRecord, runtime: OpsRuntime): TaskOps {
  const live = (): boolean => !isTerminal(task.status);
  return {
    sleep: (ms, phase, statusMessage) => {
      if (!live()) return;
      task.status = "working";
      task.phase = phase;
      if (statusMessage !== undefined) task.statusMessage = statusMessage;
      task.wakeAt = Date.now() + Math.max(0, Math.round(ms));
      task.lastUpdatedAt = iso();
      runtime.arm(task);
    },
    ask: (requests, phase, statusMessage) => {
      if (!live()) return;
      runtime.clearTimer(task.taskId);
      task.wakeAt = undefined;
      task.phase = phase;
      task.pending = {};
      task.collected = {};
      for (const [purpose, request] of Object.entries(requests)) {
        const key = `${purpose}-${++task.keySeq}`;
        task.keyPurpose[key] = purpose;
        task.pending[key] = request;
      }
      task.status = "input_required";
      task.statusMessage = statusMessage ?? "waiting for input";
      task.lastUpdatedAt = iso();
    },
    note: (statusMessage) => {
      if (!live()) return;
      task.statusMessage = statusMessage;
      task.lastUpdatedAt = iso();
    },
    complete: (result) => {
      if (!live()) return;
      finish(task, runtime);
      const toolError = result.isError === true;
      task.status = toolError ? runtime.toolErrorStatus : "completed";
      task.statusMessage = toolError ? "the tool reported an error" : "completed";
      task.result = result;
    },
    fail: (error) => {
      if (!live()) return;
      finish(task, runtime);
      task.status = "failed";
      task.statusMessage = error.message;
      task.error = error;
    },
  };
}

function finish(task: TaskRecord, runtime: OpsRuntime): void {
  runtime.clearTimer(task.taskId);
  task.wakeAt = undefined;
  task.pending = {};
  task.collected = {};
  task.phase = "done";
  task.lastUpdatedAt = iso();
}
