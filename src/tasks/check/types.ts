// The shapes of `mcp-task check` (src/tasks/check.ts runs the checks of this folder): a check, what it found, and
// what the checks learn as they go. Each check names the section of the spec it enforces, per generation.
import type { Clock } from "../../model.js";
import type { Generation, Snapshot, TaskStatus, ToolInfo } from "../../protocol/wire.js";
import type { TaskEngine } from "../engine.js";
import type { Candidate } from "./pick.js";

export type CheckStatus = "pass" | "fail" | "warn" | "skip";

export interface CheckResult {
  /** Stable name (a JUnit test case). */
  readonly name: string;
  readonly title: string;
  /** The spec section the check enforces for the server's generation ("<revision> <page>#<anchor>"), if any. */
  readonly spec?: string;
  readonly status: CheckStatus;
  /** What was seen: why it failed, or what passed. */
  readonly detail: string;
  readonly ms: number;
}

export interface CheckOptions {
  /** The tool to run as a task (the caller checked it is listed and `args` fit); else pick.ts picks. */
  tool?: string;
  args?: Record<string, unknown>;
  /** How long a task may take to end (ms). */
  timeoutMs: number;
  clock: Clock;
  signal?: AbortSignal;
}

/** What the pushes of the followed task showed (push.ts). */
export interface PushReport {
  /** Every status pushed, in order. */
  pushed: TaskStatus[];
  /** Terminal pushes compared with a tasks/get right after. */
  compared: number;
  problems: string[];
}

/** What the checks learn as they go (each later check builds on the earlier). */
export interface Learned {
  tools?: ToolInfo[];
  /** The tools to try as a task, in turn, with their arguments (pick.ts; the one given with --tool). */
  candidates?: Candidate[];
  /** The tool that made the task, and the arguments it was called with. */
  tool?: ToolInfo;
  args?: Record<string, unknown>;
  task?: Snapshot;
  last?: Snapshot;
  pushed?: boolean;
  /** Each state read with a request of its own (create, tasks/get), in order: the timestamps check reads them. */
  reads: Snapshot[];
  /** The first state that asked for input. */
  asked?: Snapshot;
  /** The task the cancel check started. */
  second?: Snapshot;
  pushes?: PushReport;
}

export type Verdict = [CheckStatus, string];

export interface Check {
  name: string;
  title: string;
  /** The section enforced, per generation; a generation without one has no such rule (the check skips there). */
  spec: Partial<Record<Generation, string>>;
  run: (engine: TaskEngine, options: CheckOptions, learned: Learned) => Promise<Verdict>;
}

const V1 = "2025-11-25 basic/utilities/tasks#";
const V2 = "2026-07-28 io.modelcontextprotocol/tasks#";

/** The sections of the tasks page of each revision (anchors as the published pages have them). */
export const spec = (v1: string | undefined, v2: string | undefined): Check["spec"] => ({
  ...(v1 !== undefined && { v1: V1 + v1 }),
  ...(v2 !== undefined && { v2: V2 + v2 }),
});
