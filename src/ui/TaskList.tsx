// The list of tasks: one row per handle, only the rows that fit on screen rendered (virtualised).
import { Box, Text } from "ink";
import { sanitizeLine } from "../sanitize.js";
import { COLOR, SYMBOL } from "../output/palette.js";
import { progressLine, rateOf } from "../output/progress-bar.js";
import { ageOf, col, fit, inStatus, rowStatus, short, ttlLeft } from "./format.js";
import type { TaskRow } from "./state.js";

/** A row of the list: the model's row (./model.ts) without its full handle, and whether the task asks a question. */
export type ListRow = Pick<TaskRow, "stem" | "summary" | "connection" | "progress" | "held"> & { asking: boolean };

/** Where another process holds the task's question (TaskRow.held), in a few words: the detail says what to do. */
export function heldCell(held: NonNullable<TaskRow["held"]>): string {
  return Number.isSafeInteger(held.pid) ? `(answered in pid ${held.pid})` : "(answered in another process)";
}

/** The message column: the progress bar while the task runs and reports it, then the status message. */
export function messageCell(row: ListRow, status: string, width: number): string {
  const note =
    row.connection === "error"
      ? "(unreachable)"
      : row.connection === "reconnecting"
        ? "(reconnecting)"
        : row.held
          ? heldCell(row.held)
          : "";
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
  /** No task is saved at all (not one hidden by a filter): the list says how to start one. */
  empty?: boolean;
}

/** The first row to show so that `selected` stays visible, centred when it can be. */
export function windowStart(count: number, selected: number, height: number): number {
  if (count <= height) return 0;
  return Math.min(Math.max(0, selected - Math.floor(height / 2)), count - height);
}

/** The width of each column of the list (each cell's last column is the space before the next one); 0: not shown. */
export interface Columns {
  status: number;
  tool: number;
  /** The task's id, short (after the tool: "a tool · its id", as a question's form names its task). */
  id: number;
  server: number;
  age: number;
  since: number;
  ttl: number;
  message: number;
}

/** What the selection mark and the symbol, the status, the id and the age take, whatever the width. */
const FIXED = 3 + 15 + 10 + 6;
/** The widths a tool and a server get where there is room, and the least each keeps. */
const TOOL = { most: 22, least: 12 };
const SERVER = { most: 18, least: 9 };
/** What the message keeps while the tool and the server give way (a progress bar, its rate and a word of message). */
const MESSAGE_LEAST = 23;
/** What it keeps while the ttl stays (a progress bar and its percentage and rate). */
const MESSAGE_FLOOR = 18;

/**
 * The columns at a terminal's width. The message shrinks first (to MESSAGE_LEAST), then the tool and the server (to
 * their least); then the time in the status goes, the message shrinks to MESSAGE_FLOOR, the ttl goes, and the message
 * shrinks to nothing; the server goes last. At 80 columns: status, tool, id, server, age, ttl and the message.
 */
export function columnsFor(width: number): Columns {
  // One column spare: a line that fills the terminal's last column wraps on some terminals.
  const rest = Math.max(0, width - 1 - FIXED);
  const fixed = { status: 15, id: 10, age: 6 };
  const wide = TOOL.most + SERVER.most + 6 + 6;
  if (rest >= wide + MESSAGE_LEAST)
    return { ...fixed, tool: TOOL.most, server: SERVER.most, since: 6, ttl: 6, message: rest - wide };
  const shrink = TOOL.most - TOOL.least + SERVER.most - SERVER.least;
  const missing = wide + MESSAGE_LEAST - rest;
  if (missing <= shrink) {
    // Tool and server each give their share of what is missing.
    const tool = TOOL.most - Math.round((missing * (TOOL.most - TOOL.least)) / shrink);
    const server = SERVER.most - (missing - (TOOL.most - tool));
    return { ...fixed, tool, server, since: 6, ttl: 6, message: MESSAGE_LEAST };
  }
  const least = TOOL.least + SERVER.least;
  const narrow = { ...fixed, tool: TOOL.least, server: SERVER.least };
  if (rest >= least + 6 + MESSAGE_FLOOR) return { ...narrow, since: 0, ttl: 6, message: rest - least - 6 };
  if (rest >= least) return { ...narrow, since: 0, ttl: 0, message: rest - least };
  return { ...narrow, tool: Math.min(TOOL.least, rest), server: 0, since: 0, ttl: 0, message: 0 };
}

/** A task id as the list shows it: its first 8 characters and an ellipsis (a prefix `watch`, `get`... take). */
export function shortId(taskId: string): string {
  const id = sanitizeLine(taskId);
  return id.length > 9 ? `${id.slice(0, 8)}…` : id;
}

/** How to start, where no task is saved yet. */
export const EMPTY_HOME = [
  " no tasks yet. Start one:",
  "   mcp-task demo                      a demo server and its tasks",
  "   mcp-task call <tool> -s <server>   a tool of your server, as a task",
  "   n                                  a new call from here, on a saved server",
];

export function TaskList({ rows, selected, width, height, now, empty = false }: TaskListProps) {
  const start = windowStart(rows.length, selected, height);
  const visible = rows.slice(start, start + height);
  const c = columnsFor(width);
  return (
    <Box flexDirection="column">
      <Text dimColor wrap="truncate">
        {fit("", 3)}
        {col("STATUS", c.status)}
        {col("TOOL", c.tool)}
        {col("ID", c.id)}
        {c.server ? col("SERVER", c.server) : ""}
        {col("AGE", c.age)}
        {c.since ? col("SINCE", c.since) : ""}
        {c.ttl ? col("TTL", c.ttl) : ""}
        {fit("MESSAGE", c.message)}
      </Text>
      {empty ? (
        EMPTY_HOME.map((line) => (
          <Text key={line} wrap="truncate">
            {line}
          </Text>
        ))
      ) : visible.length === 0 ? (
        <Text dimColor> no tasks match</Text>
      ) : null}
      {visible.map((row, i) => {
        const status = rowStatus(row.summary, now);
        const isSelected = start + i === selected;
        return (
          <Text key={row.stem} inverse={isSelected} wrap="truncate">
            {/* The selection shows without colour too (NO_COLOR drops the inverse). */}
            {isSelected ? "›" : " "}
            <Text color={COLOR[status]} bold={row.asking}>
              {fit(row.asking ? "!" : SYMBOL[status], 2)}
            </Text>
            <Text color={COLOR[status]} bold={status === "input_required" || row.asking}>
              {col(status, c.status)}
            </Text>
            {col(sanitizeLine(row.summary.tool), c.tool)}
            {col(shortId(row.summary.taskId), c.id)}
            {c.server ? col(sanitizeLine(row.summary.server), c.server) : ""}
            {col(short(ageOf(row.summary, now)), c.age)}
            {c.since ? col(short(inStatus(row.summary, now)), c.since) : ""}
            {c.ttl ? col(short(ttlLeft(row.summary, now)), c.ttl) : ""}
            {messageCell(row, status, c.message)}
          </Text>
        );
      })}
    </Box>
  );
}
