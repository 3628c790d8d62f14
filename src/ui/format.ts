// Small pure helpers the views share: status symbols (readable without colour), durations, row facts.
import { isTerminal, type TaskStatus } from "../protocol/wire.js";
import { handleExpired } from "../tasks/tracker.js";
import type { Handle } from "../store/handles.js";

export type RowStatus = TaskStatus | "expired" | "gone";

export const SYMBOL: Record<RowStatus, string> = {
  working: "◐",
  input_required: "?",
  completed: "✓",
  failed: "✗",
  cancelled: "⊘",
  expired: "⌛",
  gone: "∅",
};

export const COLOR: Record<RowStatus, string> = {
  working: "cyan",
  input_required: "magenta",
  completed: "green",
  failed: "red",
  cancelled: "yellow",
  expired: "gray",
  gone: "gray",
};

export function rowStatus(handle: Handle, now: number): RowStatus {
  if (handle.gone) return "gone";
  const status = handle.outcome?.status ?? handle.last.status;
  if (handleExpired(handle, now)) return "expired";
  return status;
}

/** 4s, 12m, 3h, 2d; "-" for unknown. */
export function short(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) return "-";
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}

export function ageOf(handle: Handle, now: number): number {
  return now - Date.parse(handle.createdAt);
}

/** Time since the task entered its current status. */
export function inStatus(handle: Handle, now: number): number {
  const at = handle.history.at(-1)?.at;
  return at ? now - Date.parse(at) : NaN;
}

/** Time left before the ttl runs out; undefined when unlimited or finished. */
export function ttlLeft(handle: Handle, now: number): number | undefined {
  if (handle.outcome || handle.ttlMs === null || handle.ttlMs === undefined) return undefined;
  return Date.parse(handle.last.createdAt ?? handle.createdAt) + handle.ttlMs - now;
}

/** Whether a duration shown for this task (its age, time in status, ttl left) still changes by the second. */
export function changesBySecond(handle: Handle, now: number): boolean {
  if (!handle.outcome && !isTerminal(handle.last.status) && !handleExpired(handle, now)) return true; // running
  return [ageOf(handle, now), inStatus(handle, now), ttlLeft(handle, now)].some((ms) => ms !== undefined && ms > -1000 && ms < 120_000);
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
