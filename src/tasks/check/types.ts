// The shapes of `mcp-task check` (src/tasks/check.ts runs the checks of this folder): a check, what it found, and
// what the checks learn as they go. Each check names the section of the spec it enforces, per spec revision.
import type { Clock } from "../../model.js";
import type { SpecRules } from "../../protocol/revisions.js";
import type { Snapshot, TaskStatus, ToolInfo } from "../../protocol/wire.js";
import type { TaskEngine } from "../engine.js";
import type { Candidate } from "./pick.js";

export type CheckStatus = "pass" | "fail" | "warn" | "skip";

export interface CheckResult {
  /** Stable name (a JUnit test case). */
  readonly name: string;
  readonly title: string;
  /** The spec section the check enforces in the server's revision ("<revision> <page>#<anchor>"), if any. */
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
  /**
   * The section enforced, as each spec revision writes it ("#anchor" on its tasks page, or "page#anchor"); a
   * revision without one has no such rule (the check skips there). Read with specSection (src/protocol/revisions.ts).
   */
  spec: SpecRules;
  run: (engine: TaskEngine, options: CheckOptions, learned: Learned) => Promise<Verdict>;
}
