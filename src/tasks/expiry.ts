// When a task's ttl runs out: the one place that does the ttl arithmetic, for the handle's summary (`list`, `prune`,
// the dashboard's rows and countdowns) and for the broker's own view of the tasks it holds.
import type { HandleSummary } from "../model.js";
import { MAX_CLOCK_SKEW_MS } from "../limits.js";

/** The task is past its ttl (or its server lost it) and not known to be finished: on a handle's summary. */
export function summaryExpired(summary: HandleSummary, now: number): boolean {
  if (summary.final) return false;
  if (summary.gone) return true;
  const end = ttlEnd(summary);
  return end !== undefined && now > end;
}

/**
 * When the task's ttl runs out (ms since the epoch): from when it starts counting (expiryBase), plus the ttl;
 * undefined when the ttl is unlimited (null) or the start cannot be told.
 */
export function ttlEnd(task: Pick<HandleSummary, "createdAt" | "taskCreatedAt" | "ttlMs">): number | undefined {
  if (task.ttlMs === null) return undefined;
  const created = expiryBase(task);
  return created === undefined ? undefined : created + task.ttlMs;
}

/**
 * When a task's ttl starts counting (ms): the server's createdAt where it is within MAX_CLOCK_SKEW_MS of when
 * mcp-task first saw the task (the handle's createdAt), else that first sight. A createdAt in year 9999 (a task that
 * would never expire) or in 1970 (one expired before it began) is not believed.
 */
function expiryBase(summary: Pick<HandleSummary, "createdAt" | "taskCreatedAt">): number | undefined {
  const seen = Date.parse(summary.createdAt);
  const server = summary.taskCreatedAt === null ? NaN : Date.parse(summary.taskCreatedAt);
  if (Number.isFinite(server) && (!Number.isFinite(seen) || Math.abs(server - seen) <= MAX_CLOCK_SKEW_MS))
    return server;
  return Number.isFinite(seen) ? seen : undefined;
}
