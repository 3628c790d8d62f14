// What `mcp-task serve` says to the agent: an upstream outcome as the tool's result (exactly as the server sent it),
// a task still running as a reply naming it and the tool to come back with, a task's status with its question. Every
// text the server controls is made safe and bounded here, as on every other path (src/sanitize.ts, cutText).
import { cutText, describeError } from "../errors.js";
import type { FinalOutcome } from "../model.js";
import type { CallToolResult, InputRequest } from "../protocol/wire.js";
import { sanitize, sanitizeLine, shellWord } from "../sanitize.js";
import { isUrlRequest, viewUrl } from "../tasks/url-elicitation.js";
import type { BridgeTask, QuestionMode } from "./task.js";

/** The names of the task tools, as listed (see taskToolNames in ./tools.ts). */
export interface TaskToolNames {
  status: string;
  result: string;
  answer: string;
  cancel: string;
  list: string;
}

const text = (value: string): CallToolResult["content"][number] => ({ type: "text", text: value });

/** An error as the agent's tool error: its one-line message and hint, as the CLI prints them. */
export function errorResult(error: unknown): CallToolResult {
  const report = describeError(error);
  return { content: [text(`${report.message}${report.hint ? `\n${report.hint}` : ""}`)], isError: true };
}

/** A task's outcome as the tool's result: the upstream result exactly; a failure or a cancel as a tool error. */
export function outcomeResult(outcome: FinalOutcome): CallToolResult {
  if (outcome.result) return outcome.result;
  if (outcome.status === "cancelled")
    return { content: [text(`task ${sanitizeLine(outcome.taskId ?? "")} was cancelled`)], isError: true };
  const why = outcome.error ? cutText(sanitize(outcome.error.message)) : "no reason given";
  return {
    content: [text(`task ${sanitizeLine(outcome.taskId ?? "")} failed: ${why}`)],
    isError: true,
  };
}

/** A question as the agent is shown it: what the server asks, made safe and bounded. */
export function questionView(request: InputRequest): Record<string, unknown> {
  const message = typeof request.params.message === "string" ? cutText(sanitize(request.params.message)) : "";
  if (isUrlRequest(request)) {
    const view = viewUrl(request.params.url);
    return { key: request.key, kind: "url", message, url: view.shown, warnings: view.warnings };
  }
  if (request.method === "elicitation/create")
    return { key: request.key, kind: "form", message, requestedSchema: request.params.requestedSchema ?? {} };
  return { key: request.key, kind: sanitizeLine(request.method), message };
}

/** The questions a task waits on: those its reads carry and those handed to this bridge for task_answer. */
export function questionsOf(task: BridgeTask): InputRequest[] {
  if (task.outcome || task.last.status !== "input_required") return [...task.asked.values()].map((a) => a.request);
  const seen = new Map(task.last.inputRequests.map((request) => [request.key, request]));
  for (const { request } of task.asked.values()) seen.set(request.key, request);
  return [...seen.values()];
}

/** How a task's question gets its answer, in a sentence for the agent. */
function howAnswered(task: BridgeTask, mode: QuestionMode, agentAnswers: boolean, names: TaskToolNames): string {
  const id = shellWord(task.taskId);
  if (agentAnswers) return `answer it with ${names.answer} (or a person: mcp-task respond ${id} --input '{...}')`;
  if (mode === "elicit") return "it was forwarded to your user (elicitation)";
  return `a person answers it (mcp-task dashboard, or mcp-task respond ${id} --input '{...}'); check again with ${names.status}`;
}

/** A task's state for the agent: what the status tool returns, and what a reply that does not wait for it says. */
export function statusView(
  task: BridgeTask,
  mode: QuestionMode,
  agentAnswers: boolean,
  names: TaskToolNames,
): Record<string, unknown> {
  const { handle } = task.tracked;
  const status = task.outcome?.status ?? task.last.status;
  const view: Record<string, unknown> = {
    taskId: task.taskId,
    server: handle.server.name,
    tool: handle.tool,
    status,
  };
  if (!task.outcome && task.last.statusMessage) view.statusMessage = cutText(sanitizeLine(task.last.statusMessage));
  const questions = task.outcome ? [] : questionsOf(task);
  if (questions.length) {
    view.questions = questions.map(questionView);
    view.answeredBy = howAnswered(task, mode, agentAnswers, names);
  }
  const progress = handle.progress;
  if (!task.outcome && progress)
    view.progress = {
      progress: progress.progress,
      ...(progress.total !== undefined && { total: progress.total }),
      ...(progress.message !== undefined && { message: cutText(sanitizeLine(progress.message)) }),
    };
  if (!task.outcome && task.error) view.followError = describeError(task.error).message;
  return view;
}

/** The reply to a call (or task_result) whose task has not ended within the wait: its id, status, what to do next. */
export function pendingResult(
  task: BridgeTask,
  mode: QuestionMode,
  agentAnswers: boolean,
  names: TaskToolNames,
  waitedMs: number,
): CallToolResult {
  const view = statusView(task, mode, agentAnswers, names);
  const id = JSON.stringify({ taskId: task.taskId });
  const lines = [
    `The call runs as task ${task.taskId} (status: ${String(view.status)}${
      view.statusMessage ? `: ${String(view.statusMessage)}` : ""
    }); it did not end within ${Math.round(waitedMs / 1000)} s and goes on after this reply.`,
    `Get its result with ${names.result} ${id} (waits up to ${Math.round(waitedMs / 1000)} s), its status with ${names.status} ${id}, or cancel it with ${names.cancel} ${id}.`,
  ];
  if (view.questions)
    lines.push(`It waits for an answer: ${JSON.stringify(view.questions)}; ${String(view.answeredBy)}.`);
  return { content: [text(lines.join("\n"))], structuredContent: view };
}
