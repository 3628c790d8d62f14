// The list of tasks: one row per handle, only the rows that fit on screen rendered (virtualised).
import { Box, Text } from "ink";
import { sanitizeLine } from "../sanitize.js";
import { COLOR, SYMBOL } from "../output/palette.js";
import { progressLine, rateOf } from "../output/progress-bar.js";
import { ageOf, col, fit, inStatus, rowStatus, short, ttlLeft } from "./format.js";
import type { TaskRow } from "./state.js";

/** A row of the list: the model's row (./model.ts) without its full handle, and whether the task asks a question. */
export type ListRow = Pick<TaskRow, "stem" | "summary" | "connection" | "progress"> & { asking: boolean };

/** The message column: the progress bar while the task runs and reports it, then the status message. */
export function messageCell(row: ListRow, status: string, width: number): string {
  const note = row.connection === "error" ? "(unreachable)" : row.connection === "reconnecting" ? "(reconnecting)" : "";
  const text = `${note}${note ? " " : ""}${row.summary.statusMessage ?? ""}`;
  const p = row.progress;
  if (!p || (status !== "working" && status !== "input_required")) return fit(sanitizeLine(text), width);
  const first = p.first && { progress: p.first.progress, at: Date.parse(p.first.at) };
  const rate = rateOf(first, { progress: p.progress, at: Date.parse(p.at) });
  return fit(progressLine(p, { width, rate, text: text || undefined }), width);
}

export interface TaskListProps {
  rows: readonly ListRow[];
  selected: number;
  width: number;
  height: number;
  now: number;
}

/** The first row to show so that `selected` stays visible, centred when it can be. */
export function windowStart(count: number, selected: number, height: number): number {
  if (count <= height) return 0;
  return Math.min(Math.max(0, selected - Math.floor(height / 2)), count - height);
}

export function TaskList({ rows, selected, width, height, now }: TaskListProps) {
  const start = windowStart(rows.length, selected, height);
  const visible = rows.slice(start, start + height);
  const wide = width >= 100;
  const fixed = 2 + 15 + 22 + (wide ? 18 : 0) + 6 * 3;
  const message = Math.max(0, width - fixed - 2);
  return (
    <Box flexDirection="column">
      <Text dimColor>
        {fit("", 2)}
        {col("STATUS", 15)}
        {col("TOOL", 22)}
        {wide ? col("SERVER", 18) : ""}
        {col("AGE", 6)}
        {col("SINCE", 6)}
        {col("TTL", 6)}
        {fit("MESSAGE", message)}
      </Text>
      {visible.length === 0 ? <Text dimColor> no tasks match</Text> : null}
      {visible.map((row, i) => {
        const status = rowStatus(row.summary, now);
        const isSelected = start + i === selected;
        return (
          <Text key={row.stem} inverse={isSelected} wrap="truncate">
            <Text color={COLOR[status]} bold={row.asking}>
              {fit(row.asking ? "!" : SYMBOL[status], 2)}
            </Text>
            <Text color={COLOR[status]} bold={status === "input_required" || row.asking}>
              {col(status, 15)}
            </Text>
            {col(sanitizeLine(row.summary.tool), 22)}
            {wide ? col(sanitizeLine(row.summary.server), 18) : ""}
            {col(short(ageOf(row.summary, now)), 6)}
            {col(short(inStatus(row.summary, now)), 6)}
            {col(short(ttlLeft(row.summary, now)), 6)}
            {messageCell(row, status, message)}
          </Text>
        );
      })}
    </Box>
  );
}
