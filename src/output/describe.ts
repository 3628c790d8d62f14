// The one describe-a-task layout: a task's facts (status, tool and server, times, ttl and poll interval) and its
// record (timeline, arguments, result) as lines of text with a colour, shown by `mcp-task get` as plain text and by
// the dashboard's detail view (src/ui/Detail.tsx) as Ink. Pure: what is to be shown is computed by the caller (the
// status as shown, the ttl left), so that this layer needs nothing of the store or the engine.
import { compactDuration, formatDuration } from "../duration.js";
import type { FinalOutcome } from "../model.js";
import { COLOR, SYMBOL, type RowStatus, type StatusColour } from "./palette.js";
import { renderResult } from "./render.js";
import { sanitize, sanitizeLine } from "../sanitize.js";

export interface Line {
  text: string;
  color?: StatusColour;
  bold?: boolean;
  dim?: boolean;
}

/** What the facts of a task are read from (a handle's summary fits). */
export interface TaskFacts {
  readonly taskId: string;
  readonly tool: string;
  readonly server: string;
  readonly generation: string;
  readonly statusMessage: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
  /** null: unlimited; undefined: the server gave none. */
  readonly ttlMs?: number | null;
  readonly pollIntervalMs: number | null;
  readonly gone: string | null;
}

/** What the caller decides: the status to show, the ttl left (when it counts down), the protocol version (if known). */
export interface Shown {
  readonly status: RowStatus;
  readonly ttlLeftMs?: number;
  readonly protocolVersion?: string;
}

const fact = (label: string, value: string): Line => ({ text: `  ${label.padEnd(8)} ${value}` });

function ttlText(task: TaskFacts, shown: Shown): string {
  const ttl =
    task.ttlMs === null
      ? "unlimited"
      : task.ttlMs === undefined
        ? "not given"
        : `${formatDuration(task.ttlMs)}${shown.ttlLeftMs === undefined ? "" : ` (${compactDuration(shown.ttlLeftMs)} left)`}`;
  const poll = task.pollIntervalMs === null ? "not given" : formatDuration(task.pollIntervalMs);
  return `${ttl}, poll interval ${poll}`;
}

function facts(task: TaskFacts, shown: Shown): Line[] {
  const protocol = shown.protocolVersion ? `, protocol ${sanitizeLine(shown.protocolVersion)}` : "";
  const lines: Line[] = [
    fact(
      "tool",
      `${sanitizeLine(task.tool)} on ${sanitizeLine(task.server)} (${task.generation.toUpperCase()}${protocol})`,
    ),
    fact("created", `${task.createdAt}   updated ${task.updatedAt}`),
    fact("ttl", ttlText(task, shown)),
  ];
  if (task.gone !== null) lines.push({ ...fact("gone", sanitizeLine(task.gone)), color: "red" });
  return lines;
}

const message = (task: TaskFacts) => (task.statusMessage ? `  ${sanitizeLine(task.statusMessage)}` : "");

/** A task's facts, drawn: its status (with its symbol, in its colour), its id, then one labelled line each. */
export function describeTask(task: TaskFacts, shown: Shown): Line[] {
  const status = { text: `${SYMBOL[shown.status]} ${shown.status}${message(task)}`, color: COLOR[shown.status] };
  return [{ ...status, bold: true }, fact("task", sanitizeLine(task.taskId)), ...facts(task, shown)];
}

/**
 * The same facts as plain text (`mcp-task get`): the first line starts with the id (`<id>  <status>  <message>`:
 * what a script reads of it), so that the id's own line is left out; the other lines are those of describeTask.
 */
export function describeTaskText(task: TaskFacts, shown: Shown): string[] {
  const first = `${sanitizeLine(task.taskId)}  ${shown.status}${message(task)}`;
  return [first, ...facts(task, shown).map((line) => line.text)];
}

/** What a task's record holds beyond its facts (a handle fits). */
export interface TaskRecord {
  readonly history: readonly { readonly status: string; readonly at: string; readonly statusMessage?: string }[];
  readonly arguments: unknown;
  readonly outcome?: FinalOutcome;
}

/** A task's record: the status timeline, the arguments and the result. */
export function describeRecord(task: TaskRecord): Line[] {
  const lines: Line[] = [{ text: "" }, { text: "Timeline", bold: true }];
  for (const entry of task.history) {
    const s = entry.status as RowStatus;
    lines.push({
      text: `  ${entry.at.replace("T", " ").replace("Z", "")}  ${SYMBOL[s] ?? " "} ${entry.status}${entry.statusMessage ? `  ${sanitizeLine(entry.statusMessage)}` : ""}`,
      color: COLOR[s],
    });
  }
  lines.push({ text: "" }, { text: "Arguments", bold: true });
  for (const line of sanitize(JSON.stringify(task.arguments, null, 2)).split("\n")) lines.push({ text: `  ${line}` });
  lines.push({ text: "" }, { text: "Result", bold: true });
  return [...lines, ...resultLines(task.outcome)];
}

function resultLines(outcome: FinalOutcome | undefined): Line[] {
  if (!outcome) return [{ text: "  (not yet)", dim: true }];
  const lines: Line[] = [];
  if (outcome.outputProblem)
    lines.push({ text: `  ✗ breaks the tool's outputSchema: ${sanitizeLine(outcome.outputProblem)}`, color: "red" });
  if (outcome.error)
    lines.push({ text: `  error ${outcome.error.code}: ${sanitizeLine(outcome.error.message)}`, color: "red" });
  if (outcome.result?.isError) lines.push({ text: "  the tool reported an error", color: "red" });
  if (outcome.result) for (const line of renderResult(outcome.result).split("\n")) lines.push({ text: `  ${line}` });
  if (outcome.status === "cancelled") lines.push({ text: "  cancelled", color: COLOR.cancelled });
  return lines;
}

/** The lines as plain text (for `get`, the pager). */
export const linesText = (lines: readonly Line[]): string => lines.map((line) => line.text).join("\n");
