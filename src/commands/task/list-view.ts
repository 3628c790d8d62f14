// What `list` is asked for, and how it shows a task: one line, its status as shown (`gone`, `expired`, else its own).
import type { Context } from "../../context.js";
import type { HandleView } from "../../model.js";
import { sanitizeLine } from "../../sanitize.js";
import { age } from "../../tasks/views.js";
import type { ServerDescriptor } from "../../protocol/server.js";
import { resolveServer } from "../resolve-server.js";

export interface ListOptions {
  server?: string;
  /** Only these statuses (a task status, `expired` or `gone`). */
  status?: string[];
  remote: boolean;
  /** Go on after the list: a line (or JSON line) for each change, until Ctrl-C. */
  watch: boolean;
  json: boolean;
  /** Every task on a terminal too (else the newest LIST_PAGE_ROWS there). */
  all: boolean;
}

/** One task as a line of the list. */
export function rowLine(row: HandleView & { remoteOnly?: boolean }, now: number): string {
  const message = row.statusMessage ? `  ${sanitizeLine(row.statusMessage).slice(0, 60)}` : "";
  return `${sanitizeLine(row.taskId).padEnd(36)}  ${shownStatus(row).padEnd(14)} ${age(row.createdAt, now).padStart(4)}  ${sanitizeLine(row.tool)} @ ${sanitizeLine(row.server)}${row.remoteOnly ? " (server only)" : ""}${message}`;
}

/** The status a row shows: `gone` (the server lost it), `expired` (past its ttl, not known finished), else its own. */
export function shownStatus(row: HandleView): string {
  return row.gone ? "gone" : row.expired ? "expired" : row.status;
}

/**
 * The server `-s` picks for a list: one a saved task names (as `get -s` takes it, a `--stdio` command line too), a
 * saved server or a URL; any other name is exit 2, with or without --watch.
 */
export async function serverFilter(
  wanted: string | undefined,
  rows: HandleView[],
  ctx: Context,
): Promise<string | undefined> {
  if (wanted === undefined || rows.some((row) => row.server === wanted)) return wanted;
  return (await resolveServer({ server: wanted }, ctx)).name;
}

/**
 * The server `list --remote -s` asks: a saved server, a URL, else the server of a saved task that names it so (a
 * `--stdio` command line as `list` shows it), with that task's own descriptor (its broker is found by it).
 */
export async function remoteServer(
  wanted: string | undefined,
  rows: HandleView[],
  ctx: Context,
): Promise<{ name: string; descriptor: ServerDescriptor }> {
  const settings = await ctx.loadSettings();
  const named = wanted !== undefined && !/^https?:\/\//i.test(wanted) && !settings.server(wanted);
  const row = named ? rows.find((r) => r.server === wanted) : undefined;
  if (!row) return resolveServer({ server: wanted }, ctx);
  const { handle } = await ctx.tracker.store.find(row.taskId, row.server);
  return { name: handle.server.name, descriptor: handle.server.descriptor };
}
