// `list --remote`: a server's own `tasks/list`, read page by page within bounds (a server decides how many pages there
// are and what each holds: it cannot make mcp-task read, or keep, without end).
import { ListCutError } from "../../errors.js";
import { MAX_REMOTE_LIST_PAGES, MAX_REMOTE_LIST_ROWS } from "../../limits.js";
import { sanitizeLine } from "../../sanitize.js";
import type { HandleView } from "../../model.js";
import type { Wire } from "../../protocol/wire.js";

export type RemoteRow = HandleView & { remoteOnly?: boolean };

/**
 * The server's tasks that `known` does not hold (each added to it: a task listed twice is one row), as rows of `list`
 * (marked remoteOnly), and, where its list was not read to its end (past MAX_REMOTE_LIST_ROWS tasks or
 * MAX_REMOTE_LIST_PAGES pages, or a cursor it gave before), the error that says so, to be thrown once the rows read
 * are printed.
 */
export async function remoteRows(
  wire: Wire,
  server: string,
  known: Set<string>,
): Promise<{ rows: RemoteRow[]; cut?: ListCutError }> {
  const rows: RemoteRow[] = [];
  const cursors = new Set<string>();
  let read = 0;
  for (let cursor: string | undefined, pages = 0; ;) {
    if (pages === MAX_REMOTE_LIST_PAGES) return { rows, cut: cutAt(server, read, pages, "pages") };
    const page = await wire.listTasks(cursor);
    pages++;
    // Past the bound the rest of the page is not looked at (nor kept).
    const room = MAX_REMOTE_LIST_ROWS - read;
    const over = page.tasks.length > room;
    const tasks = over ? page.tasks.slice(0, room) : page.tasks;
    read += tasks.length;
    for (const task of tasks) {
      if (known.has(task.taskId)) continue;
      known.add(task.taskId);
      rows.push({
        taskId: task.taskId,
        server,
        tool: "?",
        generation: wire.capabilities.generation,
        status: task.status,
        statusMessage: task.statusMessage ?? null,
        createdAt: task.createdAt ?? "",
        updatedAt: task.lastUpdatedAt ?? "",
        ttlMs: task.ttlMs ?? null,
        pollIntervalMs: task.pollIntervalMs ?? null,
        expired: false,
        gone: null,
        remoteOnly: true,
      });
    }
    if (over) return { rows, cut: cutAt(server, read, pages, "rows") };
    cursor = page.nextCursor;
    if (!cursor) return { rows };
    if (cursors.has(cursor)) {
      return {
        rows,
        cut: new ListCutError(
          `${sanitizeLine(server)}'s task list was cut after ${read} tasks (${pages} pages): the server gave a cursor it had given before (its pages loop)`,
          "the tasks above are those read; the server's list repeats itself from there",
        ),
      };
    }
    cursors.add(cursor);
  }
}

function cutAt(server: string, read: number, pages: number, bound: "rows" | "pages"): ListCutError {
  const limit =
    bound === "rows"
      ? `${MAX_REMOTE_LIST_ROWS} tasks (MAX_REMOTE_LIST_ROWS)`
      : `${MAX_REMOTE_LIST_PAGES} pages (MAX_REMOTE_LIST_PAGES)`;
  return new ListCutError(
    `${sanitizeLine(server)}'s task list was cut at ${limit}: ${read} tasks in ${pages} pages read, and the server has more`,
    "the tasks above are those read; the rest of the server's list was not",
  );
}
