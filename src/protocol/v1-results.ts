// V1's outcomes. The spec has `tasks/result` block until the task is terminal and then carry exactly what the call
// would have returned (a failed task's is the JSON-RPC error the call would have returned); the questions of a task
// come on its stream (v1-questions.ts: one round per request), so mcp-task opens it early, while the task runs.
//
// Not every server waits. One answers a tasks/result for a running task at once (mcp-framework: an error, "Task … is
// not completed (status: working)"), or with an empty result, or with the task itself. So a reply to a request sent
// before the task was seen to end is not taken at its word: a tasks/get right after says whether the task has
// ended. If it has not, the reply is dropped (never the task's outcome), the server is remembered as one whose
// tasks/result does not wait (no more early requests to it on this connection: its tasks are followed with tasks/get,
// and their outcomes read once tasks/get says they ended), and what it said is kept for `check`. If it has, a result
// is the outcome; an error is asked again, now that the task has ended, and that answer is the outcome.
import { ProtocolViolation, RpcError, ServerError } from "../errors.js";
import { MAX_STATUS_MESSAGE } from "../limits.js";
import { sanitizeLine } from "../sanitize.js";
import { completedOrThrow } from "./checks.js";
import { toolResultOrThrow } from "./parse.js";
import type { V1Questions } from "./v1-questions.js";
import { isTerminal, type CallToolResult, type Snapshot, type TaskError } from "./wire.js";

const INVALID_PARAMS = -32602;

export type Outcome = { result: CallToolResult } | { error: TaskError };

type Request = (
  method: string,
  params: Record<string, unknown>,
  options?: { signal?: AbortSignal; timeoutMs?: number },
) => Promise<Record<string, unknown>>;

/** A tasks/get of the task, its status only (no outcome read). */
type Read = (taskId: string, signal?: AbortSignal) => Promise<Snapshot>;

export class V1Results {
  /** Requests sent before the task was seen to end (one per task): each resolves with the task once it ended. */
  private readonly early = new Map<string, Promise<Snapshot>>();
  /** Requests sent once tasks/get said the task ended (one per task): their answer is the outcome. */
  private readonly late = new Map<string, Promise<Outcome>>();
  private readonly outcomes = new Map<string, Outcome>();
  /** The tasks whose questions were looked for on an early request already (see open). */
  private readonly tried = new Set<string>();
  /** What the server answered to a tasks/result for a task that had not ended; undefined while not seen. */
  private answeredEarly?: string;

  constructor(
    /** A request in the wire's current session. */
    private readonly request: Request,
    private readonly read: Read,
    private readonly questions: V1Questions,
    /** The request timeout (0: none). */
    private readonly timeoutMs: () => number,
  ) {}

  /** The task's outcome, when it has been read already. */
  known(taskId: string): Outcome | undefined {
    return this.outcomes.get(taskId);
  }

  /** What the server said to a tasks/result for a task that had not ended (it does not wait), once seen. */
  get saidEarly(): string | undefined {
    return this.answeredEarly;
  }

  /**
   * Opens the task's early tasks/result (its questions come on it) unless one is open or its outcome is known. On a
   * server that does not wait, once per task at most (a task that says input_required may still ask there).
   * `hold`: the questions that come on it are left unanswered (check: nobody answers them).
   */
  open(taskId: string, hold = false): void {
    if (this.early.has(taskId) || this.outcomes.has(taskId)) return;
    if (this.answeredEarly !== undefined && this.tried.has(taskId)) return;
    this.tried.add(taskId);
    this.follow(taskId, undefined, hold).catch(() => {});
  }

  /**
   * The task once it has ended, with its outcome, from an early tasks/result (opened now, or joined). Rejects where
   * the server answers early (the task is then to be followed with tasks/get): a ServerError no user sees (only a
   * broker awaits it, beside its own tasks/get).
   */
  follow(taskId: string, signal?: AbortSignal, hold = false): Promise<Snapshot> {
    let pending = this.early.get(taskId);
    if (!pending) {
      if (this.answeredEarly !== undefined) return Promise.reject(this.doesNotWait());
      const round = this.earlyRound(taskId, hold);
      pending = round.finally(() => {
        if (this.early.get(taskId) === pending) this.early.delete(taskId);
      });
      pending.catch(() => {});
      this.early.set(taskId, pending);
    }
    return abortable(pending, signal);
  }

  /**
   * The outcome of a task tasks/get says has ended. An early request still open is joined; otherwise (or where
   * its answer was not the outcome) tasks/result is asked now, and should answer at once: it gets the request
   * timeout (while the task runs, tasks/result rightly waits without one).
   */
  async finished(taskId: string, status: string, signal?: AbortSignal): Promise<Outcome | undefined> {
    const limit = this.timeoutMs();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      if (!limit) return;
      timer = setTimeout(() => {
        const error = new ServerError(
          `the server did not answer tasks/result within ${Math.round(limit / 100) / 10} s although the task is ${status} (MCP_TASK_REQUEST_TIMEOUT)`,
        );
        error.transient = true;
        reject(error);
      }, limit);
    });
    try {
      return await Promise.race([this.outcomeOf(taskId, signal), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async outcomeOf(taskId: string, signal?: AbortSignal): Promise<Outcome | undefined> {
    const early = this.early.get(taskId);
    if (early) {
      try {
        await abortable(early, signal);
      } catch (error) {
        if (signal?.aborted) throw error;
        /* not the outcome (the server answered early, or the request failed): asked again below */
      }
    }
    return this.outcomes.get(taskId) ?? abortable(this.lateRound(taskId), signal);
  }

  /** An early request: its answer is the outcome only where tasks/get, right after, says the task has ended. */
  private async earlyRound(taskId: string, hold: boolean): Promise<Snapshot> {
    const round = this.questions.openRound(taskId, hold);
    let answer: Outcome | ProtocolViolation;
    try {
      answer = await this.ask(taskId);
    } catch (error) {
      round.cut = true;
      // An answer that is no tool result (the task itself, still working) is judged as any early answer is.
      if (!(error instanceof ProtocolViolation)) throw error;
      answer = error;
    }
    const task = await this.read(taskId);
    if (!isTerminal(task.status)) {
      round.cut = true;
      this.answeredEarly ??= `${what(answer)} while the task was ${task.status}`;
      throw this.doesNotWait();
    }
    if (task.status === "cancelled") return task;
    if (!(answer instanceof Error) && "result" in answer) this.outcomes.set(taskId, answer);
    // An error (or no result) that may have been sent before the end is asked again, now that the task has ended.
    const outcome = this.outcomes.get(taskId) ?? (await this.lateRound(taskId));
    return completedOrThrow({ ...task, ...outcome });
  }

  /** A request sent once the task was seen to end: its answer is the outcome (shared by the reads that need it). */
  private lateRound(taskId: string): Promise<Outcome> {
    let pending = this.late.get(taskId);
    if (!pending) {
      const round = this.questions.openRound(taskId);
      pending = this.ask(taskId).then(
        (outcome) => {
          this.outcomes.set(taskId, outcome);
          return outcome;
        },
        (error: unknown) => {
          round.cut = true;
          throw error;
        },
      );
      pending
        .finally(() => {
          if (this.late.get(taskId) === pending) this.late.delete(taskId);
        })
        .catch(() => {});
      this.late.set(taskId, pending);
    }
    return pending;
  }

  /**
   * One tasks/result: the result, or the JSON-RPC error (a failed task's tasks/result is the error the call would
   * have returned); an answer that is no tool result throws ProtocolViolation, -32602 (an unknown task) RpcError.
   */
  private async ask(taskId: string): Promise<Outcome> {
    try {
      // No timeout: tasks/result rightly blocks until the task ends (finished bounds the wait where it should not).
      const reply = await this.request("tasks/result", { taskId }, { timeoutMs: 0 });
      return { result: toolResultOrThrow(reply, "tasks/result") };
    } catch (error) {
      if (error instanceof RpcError && error.rpcCode !== INVALID_PARAMS)
        return { error: { code: error.rpcCode, message: error.message, data: error.data } };
      throw error;
    }
  }

  private doesNotWait(): ServerError {
    return new ServerError(
      `the server answered tasks/result before the task ended (${this.answeredEarly}): it is followed with tasks/get`,
    );
  }
}

/** What an early answer was, in a few words (the server's own for an error). */
function what(answer: Outcome | ProtocolViolation): string {
  if (answer instanceof Error) return `a reply that is no tool result (${answer.message})`;
  if ("result" in answer) return "a result";
  const message = sanitizeLine(answer.error.message.slice(0, MAX_STATUS_MESSAGE));
  return `the error ${answer.error.code} "${message}"`;
}

function abortable<T>(pending: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return pending;
  if (signal.aborted) return Promise.reject(signal.reason);
  return Promise.race([
    pending,
    new Promise<never>((_, reject) => signal.addEventListener("abort", () => reject(signal.reason), { once: true })),
  ]);
}
