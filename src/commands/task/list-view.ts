// What `list` is asked for, and which tasks it shows (a task's line: src/output/list-line.ts).
import type { Context } from "../../context.js";
import type { HandleView } from "../../model.js";
import { ttlEnd } from "../../tasks/expiry.js";
import type { ServerDescriptor } from "../../protocol/server.js";
import { resolveServer } from "../resolve-server.js";
import { shownStatus } from "../../output/list-line.js";

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

/**
 * Whether `list --status wanted` keeps a row: its status as shown is wanted; and `expired` means past its ttl, so a
 * gone task whose ttl had passed is one too (a gone task with no ttl, or one not yet run out, is only `gone`).
 */
export function statusWanted(row: HandleView, wanted: readonly string[], now: number): boolean {
  if (wanted.includes(shownStatus(row))) return true;
  if (!row.gone || !wanted.includes("expired")) return false;
  const end = ttlEnd({ createdAt: row.createdAt, taskCreatedAt: null, ttlMs: row.ttlMs });
  return end !== undefined && now > end;
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
