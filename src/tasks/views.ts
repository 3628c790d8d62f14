// What `get`, `list` and `export` show of a handle: one plain object for JSON, and a line or block of text.
import { summarize, type Handle, type HandleSummary } from "../store/handles.js";
import { summaryExpired } from "./tracker.js";
import { compactDuration } from "../duration.js";

export interface HandleView {
  taskId: string;
  server: string;
  tool: string;
  generation: string;
  status: string;
  statusMessage: string | null;
  createdAt: string;
  updatedAt: string;
  ttlMs: number | null;
  pollIntervalMs: number | null;
  expired: boolean;
  gone: string | null;
}

export function viewOf(handle: Handle, now: number): HandleView {
  return viewOfSummary(summarize("", handle, 0), now);
}

export function viewOfSummary(s: HandleSummary, now: number): HandleView {
  return {
    taskId: s.taskId,
    server: s.server,
    tool: s.tool,
    generation: s.generation,
    status: s.status,
    statusMessage: s.statusMessage,
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
    ttlMs: s.ttlMs,
    pollIntervalMs: s.pollIntervalMs,
    expired: summaryExpired(s, now),
    gone: s.gone,
  };
}

/** "3m", "2h", "5d": a short age (src/duration.ts). */
export function age(fromIso: string, now: number): string {
  return compactDuration(now - Date.parse(fromIso));
}
