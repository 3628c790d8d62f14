// Control of tasks, as `mcp-task check` tries it: cancelling an ended task changes nothing, a task created is listed
// (V1 `tasks/list`), a running task is cancelled, two tasks have two ids, and an unknown id is refused.
import { NotOfferedError, RpcError, TaskNotFoundError, describeError } from "../../errors.js";
import { randomUUID } from "../../hash.js";
import { MAX_CHECK_LIST_PAGES } from "../../limits.js";
import { isTerminal } from "../../protocol/wire.js";
import type { TaskEngine } from "../engine.js";
import { type Check, type Verdict } from "./types.js";

/** After the task was found on `page`: a cursor the server never gave must be refused with -32602. */
async function unknownCursor(engine: TaskEngine, page: number): Promise<Verdict> {
  try {
    await engine.wire.listTasks(`mcp-task-check-${randomUUID()}`);
    return ["fail", `listed on page ${page}, but a cursor it never gave is answered with a page`];
  } catch (error) {
    if (error instanceof RpcError && error.rpcCode === -32602)
      return ["pass", `listed on page ${page}; an unknown cursor is refused`];
    return [
      "warn",
      `listed on page ${page}; an unknown cursor is refused, not with -32602: ${describeError(error).message}`,
    ];
  }
}

export const CONTROL_CHECKS: Check[] = [
  {
    name: "cancel-ended",
    title: "keeps an ended task as it ended when asked to cancel it",
    spec: { "2025-11-25": "#task-cancellation", "2026-07-28": "#task-status" },
    async run(engine, options, learned) {
      const ended = learned.last;
      if (!ended || !isTerminal(ended.status)) return ["skip", "the task did not end"];
      let refusal = "";
      try {
        // V1 must refuse it (-32602), which the wire reads as "it ended" and answers with the task as read.
        await engine.wire.cancelTask(ended.taskId);
      } catch (error) {
        refusal = `; the cancel was refused: ${describeError(error).message}`;
      }
      const read = await engine.wire.getTask(ended.taskId, options.signal);
      return read.status === ended.status
        ? ["pass", `still ${read.status}${refusal}`]
        : ["fail", `it ended ${ended.status}; after tasks/cancel it says ${read.status}`];
    },
  },
  {
    name: "tasks-list",
    title: "lists the task it created",
    spec: { "2025-11-25": "#task-listing" },
    async run(engine, _options, learned) {
      if (!learned.task) return ["skip", "no task"];
      if (!engine.wire.capabilities.canListTasks) return ["skip", "it does not offer tasks/list"];
      let cursor: string | undefined;
      for (let page = 1; page <= MAX_CHECK_LIST_PAGES; page++) {
        const listed = await engine.wire.listTasks(cursor);
        if (listed.tasks.some((task) => task.taskId === learned.task!.taskId)) return unknownCursor(engine, page);
        cursor = listed.nextCursor;
        if (cursor === undefined) return ["fail", `tasks/get knows the task, tasks/list (${page} page(s)) does not`];
      }
      return ["warn", `not within ${MAX_CHECK_LIST_PAGES} pages of tasks/list`];
    },
  },
  {
    name: "cancel",
    title: "cancels a task",
    spec: { "2025-11-25": "#task-cancellation", "2026-07-28": "#task-cancellation" },
    async run(engine, options, learned) {
      if (!learned.tool || !learned.task) return ["skip", "no task"];
      const started = await engine.call(learned.tool.name, learned.args ?? {}, {
        task: "auto",
        signal: options.signal,
      });
      if (started.kind === "result") return ["skip", "the second call answered with a result"];
      learned.second = started.snapshot;
      if (isTerminal(started.snapshot.status)) return ["skip", `the task ended at once (${started.snapshot.status})`];
      let cancelled;
      try {
        cancelled = await engine.cancel(started.snapshot.taskId);
      } catch (error) {
        // tasks/cancel is optional (V1: capabilities.tasks.cancel): a server that does not offer it breaks no rule.
        if (error instanceof NotOfferedError) return ["skip", "it does not offer tasks/cancel"];
        throw error;
      }
      const read = await engine.wire.getTask(started.snapshot.taskId, options.signal);
      if (read.status === "cancelled") return ["pass", "cancelled, and reads back cancelled"];
      if (isTerminal(read.status)) return ["warn", `it ended ${read.status} before the cancel took`];
      return ["fail", `after tasks/cancel it says ${cancelled.status}, then ${read.status}`];
    },
  },
  {
    name: "task-ids-unique",
    title: "gives each task an id of its own",
    spec: { "2025-11-25": "#task-id-requirements", "2026-07-28": "#tasks" },
    async run(_engine, _options, learned) {
      if (!learned.task || !learned.second) return ["skip", "fewer than two tasks"];
      return learned.second.taskId === learned.task.taskId
        ? ["fail", `two calls, one id: ${learned.task.taskId}`]
        : ["pass", "two calls, two ids"];
    },
  },
  {
    name: "unknown-task",
    title: "refuses an unknown task id",
    spec: { "2025-11-25": "#protocol-errors", "2026-07-28": "#protocol-errors" },
    async run(engine, options) {
      try {
        const snapshot = await engine.wire.getTask(`mcp-task-check-${randomUUID()}`, options.signal);
        return ["fail", `it answered with a task (${snapshot.status})`];
      } catch (error) {
        if (error instanceof TaskNotFoundError) return ["pass", "not found"];
        return ["warn", `an error other than "not found": ${describeError(error).message}`];
      }
    },
  },
];
