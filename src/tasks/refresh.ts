// `list --status` asks about live status: a saved task's last status may be long out of date (a V2 HTTP task that
// nothing followed stays `working` in its handle after it completed). The unfinished tasks a live filter is about to
// print are read again first, one `tasks/get` each, through one connection per server (reconnect.ts), bounded in
// number and in time; what was read is saved to the handles as `get` saves it. A plain `list` reads no server.
import type { Clock, Handle, HandleSummary } from "../model.js";
import { cutText, describeError } from "../errors.js";
import { sanitizeLine } from "../sanitize.js";
import { LIST_REFRESH_CONCURRENCY, LIST_REFRESH_MS, MAX_LIST_REFRESH_READS } from "../limits.js";
import { isTerminal } from "../protocol/wire.js";
import { descriptorKey } from "../protocol/server.js";
import type { HandleStore } from "../store/handles.js";
import { summarize } from "../store/handle-file.js";
import { markingGone } from "./handle-events.js";
import { preparedAnswers } from "./input.js";
import { ServerLinks, type ReconnectContext } from "./reconnect.js";
import { summaryExpired } from "./expiry.js";
import { TrackedTask } from "./tracker.js";
import { settle } from "./settle.js";

/** What a refresh did: the summaries as read again (by stem), and how many of those asked for were not read. */
export interface Refreshed {
  summaries: Map<string, HandleSummary>;
  /** Not read: past MAX_LIST_REFRESH_READS, past LIST_REFRESH_MS, or their server not reached. */
  unread: number;
  /** The first reason a read failed (a server not reached), for the note. */
  why?: string;
}

/** The summaries a live filter needs read again: unfinished, not gone, not past their ttl. */
export function needsRead(summary: HandleSummary, now: number): boolean {
  return !summary.final && !summary.gone && !isTerminal(summary.status) && !summaryExpired(summary, now);
}

/**
 * Reads `stale` (newest first; at most MAX_LIST_REFRESH_READS of them) again within LIST_REFRESH_MS, and saves what
 * was read to their handles. Reads never answer a question.
 */
export async function refreshSummaries(
  stale: HandleSummary[],
  store: HandleStore,
  ctx: ReconnectContext & { clock: Clock },
): Promise<Refreshed> {
  const summaries = new Map<string, HandleSummary>();
  const out: Refreshed = { summaries, unread: 0 };
  const todo = stale.slice(0, MAX_LIST_REFRESH_READS);
  const links = new ServerLinks(ctx, preparedAnswers({}));
  const unreachable = new Set<string>();
  const stop = new AbortController();
  const read = new Set<string>();
  let next = 0;
  const worker = async () => {
    while (next < todo.length && !stop.signal.aborted) {
      const summary = todo[next++]!;
      try {
        const handle = loadQuietly(store, summary.stem);
        if (!handle || handle.outcome || handle.gone) continue;
        const key = descriptorKey(handle.server.descriptor);
        if (unreachable.has(key)) continue;
        const tracked = new TrackedTask(store, ctx.clock, summary.stem, handle);
        // Reached as its handle says, without marking it gone when its connection cannot be made (a stdio task's
        // broker not running here may run in another home): `list` changes a handle only by what a server said.
        const { wire, engine } = await links.linkOf({ handle }).catch((error: unknown) => {
          unreachable.add(key);
          throw error;
        });
        const snapshot = await markingGone(tracked, () => wire.getTask(tracked.taskId, stop.signal));
        await tracked.observe(snapshot);
        if (isTerminal(snapshot.status) && !tracked.handle.outcome)
          await settle(tracked, snapshot, engine, stop.signal);
        await tracked.flush();
        summaries.set(summary.stem, summarize(summary.stem, tracked.handle, ctx.clock.now()));
        read.add(summary.stem);
      } catch (error) {
        // Not read: shown as saved (a handle marked gone because the server no longer knows the task, as such).
        if (!stop.signal.aborted) out.why ??= describeError(error).message;
        const handle = loadQuietly(store, summary.stem);
        if (handle) summaries.set(summary.stem, summarize(summary.stem, handle, ctx.clock.now()));
        if (handle?.gone) read.add(summary.stem);
      }
    }
  };
  // Bounded in time as a whole: a server that does not answer (or a connection that does not open) holds no list;
  // its reads are given up, and the rows are printed as last seen.
  const timer = new AbortController();
  const workers = Promise.all(Array.from({ length: Math.min(LIST_REFRESH_CONCURRENCY, todo.length) }, worker));
  try {
    await Promise.race([workers, ctx.clock.sleep(LIST_REFRESH_MS, timer.signal).catch(() => {})]);
  } finally {
    stop.abort();
    timer.abort();
    void links.close();
  }
  out.unread = stale.length - read.size;
  return out;
}

/** A handle as saved; undefined when it is gone or unreadable (the list reports those as it does without a read). */
function loadQuietly(store: HandleStore, stem: string): Handle | undefined {
  try {
    return store.load(stem);
  } catch {
    return undefined;
  }
}

/** The statuses a filter may ask for that a saved handle cannot vouch for: only a read tells. */
const LIVE = new Set(["working", "input_required"]);

/** Whether `list --status` asks about live status (then the unfinished tasks it prints are read again). */
export const asksLive = (wanted: readonly string[] | undefined): boolean => wanted?.some((s) => LIVE.has(s)) ?? false;

/**
 * The summaries with those `needsRead` picks (of server `server`, when given) read again, newest first; `note` hears
 * how many were not read, and why.
 */
export async function withLiveStatus(
  all: HandleSummary[],
  server: string | undefined,
  store: HandleStore,
  ctx: ReconnectContext & { clock: Clock },
  note: (text: string) => void,
): Promise<HandleSummary[]> {
  const now = ctx.clock.now();
  const stale = all
    .filter((summary) => (server === undefined || summary.server === server) && needsRead(summary, now))
    .sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt));
  if (stale.length === 0) return all;
  const { summaries, unread, why } = await refreshSummaries(stale, store, ctx);
  if (unread > 0)
    note(
      `${unread} unfinished task(s) shown as last seen, not read again` +
        (why
          ? `: ${cutText(sanitizeLine(why))}`
          : ` (at most ${MAX_LIST_REFRESH_READS}, within ${LIST_REFRESH_MS / 1000} s)`),
    );
  return all.map((summary) => summaries.get(summary.stem) ?? summary);
}
