// The life of one task, as `mcp-task check` follows it: the server's tools, a task created, read back, followed at
// the server's pace to its end, its outcome read, and its end kept. The task is made with --tool, else with the
// first of the tools pick.ts picks that answers with one.
import { describeError } from "../../errors.js";
import { isTerminal } from "../../protocol/wire.js";
import type { TaskEngine } from "../engine.js";
import { candidates } from "./pick.js";
import { PushProbe } from "./push.js";
import { type Check, type CheckOptions } from "./types.js";

const callCandidate = (engine: TaskEngine, tool: string, args: Record<string, unknown>, options: CheckOptions) =>
  engine.call(tool, args, { task: "auto", signal: options.signal });

export const LIFE_CHECKS: Check[] = [
  {
    name: "tools-list",
    title: "lists its tools",
    spec: { "2025-11-25": "server/tools#listing-tools", "2026-07-28": "server/tools#listing-tools" },
    async run(engine, _options, learned) {
      learned.tools = await engine.listTools();
      return ["pass", `${learned.tools.length} tool(s)`];
    },
  },
  {
    name: "task-support",
    title: "offers a tool as a task",
    spec: { "2025-11-25": "#tool-level-negotiation", "2026-07-28": "#capability-negotiation" },
    async run(_engine, options, learned) {
      const tools = learned.tools ?? [];
      const taskable = tools.filter((tool) => tool.taskSupport !== "forbidden");
      const named = options.tool === undefined ? undefined : tools.find((tool) => tool.name === options.tool);
      if (named) learned.candidates = [{ tool: named, args: options.args ?? {} }];
      else if (options.tool !== undefined) return ["fail", `no tool named ${options.tool}`];
      else learned.candidates = await candidates(tools, options.args);
      if (named?.taskSupport === "forbidden") return ["fail", `${named.name} does not run as a task`];
      if (taskable.length === 0) return ["fail", "no tool may run as a task"];
      if (learned.candidates.length === 0)
        return ["warn", "no task tool's arguments could be filled: give --tool NAME --args JSON"];
      const names = learned.candidates.map((c) => `${c.tool.name} (${c.tool.taskSupport})`).join(", ");
      return ["pass", `${taskable.length} tool(s); trying ${names}`];
    },
  },
  {
    name: "task-created",
    title: "answers a task-augmented call with a task",
    spec: { "2025-11-25": "#creating-tasks", "2026-07-28": "#task-creation" },
    async run(engine, options, learned) {
      const answered: string[] = [];
      for (const { tool, args } of learned.candidates ?? []) {
        const started = await callCandidate(engine, tool.name, args, options).catch((error: unknown) => {
          // A tool that check picked, called with arguments it filled in, may refuse them: the next one is tried.
          if (options.tool !== undefined || options.signal?.aborted) throw error;
          answered.push(`${tool.name}: ${describeError(error).message}`);
          return undefined;
        });
        if (!started) continue;
        if (started.kind === "result") {
          if (tool.taskSupport === "required") return ["fail", `${tool.name} answered with a result, not a task`];
          answered.push(`${tool.name} answered with a result, not a task`);
          continue;
        }
        [learned.tool, learned.args] = [tool, args];
        learned.task = learned.last = started.snapshot;
        learned.reads.push(started.snapshot);
        return ["pass", `task ${started.snapshot.taskId}, ${started.snapshot.status} (${tool.name})`];
      }
      if (answered.length === 0) return ["skip", "no tool to call"];
      return ["warn", `no task: ${answered.join("; ")}`];
    },
  },
  {
    name: "task-get",
    title: "reads the task back by its id",
    spec: { "2025-11-25": "#getting-tasks", "2026-07-28": "#task-polling" },
    async run(engine, options, learned) {
      if (!learned.task) return ["skip", "no task"];
      learned.last = await engine.wire.getTask(learned.task.taskId, options.signal);
      learned.reads.push(learned.last);
      return ["pass", `${learned.last.status}${learned.last.statusMessage ? `: ${learned.last.statusMessage}` : ""}`];
    },
  },
  {
    name: "poll-interval",
    title: "says how often to poll",
    spec: { "2025-11-25": "#ttl-and-resource-management", "2026-07-28": "#task-polling" },
    async run(_engine, _options, learned) {
      if (!learned.last) return ["skip", "no task"];
      const ms = learned.last.pollIntervalMs;
      return ms === undefined ? ["warn", "no pollInterval: clients guess"] : ["pass", `${ms} ms`];
    },
  },
  {
    name: "ttl",
    title: "says how long it keeps the task",
    spec: { "2025-11-25": "#ttl-and-resource-management", "2026-07-28": "#tasks" },
    async run(_engine, _options, learned) {
      if (!learned.last) return ["skip", "no task"];
      const ttl = learned.last.ttlMs;
      return ttl === undefined ? ["warn", "no ttl"] : ["pass", ttl === null ? "unlimited" : `${ttl} ms`];
    },
  },
];

const UNANSWERED =
  "not tested: the task asks for input, and check answers no questions: give a --tool that does not ask, or answer it with watch";

export const END_CHECKS: Check[] = [
  {
    name: "task-ends",
    title: "ends the task, followed at its own pace",
    spec: { "2025-11-25": "#task-status-lifecycle", "2026-07-28": "#task-status" },
    async run(engine, options, learned) {
      if (!learned.task) return ["skip", "no task"];
      // A task that asks waits for an answer check does not give: its end is not tested (never a failure of the
      // server's, and never answered with an error that would end it for the check's sake).
      if (learned.last?.status === "input_required") {
        learned.asked ??= learned.last;
        return ["skip", UNANSWERED];
      }
      const deadline = AbortSignal.any([
        AbortSignal.timeout(options.timeoutMs),
        ...(options.signal ? [options.signal] : []),
      ]);
      const pushes = await PushProbe.start(engine.wire, learned.task.taskId, deadline);
      // V1: tasks/result opened while the task runs, as mcp-task does to take its questions; it must wait for the
      // end (task-result says what it did instead).
      if (!isTerminal(learned.last?.status ?? learned.task.status))
        engine.wire.probes?.openResult?.(learned.task.taskId);
      try {
        for await (const snapshot of engine.watch(learned.task.taskId, { initial: learned.last, signal: deadline })) {
          learned.last = snapshot;
          learned.pushed ||= engine.wire.pushConfirmed?.(snapshot.taskId) ?? false;
          if (snapshot.status === "input_required") {
            learned.asked ??= snapshot;
            return ["skip", UNANSWERED];
          }
        }
      } catch (error) {
        if (deadline.aborted && !options.signal?.aborted)
          return ["fail", `still ${learned.last?.status} after ${options.timeoutMs} ms`];
        throw error;
      } finally {
        learned.pushes = await pushes.stop(learned.last?.status);
      }
      return ["pass", learned.last!.status];
    },
  },
  {
    name: "input-question",
    title: "asks a question whenever it waits for input",
    spec: { "2026-07-28": "#task-polling" },
    async run(_engine, _options, learned) {
      const asked = learned.asked;
      if (!asked) return ["skip", "the task asked for nothing"];
      if (asked.inputListed && asked.inputRequests.length === 0)
        return ["fail", "input_required with no inputRequests: nothing a client could answer"];
      return ["pass", `${asked.inputRequests.length} question(s)`];
    },
  },
  {
    name: "timestamps",
    title: "dates the task consistently",
    spec: { "2025-11-25": "#ttl-and-resource-management", "2026-07-28": "#tasks" },
    async run(_engine, _options, learned) {
      if (learned.reads.length === 0) return ["skip", "no task"];
      const time = (value: string | undefined) => (value === undefined ? undefined : Date.parse(value));
      let previous: number | undefined;
      for (const read of learned.reads) {
        const [created, updated] = [time(read.createdAt), time(read.lastUpdatedAt)];
        if (created === undefined || updated === undefined)
          return ["warn", "no createdAt or lastUpdatedAt (or not a time)"];
        if (read.createdAt !== learned.reads[0]!.createdAt)
          return ["fail", `createdAt changed: ${learned.reads[0]!.createdAt}, then ${read.createdAt}`];
        if (updated < created)
          return ["fail", `lastUpdatedAt ${read.lastUpdatedAt} is before createdAt ${read.createdAt}`];
        if (previous !== undefined && updated < previous)
          return ["fail", `lastUpdatedAt went back to ${read.lastUpdatedAt}`];
        previous = updated;
      }
      return ["pass", `${learned.reads.length} reads in order`];
    },
  },
  {
    name: "task-result",
    title: "gives the outcome of the ended task",
    spec: { "2025-11-25": "#result-retrieval", "2026-07-28": "#task-polling" },
    async run(engine, _options, learned) {
      if (!learned.last || !isTerminal(learned.last.status)) return ["skip", "the task did not end"];
      const outcome = await engine.final(learned.last, learned.tool?.name);
      if (outcome.outputProblem) return ["fail", `its result breaks the tool's outputSchema: ${outcome.outputProblem}`];
      const early = engine.wire.probes?.resultAnsweredEarly?.();
      if (early !== undefined)
        return [
          "fail",
          `tasks/result does not wait for the task's end: it answered ${early}; the outcome (${outcome.status}) was read only once tasks/get said the task had ended`,
        ];
      return [
        "pass",
        outcome.status === "failed" ? `failed: ${outcome.error?.message ?? "no error given"}` : outcome.status,
      ];
    },
  },
  {
    name: "task-final",
    title: "keeps an ended task as it ended",
    spec: { "2025-11-25": "#task-status-lifecycle", "2026-07-28": "#task-status" },
    async run(engine, options, learned) {
      if (!learned.last || !isTerminal(learned.last.status)) return ["skip", "the task did not end"];
      const again = await engine.wire.getTask(learned.last.taskId, options.signal);
      learned.reads.push(again);
      return again.status === learned.last.status
        ? ["pass", again.status]
        : ["fail", `it said ${learned.last.status}, then ${again.status}`];
    },
  },
];
