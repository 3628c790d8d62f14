// A task as the demo server keeps it: a plain JSON record (no closures, no pending promises), so that the store
// can keep it on disk, and the program that drives it. The runtime that runs the programs: runtime.ts.

export type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";
const TERMINAL: ReadonlySet<TaskStatus> = new Set(["completed", "failed", "cancelled"]);
export const isTerminal = (status: TaskStatus): boolean => TERMINAL.has(status);

export type JsonObject = Record<string, unknown>;

export interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}

/** A question a task asks: an embedded server-to-client request (the demo asks forms; the tests' server, sampling). */
export interface InputRequest {
  method: "elicitation/create" | "sampling/createMessage";
  params: JsonObject;
}

export interface TaskRecord {
  taskId: string;
  tool: string;
  status: TaskStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number;
  pollIntervalMs: number;
  /** Who created it (a V1 HTTP session id), for push notifications. Not an access control. */
  owner?: string;
  /** Program state: which step comes next, and when a timer should wake it (epoch ms). */
  phase: string;
  wakeAt?: number;
  /** Program data: the call's arguments plus whatever the program gathered. */
  data: JsonObject;
  /** Key counter: input keys are `<purpose>-<n>`, unique for the task's life. */
  keySeq: number;
  /** Outstanding questions (key -> request). */
  pending: Record<string, InputRequest>;
  /** key -> purpose, for every key ever issued. */
  keyPurpose: Record<string, string>;
  /** Answers received for the current round (purpose -> response), handed over once the round is complete. */
  collected: JsonObject;
  result?: JsonObject;
  error?: RpcError;
}

export type TaskEvent = { kind: "start" } | { kind: "wake" } | { kind: "input"; responses: Record<string, JsonObject> };

/** What a program may do with its task. Each call is one transition. */
export interface TaskOps {
  /** Stay (or go back to) `working`; wake up with a `wake` event after `ms`, in `phase`. */
  sleep(ms: number, phase: string, statusMessage?: string): void;
  /** Go `input_required` with these questions (purpose -> request); mints fresh, never reused keys. */
  ask(requests: Record<string, InputRequest>, phase: string, statusMessage?: string): void;
  /** Update the status message alone (still a change: lastUpdatedAt moves). */
  note(statusMessage: string): void;
  complete(result: JsonObject): void;
  fail(error: RpcError): void;
}

export type TaskProgram = (task: TaskRecord, event: TaskEvent, ops: TaskOps) => void;

/** A time as tasks record it (ISO 8601); now by default. */
export const iso = (ms = Date.now()): string => new Date(ms).toISOString();
export const shortId = (id: string): string => id.slice(0, 8);

/** A task as its program first sees it: `working`, in phase `start`, with no questions asked yet. */
export function newTaskRecord(
  taskId: string,
  tool: string,
  data: JsonObject,
  timing: { ttlMs: number; pollIntervalMs: number; owner?: string },
): TaskRecord {
  const now = iso();
  return {
    taskId,
    tool,
    status: "working",
    createdAt: now,
    lastUpdatedAt: now,
    ...timing,
    phase: "start",
    data,
    keySeq: 0,
    pending: {},
    keyPurpose: {},
    collected: {},
  };
}
