// The model types every layer shares, below the engine: a clock, a task as data (its saved handle, the handle's
// summary, the view `get`/`list` print) and what a task ended with. Snapshots, statuses and requests are in
// protocol/wire.ts, the one place that defines what a server sends; the types here build on them.
import type { ServerDescriptor } from "./protocol/server.js";
import type {
  CallToolResult,
  InputRequest,
  Progress,
  ResumeToken,
  Snapshot,
  TaskError,
  TaskStatus,
} from "./protocol/wire.js";

/**
 * Time, in two readings. `now`: the wall clock (ms since the epoch), for what is shown or stored and for comparing
 * with a server's ISO times (createdAt, a ttl's expiry). `monotonic`: ms since an arbitrary origin, never stepping
 * back, for every wait, timeout, deadline, poll schedule, give-up and backoff: the wall clock steps (NTP, a
 * restored VM), and a wait timed on it stalled by the size of the step.
 */
export interface Clock {
  now(): number;
  monotonic(): number;
  /** Resolves after `ms` (on the monotonic clock), or early when `signal` aborts; never rejects. */
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

export interface HistoryEntry {
  status: TaskStatus;
  statusMessage?: string;
  at: string;
}

/** The saved record of a task (src/store/handles.ts keeps one JSON file per task). */
export interface Handle {
  version: 1;
  taskId: string;
  /** The server as given: a saved name (or the URL / command line) and its descriptor, secrets as ${env:} refs. */
  server: { name: string; descriptor: ServerDescriptor };
  resume: ResumeToken;
  tool: string;
  arguments: Record<string, unknown>;
  /** When mcp-task saw the task created (ISO). */
  createdAt: string;
  updatedAt: string;
  ttlMs?: number | null;
  pollIntervalMs?: number;
  /** The last snapshot seen (without the result, which is in `outcome`). */
  last: Omit<Snapshot, "result">;
  history: HistoryEntry[];
  /** Input keys already answered: never answered twice, from any process. */
  answered: string[];
  outcome?: FinalOutcome;
  /**
   * Set when the server no longer knows the task (expired, or lost). `notFound`: the server said so (or its ttl
   * passed), where a later command answers "not found" (exit 5); without it the task died with its stdio server.
   */
  gone?: { at: string; reason: string; notFound?: boolean };
  /**
   * Saved here by `import` from another home (`from`: that home's mark, see src/broker/held.ts): a stdio task runs
   * in that home's broker, and a V1 question it asked before was handed to that home's keeper; neither is reachable
   * from here.
   */
  imported?: { at: string; from?: string };
  /**
   * The V1 question the keeper of the task's session held for it was dropped when that keeper stopped (`server
   * stop`, an interrupt): a V1 server hands a question over once, so it cannot come again.
   */
  questionDropped?: { at: string; reason: string };
  /**
   * The last progress the server reported (`notifications/progress`), and when: a later `watch` shows it; with the
   * first report the same process saw, for the rate (the dashboard's row).
   */
  progress?: Progress & { at: string; first?: { progress: number; at: string } };
  /** Started for an agent through `mcp-task serve` (whose task tools reach only such tasks). */
  via?: "serve";
}

/**
 * What `list`, `prune` and the dashboard's rows (list, filters, sorting, ages, ttl left) need of a handle: the
 * handle index keeps one per handle (src/store/summary-index.ts).
 */
export interface HandleSummary {
  stem: string;
  /** The handle file's modification time when this summary was written (ms, as `fs.Stats.mtimeMs`). */
  mtime: number;
  taskId: string;
  server: string;
  tool: string;
  generation: string;
  /** The outcome's status once there is one, else the last status seen. */
  status: TaskStatus;
  statusMessage: string | null;
  createdAt: string;
  /** The server's createdAt, when it gave one (the task's ttl counts from it). */
  taskCreatedAt: string | null;
  updatedAt: string;
  ttlMs: number | null;
  pollIntervalMs: number | null;
  gone: string | null;
  /** The task has an outcome or a terminal status: its file no longer changes. */
  final: boolean;
  /** When the task entered its current status (the last history entry's time), if known. */
  statusAt: string | null;
  /** The handle holds the final outcome (a task whose result was too large to keep is final without one). */
  outcome: boolean;
}

/** What `get`, `list` and `export` show of a handle (as JSON): part of its summary, and whether it is past its ttl. */
export type HandleView = Pick<
  HandleSummary,
  | "taskId"
  | "server"
  | "tool"
  | "generation"
  | "status"
  | "statusMessage"
  | "createdAt"
  | "updatedAt"
  | "ttlMs"
  | "pollIntervalMs"
  | "gone"
> & { expired: boolean };

/** The view of a summary, its fields in this order (the order of `list --json`'s objects and the index's rows). */
export function summaryView(s: HandleSummary, expired: boolean): HandleView {
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
    expired,
    gone: s.gone,
  };
}
