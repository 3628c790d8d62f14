// What `get`, `list` and `export` show of a handle: one plain object for JSON, and a line or block of text.
import type { InputRequest } from "../protocol/wire.js";
import { summaryView, type Handle, type HandleSummary, type HandleView } from "../model.js";
import { summarize } from "../store/handle-file.js";
import { summaryExpired } from "./expiry.js";
import { compactDuration } from "../duration.js";

export function viewOf(handle: Handle, now: number): HandleView {
  return viewOfSummary(summarize("", handle, 0), now);
}

/** The view of a summary; its fields in this order (the JSON objects' order). */
export function viewOfSummary(s: HandleSummary, now: number): HandleView {
  return summaryView(s, summaryExpired(s, now));
}

/** "3m", "2h", "5d": a short age (src/duration.ts). */
export function age(fromIso: string, now: number): string {
  return compactDuration(now - Date.parse(fromIso));
}

/** The questions of a task as `get` and `respond` print them in JSON (`inputRequests`). */
export function questionViews(requests: InputRequest[]) {
  return requests.map((r) => ({
    key: r.key,
    method: r.method,
    message: r.params.message ?? null,
    ...(r.unattributed && { unattributed: true }),
  }));
}
