// The detail of one task: facts, the status timeline, the arguments and the result, scrollable.
import { Box, Text } from "ink";
import { renderResult } from "../output/render.js";
import { sanitize, sanitizeLine } from "../output/sanitize.js";
import { summarize, type Handle, type HandleSummary } from "../store/handles.js";
import { COLOR, SYMBOL, type RowStatus } from "../output/palette.js";
import { rowStatus, short, ttlLeft } from "./format.js";

export interface Line {
  text: string;
  color?: string;
  bold?: boolean;
  dim?: boolean;
}

/** The detail of a handle as lines (pure: the view only slices them). */
export function detailLines(handle: Handle, now: number): Line[] {
  const summary = summarize("", handle, 0);
  const status = rowStatus(summary, now);
  const lines: Line[] = [
    {
      text: `${SYMBOL[status]} ${status}${handle.last.statusMessage ? `  ${sanitizeLine(handle.last.statusMessage)}` : ""}`,
      color: COLOR[status],
      bold: true,
    },
    { text: `task      ${sanitizeLine(handle.taskId)}` },
    {
      text: `tool      ${sanitizeLine(handle.tool)} on ${sanitizeLine(handle.server.name)} (${handle.resume.generation.toUpperCase()}, protocol ${sanitizeLine(handle.resume.protocolVersion)})`,
    },
    { text: `created   ${handle.createdAt}   updated ${handle.updatedAt}` },
    {
      text: `ttl       ${handle.ttlMs === null ? "unlimited" : handle.ttlMs === undefined ? "not given" : `${handle.ttlMs} ms (${short(ttlLeft(summary, now))} left)`}   poll every ${handle.pollIntervalMs ?? "?"} ms`,
    },
  ];
  if (handle.gone) lines.push({ text: `gone      ${sanitizeLine(handle.gone.reason)}`, color: "red" });
  lines.push({ text: "" }, { text: "Timeline", bold: true });
  for (const entry of handle.history) {
    const s = entry.status as RowStatus;
    lines.push({
      text: `  ${entry.at.replace("T", " ").replace("Z", "")}  ${SYMBOL[s] ?? " "} ${entry.status}${entry.statusMessage ? `  ${sanitizeLine(entry.statusMessage)}` : ""}`,
      color: COLOR[s],
    });
  }
  lines.push({ text: "" }, { text: "Arguments", bold: true });
  for (const line of sanitize(JSON.stringify(handle.arguments, null, 2)).split("\n")) lines.push({ text: `  ${line}` });
  const outcome = handle.outcome;
  lines.push({ text: "" }, { text: "Result", bold: true });
  if (!outcome) lines.push({ text: "  (not yet)", dim: true });
  else {
    if (outcome.outputProblem)
      lines.push({ text: `  ✗ breaks the tool's outputSchema: ${sanitizeLine(outcome.outputProblem)}`, color: "red" });
    if (outcome.error)
      lines.push({ text: `  error ${outcome.error.code}: ${sanitizeLine(outcome.error.message)}`, color: "red" });
    if (outcome.result?.isError) lines.push({ text: "  the tool reported an error", color: "red" });
    if (outcome.result) for (const line of renderResult(outcome.result).split("\n")) lines.push({ text: `  ${line}` });
    if (outcome.status === "cancelled") lines.push({ text: "  cancelled", color: "yellow" });
  }
  return lines;
}

/** What can be shown of a task whose saved handle cannot be read: its summary, and why. */
export function unreadableLines(summary: HandleSummary, reason: string, now: number): Line[] {
  const status = rowStatus(summary, now);
  return [
    {
      text: `${SYMBOL[status]} ${status}${summary.statusMessage ? `  ${sanitizeLine(summary.statusMessage)}` : ""}`,
      color: COLOR[status],
      bold: true,
    },
    { text: `task      ${sanitizeLine(summary.taskId)}` },
    {
      text: `tool      ${sanitizeLine(summary.tool)} on ${sanitizeLine(summary.server)} (${summary.generation.toUpperCase()})`,
    },
    { text: `created   ${summary.createdAt}   updated ${summary.updatedAt}` },
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
