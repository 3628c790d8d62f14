// `mcp-task check`: is this task server right? A fixed list of checks, each a thing a client meets, run against a
// real server through the same engine every command uses (so a server that breaks a rule mcp-task enforces fails
// the check that meets it, with mcp-task's own error). Generation-neutral: the wires have already checked every
// reply strictly; what is left is the life of a task: created, read, followed at the server's pace, ended once and
// for good, its result readable, cancellable, and an unknown id refused.
import { randomUUID } from "node:crypto";
import { TaskNotFoundError, describeError } from "../errors.js";
import type { Clock } from "../model.js";
import { isTerminal, type Snapshot, type ToolInfo } from "../protocol/wire.js";
import type { TaskEngine } from "./engine.js";

export type CheckStatus = "pass" | "fail" | "warn" | "skip";

export interface CheckResult {
  /** Stable name (a JUnit test case). */
  readonly name: string;
  readonly title: string;
  readonly status: CheckStatus;
  /** What was seen: why it failed, or what passed. */
  readonly detail: string;
  readonly ms: number;
}

export interface CheckOptions {
  /** The tool to run as a task; else the first that may run as one and needs no arguments. */
  tool?: string;
  args?: Record<string, unknown>;
  /** How long a task may take to end (ms). */
  timeoutMs: number;
  clock: Clock;
  signal?: AbortSignal;
}

/** What the checks learn as they go (each later check builds on the earlier). */
interface Learned {
  tools?: ToolInfo[];
  tool?: ToolInfo;
  task?: Snapshot;
  last?: Snapshot;
  pushed?: boolean;
}

type Check = {
  name: string;
  title: string;
  run: (engine: TaskEngine, options: CheckOptions, learned: Learned) => Promise<[CheckStatus, string]>;
};

const CHECKS: Check[] = [
  {
    name: "tools-list",
    title: "lists its tools",
    async run(engine, _options, learned) {
      learned.tools = await engine.listTools();
      return ["pass", `${learned.tools.length} tool(s)`];
    },
  },
  {
    name: "task-support",
    title: "offers a tool as a task",
    async run(_engine, options, learned) {
      const tools = learned.tools ?? [];
      const taskable = tools.filter((tool) => tool.taskSupport !== "forbidden");
      if (options.tool) {
        learned.tool = tools.find((tool) => tool.name === options.tool);
        if (!learned.tool) return ["fail", `no tool named ${options.tool}`];
        if (learned.tool.taskSupport === "forbidden") return ["fail", `${options.tool} does not run as a task`];
      } else learned.tool = taskable.find((tool) => !(tool.inputSchema.required as unknown[] | undefined)?.length);
      if (taskable.length === 0) return ["fail", "no tool may run as a task"];
      if (!learned.tool) return ["warn", "every task tool needs arguments: give --tool NAME --args JSON"];
      return ["pass", `${taskable.length} tool(s); checking with ${learned.tool.name} (${learned.tool.taskSupport})`];
    },
  },
  {
    name: "task-created",
    title: "answers a task-augmented call with a task",
    async run(engine, options, learned) {
      if (!learned.tool) return ["skip", "no tool to call"];
      const started = await engine.call(learned.tool.name, options.args ?? {}, {
        task: "auto",
        signal: options.signal,
      });
      if (started.kind === "result")
        return [learned.tool.taskSupport === "required" ? "fail" : "warn", "it answered with a result, not a task"];
      learned.task = learned.last = started.snapshot;
      return ["pass", `task ${started.snapshot.taskId}, ${started.snapshot.status}`];
    },
  },
  {
    name: "task-get",
    title: "reads the task back by its id",
    async run(engine, options, learned) {
      if (!learned.task) return ["skip", "no task"];
      learned.last = await engine.wire.getTask(learned.task.taskId, options.signal);
      return ["pass", `${learned.last.status}${learned.last.statusMessage ? `: ${learned.last.statusMessage}` : ""}`];
    },
  },
  {
    name: "poll-interval",
    title: "says how often to poll",
    async run(_engine, _options, learned) {
      if (!learned.last) return ["skip", "no task"];
      const ms = learned.last.pollIntervalMs;
      return ms === undefined ? ["warn", "no pollInterval: clients guess"] : ["pass", `${ms} ms`];
    },
  },
  {
    name: "ttl",
    title: "says how long it keeps the task",
    async run(_engine, _options, learned) {
      if (!learned.last) return ["skip", "no task"];
      const ttl = learned.last.ttlMs;
      return ttl === undefined ? ["warn", "no ttl"] : ["pass", ttl === null ? "unlimited" : `${ttl} ms`];
    },
  },
  {
    name: "task-ends",
    title: "ends the task, followed at its own pace",
    async run(engine, options, learned) {
      if (!learned.task) return ["skip", "no task"];
      const deadline = AbortSignal.any([
        AbortSignal.timeout(options.timeoutMs),
        ...(options.signal ? [options.signal] : []),
      ]);
      try {
        for await (const snapshot of engine.watch(learned.task.taskId, { initial: learned.last, signal: deadline })) {
          learned.last = snapshot;
          learned.pushed ||= engine.wire.pushConfirmed?.(snapshot.taskId) ?? false;
          if (snapshot.status === "input_required")
            return ["skip", "the task asks for input: give a tool that does not, or answer it with watch"];
        }
      } catch (error) {
        if (deadline.aborted && !options.signal?.aborted)
          return ["fail", `still ${learned.last?.status} after ${options.timeoutMs} ms`];
        throw error;
      }
      return ["pass", learned.last!.status];
    },
  },
  {
    name: "task-result",
    title: "gives the outcome of the ended task",
    async run(engine, _options, learned) {
      if (!learned.last || !isTerminal(learned.last.status)) return ["skip", "the task did not end"];
      const outcome = await engine.final(learned.last, learned.tool?.name);
      if (outcome.outputProblem) return ["fail", `its result breaks the tool's outputSchema: ${outcome.outputProblem}`];
      return [
        "pass",
        outcome.status === "failed" ? `failed: ${outcome.error?.message ?? "no error given"}` : outcome.status,
      ];
    },
  },
  {
    name: "task-final",
    title: "keeps an ended task as it ended",
    async run(engine, options, learned) {
      if (!learned.last || !isTerminal(learned.last.status)) return ["skip", "the task did not end"];
      const again = await engine.wire.getTask(learned.last.taskId, options.signal);
      return again.status === learned.last.status
        ? ["pass", again.status]
        : ["fail", `it said ${learned.last.status}, then ${again.status}`];
    },
  },
  {
    name: "cancel",
    title: "cancels a task",
    async run(engine, options, learned) {
      if (!learned.tool || !learned.task) return ["skip", "no task"];
      const started = await engine.call(learned.tool.name, options.args ?? {}, {
        task: "auto",
        signal: options.signal,
      });
      if (started.kind === "result") return ["skip", "the second call answered with a result"];
      if (isTerminal(started.snapshot.status)) return ["skip", `the task ended at once (${started.snapshot.status})`];
      const cancelled = await engine.cancel(started.snapshot.taskId);
      const read = await engine.wire.getTask(started.snapshot.taskId, options.signal);
      if (read.status === "cancelled") return ["pass", "cancelled, and reads back cancelled"];
      if (isTerminal(read.status)) return ["warn", `it ended ${read.status} before the cancel took`];
      return ["fail", `after tasks/cancel it says ${cancelled.status}, then ${read.status}`];
    },
  },
  {
    name: "unknown-task",
    title: "refuses an unknown task id",
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
  {
    name: "notifications",
    title: "pushes status changes",
    async run(_engine, _options, learned) {
      if (!learned.task) return ["skip", "no task"];
      return learned.pushed ? ["pass", "confirmed"] : ["skip", "no push confirmed (polling serves)"];
    },
  },
];

/** Runs every check in order; a check that throws fails with mcp-task's own one-line account of the error. */
export async function checkServer(engine: TaskEngine, options: CheckOptions): Promise<CheckResult[]> {
  const learned: Learned = {};
  const results: CheckResult[] = [];
  for (const check of CHECKS) {
    const started = options.clock.now();
    let status: CheckStatus;
    let detail: string;
    try {
      [status, detail] = await check.run(engine, options, learned);
    } catch (error) {
      if (options.signal?.aborted) throw error;
      [status, detail] = ["fail", describeError(error).message];
    }
    results.push({ name: check.name, title: check.title, status, detail, ms: options.clock.now() - started });
  }
  return results;
}
