// The detail of one task: facts, the status timeline, the arguments and the result (the layout of
// ../output/describe.ts, shared with `mcp-task get`), scrollable.
import { Box, Text } from "ink";
import { describeRecord, describeTask, type Line } from "../output/describe.js";
import { sanitizeLine } from "../sanitize.js";
import { summarize } from "../store/handle-file.js";
import type { Handle, HandleSummary } from "../model.js";
import { rowStatus, ttlLeft } from "./format.js";
import type { AnsweredAtOnce } from "./state.js";
import type { QuestionHolder } from "../protocol/wire.js";
import { heldElsewhereNote } from "../tasks/input.js";

/** The detail of a handle as lines (pure: the view only slices them): the layout `get` shows too. */
export function detailLines(handle: Handle, now: number): Line[] {
  const summary = summarize("", handle, 0);
  const shown = {
    status: rowStatus(summary, now),
    ttlLeftMs: ttlLeft(summary, now),
    protocolVersion: handle.resume.protocolVersion,
  };
  return [...describeTask({ ...summary, ttlMs: handle.ttlMs }, shown), ...describeRecord(handle)];
}

/** A call the server answered at once (no task, nothing saved): what was called, with what, and its result. */
export function answeredLines(answered: AnsweredAtOnce): Line[] {
  return [
    {
      text: `${sanitizeLine(answered.tool)} on ${sanitizeLine(answered.server)} answered at once: no task was made, nothing is saved`,
      bold: true,
    },
    // describeRecord's lines without its timeline (a call answered at once has none): the arguments, the result.
    ...describeRecord({ history: [], arguments: answered.arguments, outcome: answered.outcome }).slice(2),
  ];
}

/** Under a task's detail, where another process holds its question (TaskRow.held): which, and what to do here. */
export function heldLines(taskId: string, held: QuestionHolder | undefined): Line[] {
  return held ? [{ text: "" }, { text: heldElsewhereNote(taskId, held), color: "yellow" }] : [];
}

/** The last log messages of the task's server, under its detail (lines made safe by ./wire-log.ts). */
export function logLines(logs: readonly string[]): Line[] {
  if (logs.length === 0) return [];
  return [
    { text: "" },
    { text: `Server log (last ${logs.length})`, bold: true },
    ...logs.map((text) => ({ text: `  ${text}` })),
  ];
}

/** The wire view of a task: its last JSON-RPC messages, one a line (made safe by ./wire-log.ts), oldest first. */
export function wireLines(taskId: string, messages: readonly string[]): Line[] {
  const head: Line = {
    text: `Wire: the last ${messages.length} messages about task ${sanitizeLine(taskId)}`,
    bold: true,
  };
  if (messages.length === 0) return [head, { text: "  none seen since this dashboard connected", dim: true }];
  return [head, ...messages.map((text) => ({ text: `  ${text}` }))];
}

/** What can be shown of a task whose saved handle cannot be read: its summary, and why. */
export function unreadableLines(summary: HandleSummary, reason: string, now: number): Line[] {
  const shown = { status: rowStatus(summary, now), ttlLeftMs: ttlLeft(summary, now) };
  return [
    ...describeTask(summary, shown),
    { text: "" },
    { text: `cannot read its saved handle: ${sanitizeLine(reason)}`, color: "red" },
  ];
}

export interface DetailProps {
  lines: readonly Line[];
  scroll: number;
  height: number;
  width: number;
}

export function Detail({ lines, scroll, height, width }: DetailProps) {
  const top = Math.max(0, Math.min(scroll, Math.max(0, lines.length - height)));
  return (
    <Box flexDirection="column" width={width}>
      {lines.slice(top, top + height).map((line, i) => (
        <Text key={top + i} color={line.color} bold={line.bold} dimColor={line.dim} wrap="truncate">
          {line.text || " "}
        </Text>
      ))}
      {lines.length > height ? (
        <Text dimColor>{`  lines ${top + 1}-${Math.min(lines.length, top + height)} of ${lines.length}`}</Text>
      ) : null}
    </Box>
  );
}
