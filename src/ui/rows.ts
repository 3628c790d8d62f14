// Which rows the list shows, in which order: pure, so that filtering and sorting are tested without a terminal.
import { sanitizeLine } from "../sanitize.js";
import { rowStatus } from "./format.js";
import type { TaskRow } from "./state.js";
import type { Question } from "../ask/queue.js";
import type { ListRow } from "./TaskList.js";

export const STATUS_FILTERS = ["all", "live", "input", "finished", "expired"] as const;
export type StatusFilter = (typeof STATUS_FILTERS)[number];
export const SORTS = ["newest", "oldest", "status", "server", "tool"] as const;
export type Sort = (typeof SORTS)[number];

const STATUS_ORDER = ["input_required", "working", "failed", "expired", "gone", "cancelled", "completed"];

export function visibleRows(
  rows: readonly TaskRow[],
  questions: readonly Question[],
  options: { text: string; status: StatusFilter; sort: Sort; now: number },
): ListRow[] {
  const asking = new Set(questions.map((q) => q.taskId));
  const needle = options.text.trim().toLowerCase();
  // One object a row, kept as it is shown (its status too, which sorting reads), in one pass: this runs at every frame
  // of a dashboard following 1,000 tasks, where each row made, filtered twice and made again without its status was
  // two objects a row and four arrays of rows a frame, kept until the next frame.
  const out: Array<ListRow & { status: string }> = [];
  for (const row of rows) {
    const listed = {
      stem: row.stem,
      summary: row.summary,
      connection: row.connection,
      progress: row.progress ?? row.handle?.progress,
      held: row.held,
      asking: asking.has(row.summary.taskId),
      status: rowStatus(row.summary, options.now),
    };
    if (shown(listed, options.status, needle)) out.push(listed);
  }
  // Times in one ISO format compare as strings: no localeCompare (each one a call into ICU, 10,000 a sort).
  const byCreated = (a: ListRow, b: ListRow) => {
    const x = a.summary.createdAt;
    const y = b.summary.createdAt;
    return x < y ? 1 : x > y ? -1 : 0;
  };
  const compare: Record<Sort, (a: (typeof out)[number], b: (typeof out)[number]) => number> = {
    newest: byCreated,
    oldest: (a, b) => -byCreated(a, b),
    status: (a, b) =>
      Number(b.asking) - Number(a.asking) ||
      STATUS_ORDER.indexOf(a.status) - STATUS_ORDER.indexOf(b.status) ||
      byCreated(a, b),
    server: (a, b) => a.summary.server.localeCompare(b.summary.server) || byCreated(a, b),
    tool: (a, b) => a.summary.tool.localeCompare(b.summary.tool) || byCreated(a, b),
  };
  return out.sort(compare[options.sort]);
}

/** Whether a row passes the status filter and the text filter. */
function shown(row: ListRow & { status: string }, status: StatusFilter, needle: string): boolean {
  switch (status) {
    case "live":
      if (row.status !== "working" && row.status !== "input_required") return false;
      break;
    case "input":
      if (row.status !== "input_required" && !row.asking) return false;
      break;
    case "finished":
      if (row.status !== "completed" && row.status !== "failed" && row.status !== "cancelled") return false;
      break;
    case "expired":
      if (row.status !== "expired" && row.status !== "gone") return false;
      break;
  }
  if (!needle) return true;
  const s = row.summary;
  return [s.taskId, s.tool, s.server, s.statusMessage ?? "", row.status].some((field) =>
    sanitizeLine(field).toLowerCase().includes(needle),
  );
}

type RowsOptions = Parameters<typeof visibleRows>[2];

/**
 * visibleRows with the last answer kept: the render and the keys ask it of the same rows, questions and options (a
 * key asks it of the view as the keys before it left it, before a frame is drawn), and each answer is one sort of
 * every row.
 */
export function lastVisibleRows(): (
  rows: readonly TaskRow[],
  questions: readonly Question[],
  o: RowsOptions,
) => ListRow[] {
  let last: { rows: readonly TaskRow[]; questions: readonly Question[]; o: RowsOptions; out: ListRow[] } | undefined;
  return (rows, questions, o) => {
    const same =
      last &&
      last.rows === rows &&
      last.questions === questions &&
      last.o.text === o.text &&
      last.o.status === o.status &&
      last.o.sort === o.sort &&
      last.o.now === o.now;
    if (!same) last = { rows, questions, o, out: visibleRows(rows, questions, o) };
    return last!.out;
  };
}
