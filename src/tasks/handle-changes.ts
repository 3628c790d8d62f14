// How a snapshot changes a task's handle: its `last`, poll interval and ttl, and its history (bounded), applied
// to the handle in memory at once and to the handle as saved when it is written (tasks/tracker.ts).
import type { Handle, HistoryEntry } from "../model.js";
import { isTerminal, type Snapshot } from "../protocol/wire.js";
import { MAX_HISTORY_ENTRIES, MAX_HISTORY_MESSAGES } from "../limits.js";

/** The part of a snapshot kept as `last` (the result lives in `outcome`): the snapshot itself when it has none. */
export function withoutResult(snapshot: Snapshot): Omit<Snapshot, "result"> {
  if (snapshot.result === undefined) return snapshot;
  const { result: _result, ...rest } = snapshot;
  return rest;
}

/** Message-only observations of a task not yet written: the newest, and the history entries they added. */
export interface Observed {
  snapshot: Snapshot;
  entries: HistoryEntry[];
  pollIntervalMs?: number;
  ttlMs?: number | null;
}

/** Can a snapshot of this status change the handle? A terminal status is final: one read before it never writes
 *  over it (a slower follower, a batched write, a broker's own reading). */
function open(handle: Handle, status: Snapshot["status"]): boolean {
  return !((handle.outcome || isTerminal(handle.last.status)) && handle.last.status !== status);
}

function setLast(handle: Handle, snapshot: Snapshot, pollIntervalMs?: number, ttlMs?: number | null): void {
  handle.last = withoutResult(snapshot);
  if (pollIntervalMs !== undefined) handle.pollIntervalMs = pollIntervalMs;
  if (ttlMs !== undefined) handle.ttlMs = ttlMs;
}

/**
 * Applies a snapshot to a handle; returns the history entry it added (none when the message is as before). Without
 * the objects of an Observed around it: this runs at each new message of each followed task.
 */
export function applySnapshot(handle: Handle, snapshot: Snapshot, at: string): HistoryEntry | undefined {
  if (!open(handle, snapshot.status)) return undefined;
  setLast(handle, snapshot, snapshot.pollIntervalMs, snapshot.ttlMs);
  const { status, statusMessage } = snapshot;
  const entry: HistoryEntry = statusMessage ? { status, statusMessage, at } : { status, at };
  return appendEntry(handle, entry) ? entry : undefined;
}

/**
 * Applies observations (a batch merged: see Observed) to a handle, in memory or as saved (another process may have
 * written it since); returns the history entries it added.
 */
export function applyObserved(handle: Handle, observed: Observed): HistoryEntry[] {
  if (!open(handle, observed.snapshot.status)) return [];
  setLast(handle, observed.snapshot, observed.pollIntervalMs, observed.ttlMs);
  return observed.entries.filter((entry) => appendEntry(handle, entry));
}

/** Appends a history entry unless the last one says the same; keeps the history within its bounds. */
function appendEntry(handle: Handle, entry: HistoryEntry): boolean {
  const prev = handle.history.at(-1);
  if (prev && prev.status === entry.status && (prev.statusMessage ?? "") === (entry.statusMessage ?? "")) return false;
  handle.history.push(entry);
  trimHistory(handle.history);
  return true;
}

/**
 * Keeps a handle's history within MAX_HISTORY_ENTRIES, with at most MAX_HISTORY_MESSAGES entries that only changed
 * the message: the first entry stays, then the oldest entries that only changed the message go first (a status
 * change is what a history is for), then the oldest.
 */
export function trimHistory(history: Handle["history"]): void {
  const messageOnly = (entry: HistoryEntry, at: number) => at > 0 && history[at - 1].status === entry.status;
  // Counted in a loop, not with filter: this runs at every new message of every followed task (a dashboard's 1,000
  // tasks: 1,000 times a second), and the array filter made each time was garbage at once.
  let messages = 0;
  for (let at = 1; at < history.length; at++) if (messageOnly(history[at], at)) messages++;
  if (messages <= MAX_HISTORY_MESSAGES && history.length <= MAX_HISTORY_ENTRIES) return;
  while (messages > MAX_HISTORY_MESSAGES) {
    removeAt(history, history.findIndex(messageOnly));
    messages--;
  }
  while (history.length > MAX_HISTORY_ENTRIES) removeAt(history, Math.max(1, history.findIndex(messageOnly)));
}

/**
 * Removes one entry in place: a splice returns an array of what it removed, garbage at once (see trimHistory), and
 * copyWithin and a length set are calls into V8's runtime (1.4 µs for a history of 21 entries, against 0.15 for
 * this loop, measured).
 */
function removeAt(history: Handle["history"], at: number): void {
  for (let i = at; i < history.length - 1; i++) history[i] = history[i + 1];
  history.pop();
}
