// Checks on what a server says about a task that need no schema: the poll interval kept to, a read about the task
// asked for, a completed task that brings its result. Kept apart from parse.ts (which loads the protocol's schemas)
// so that the engine can use them without loading those.
import { ProtocolViolation } from "../errors.js";
import { MAX_POLL_INTERVAL_MS, MAX_STATUS_MESSAGE, MIN_POLL_INTERVAL_MS } from "../limits.js";
import { sanitizeLine } from "../sanitize.js";
import type { Snapshot } from "./wire.js";

/** A task id as named in a message: cut at 40 characters, without control characters. */
const shown = (id: string) => sanitizeLine(id.length > 40 ? `${id.slice(0, 40)}…` : id);

/**
 * The poll interval mcp-task keeps to: the server's, within [MIN_POLL_INTERVAL_MS, MAX_POLL_INTERVAL_MS] (0 or below
 * would be a busy loop, 1e12 a timer that fires at once). Applied to every snapshot as it is parsed, so the engine,
 * the broker's own follow loop, the handle and the printers all see the interval that is really used.
 */
export function pollInterval(ms: number | undefined): number | undefined {
  if (ms === undefined || !Number.isFinite(ms)) return ms === undefined ? undefined : MIN_POLL_INTERVAL_MS;
  return Math.min(MAX_POLL_INTERVAL_MS, Math.max(MIN_POLL_INTERVAL_MS, ms));
}

/** Throws unless a reply about `taskId` is about that task (a server must not answer for one task with another). */
export function sameTaskOrThrow(snapshot: Snapshot, taskId: string, method: string): Snapshot {
  if (snapshot.taskId === taskId) return snapshot;
  throw new ProtocolViolation(
    `the server answered ${method} for task ${shown(taskId)} with another task (${shown(snapshot.taskId)})`,
  );
}

/**
 * A completed task carries its result, and only a failed one an error (both generations). A read that says completed
 * and brings an error, or no result, is a server contradicting itself: a ProtocolViolation (exit 4) that shows the
 * server's error, never a success with nothing to show. Thrown by the wires' reads before the snapshot goes up, so
 * that no handle records the task as completed.
 */
export function completedOrThrow(snapshot: Snapshot): Snapshot {
  if (snapshot.status !== "completed") return snapshot;
  if (snapshot.error) {
    const why = `${sanitizeLine(snapshot.error.message.slice(0, MAX_STATUS_MESSAGE))} (code ${snapshot.error.code})`;
    throw new ProtocolViolation(
      `the server says task ${shown(snapshot.taskId)} completed, but sent an error instead of its result: ${why}`,
      undefined,
      snapshot.taskId,
    );
  }
  if (!snapshot.result)
    throw new ProtocolViolation(
      `the server says task ${shown(snapshot.taskId)} completed, but sent no result`,
      undefined,
      snapshot.taskId,
    );
  return snapshot;
}
