// `mcp-task check`: is this task server right? A fixed list of checks (src/tasks/check/), each a thing a client
// meets and the spec section it enforces, run against a real server through the same engine every command uses (so a
// server that breaks a rule mcp-task enforces fails the check that meets it, with mcp-task's own error).
// Generation-neutral: the wires have already checked every reply strictly; what is left is the life of a task
// (created, read, followed at the server's pace, ended once and for good, its result readable, cancellable, an
// unknown id refused), what it pushes, and, on 2026-07-28, the requests a server must refuse.
import { cutText, describeError } from "../errors.js";
import { specSection } from "../protocol/revisions.js";
import { CONTROL_CHECKS } from "./check/control.js";
import { GATING_CHECKS } from "./check/gating.js";
import { END_CHECKS, LIFE_CHECKS } from "./check/life.js";
import { PUSH_CHECKS } from "./check/push.js";
import type { Check, CheckOptions, CheckResult, CheckStatus, Learned } from "./check/types.js";
import type { TaskEngine } from "./engine.js";

export type { CheckOptions, CheckResult, CheckStatus } from "./check/types.js";

/** In order: each check may build on what the earlier ones learned. */
const CHECKS: Check[] = [...LIFE_CHECKS, ...GATING_CHECKS, ...END_CHECKS, ...CONTROL_CHECKS, ...PUSH_CHECKS];

/** Runs every check in order; a check that throws fails with mcp-task's own one-line account of the error. */
export async function checkServer(engine: TaskEngine, options: CheckOptions): Promise<CheckResult[]> {
  const learned: Learned = { reads: [] };
  const results: CheckResult[] = [];
  const { revision } = engine.wire.capabilities;
  for (const check of CHECKS) {
    const started = options.clock.monotonic();
    const section = specSection(check.spec, revision);
    let status: CheckStatus;
    let detail: string;
    try {
      [status, detail] = section ? await check.run(engine, options, learned) : ["skip", `not a rule of ${revision}`];
    } catch (error) {
      if (options.signal?.aborted) throw error;
      [status, detail] = ["fail", describeError(error).message];
    }
    // A detail quotes what the server named (its tools): cut, as server text in an error is (five tools of a million
    // characters each made one "trying ..." line of 5 MB, in the text, --json and --junit alike).
    const result = { name: check.name, title: check.title, spec: section, status, detail: cutText(detail) };
    results.push({ ...result, ms: options.clock.monotonic() - started });
  }
  return results;
}

/** Whether the checks created a task: without one, the checks of its life checked nothing. */
export const taskCreated = (results: readonly CheckResult[]): boolean =>
  results.some((r) => r.name === "task-created" && r.status === "pass");
