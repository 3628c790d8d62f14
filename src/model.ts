// The model types every layer shares, below all of them: a clock, and what a task ended with. (Snapshots, statuses
// and requests are in protocol/wire.ts, the one place that defines what a server sends.)
import type { CallToolResult, InputRequest, TaskError } from "./protocol/wire.js";

export interface Clock {
  now(): number;
  /** Resolves after `ms`, or early when `signal` aborts; never rejects. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** How a task ended: completed with a result, failed with an error (or a tool error), or cancelled. */
export interface FinalOutcome {
  taskId: string | null;
  status: "completed" | "failed" | "cancelled";
  result?: CallToolResult;
  error?: TaskError;
  /** Set when structuredContent breaks the tool's outputSchema. */
  outputProblem?: string;
}

/**
 * What became of answers whose delivery was in doubt (the connection failed while they were on their way):
 * `uncertain` when it happens, then, with the next read of the task, `taken` (the server has them), `resending`
 * (it did not take them: sent again under the same keys) or `askAgain` (the task still waits: the answer is given
 * again when the server asks again).
 */
export type DeliveryEvent =
  | { kind: "uncertain"; taskId: string; requests: InputRequest[]; error: Error }
  | { kind: "taken" | "resending" | "askAgain"; taskId: string; requests: InputRequest[] };
