// Small pure helpers the views share: a row's status, durations, row facts (the status palette is
// ../output/palette.ts). Row facts come from a handle's summary (what the dashboard keeps of every task); the detail
// view summarizes its handle.
import type { RowStatus } from "../output/palette.js";
import type { TaskStatus } from "../protocol/wire.js";
import { summaryExpired, ttlEnd } from "../tasks/expiry.js";
import type { HandleSummary } from "../model.js";

export function rowStatus(summary: HandleSummary, now: number): RowStatus {
  if (summary.gone !== null) return "gone";
  if (summaryExpired(summary, now)) return "expired";
  return summary.status as TaskStatus;
}

/** 4s, 12m, 3h, 2d; "-" for unknown (src/duration.ts). */
export { compactDuration as short } from "../duration.js";

export function ageOf(summary: HandleSummary, now: number): number {
  return now - Date.parse(summary.createdAt);
}

/** Time since the task entered its current status. */
export function inStatus(summary: HandleSummary, now: number): number {
  return summary.statusAt ? now - Date.parse(summary.statusAt) : NaN;
}

/** Time left before the ttl runs out; undefined when unlimited or finished (with its outcome saved). */
export function ttlLeft(summary: HandleSummary, now: number): number | undefined {
  const end = summary.outcome ? undefined : ttlEnd(summary);
  return end === undefined ? undefined : end - now;
}

/** Whether a duration shown for this task (its age, time in status, ttl left) still changes by the second. */
export function changesBySecond(summary: HandleSummary, now: number): boolean {
  if (!summary.final && !summaryExpired(summary, now)) return true; // running
  return [ageOf(summary, now), inStatus(summary, now), ttlLeft(summary, now)].some(
    (ms) => ms !== undefined && ms > -1000 && ms < 120_000,
  );
}

/** A table column: the text fitted into `width - 1` columns, then one space before the next column. */
export function col(text: string, width: number): string {
  return `${fit(text, width - 1)} `;
}

/** Fits text into `width` columns, with an ellipsis when cut. */
export function fit(text: string, width: number): string {
  if (width <= 0) return "";
  if (text.length <= width) return text.padEnd(width);
  return `${text.slice(0, Math.max(0, width - 1))}…`;
}
