// V1's outcomes: `tasks/result` blocks until the task is terminal and then carries exactly what the call would have
// returned (a failed task's is the JSON-RPC error the call would have returned). One request per task is open at a
// time, and the questions of the task come on its stream (v1-questions.ts: one round per request).
import { RpcError, ServerError } from "../errors.js";
import { toolResultOrThrow } from "./parse.js";
import type { V1Questions } from "./v1-questions.js";
import type { CallToolResult, TaskError } from "./wire.js";

const INVALID_PARAMS = -32602;

export type Outcome = { result: CallToolResult } | { error: TaskError };

type Request = (
  method: string,
  params: Record<string, unknown>,
  options?: { signal?: AbortSignal; timeoutMs?: number },
) => Promise<Record<string, unknown>>;

export class V1Results {
  /** Open `tasks/result` requests, one per task. */
  private readonly resultRequests = new Map<string, Promise<Outcome | undefined>>();
  private readonly outcomes = new Map<string, Outcome>();

  constructor(
    /** A request in the wire's current session. */
    private readonly request: Request,
    private readonly questions: V1Questions,
    /** The request timeout (0: none). */
    private readonly timeoutMs: () => number,
  ) {}

  /** The task's outcome, when it has been read already. */
  known(taskId: string): Outcome | undefined {
    return this.outcomes.get(taskId);
  }

  /** Opens the task's tasks/result round unless one is open (its questions come on it). */
  open(taskId: string): void {
    if (!this.resultRequests.has(taskId)) void this.fetch(taskId);
  }

  /**
   * The outcome of a task tasks/get says has ended: tasks/result should answer at once, so it gets the request
   * timeout here (while the task runs, tasks/result rightly waits without one).
   */
  async finished(taskId: string, status: string, signal?: AbortSignal): Promise<Outcome | undefined> {
    const limit = this.timeoutMs();
    if (!limit) return this.fetch(taskId, signal);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const error = new ServerError(
          `the server did not answer tasks/result within ${Math.round(limit / 100) / 10} s although the task is ${status} (MCP_TASK_REQUEST_TIMEOUT)`,
        );
        error.transient = true;
        reject(error);
      }, limit);
    });
    try {
      return await Promise.race([this.fetch(taskId, signal), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Opens (or joins) the task's `tasks/result` request; resolves once the task is terminal. */
  fetch(taskId: string, signal?: AbortSignal): Promise<Outcome | undefined> {
    let pending = this.resultRequests.get(taskId);
    if (!pending) {
      const round = this.questions.openRound(taskId);
      // No timeout: tasks/result rightly blocks until the task ends.
      pending = this.request("tasks/result", { taskId }, { timeoutMs: 0 }).then(
        (reply) => {
          const outcome = { result: toolResultOrThrow(reply, "tasks/result") };
          this.outcomes.set(taskId, outcome);
          return outcome;
        },
        (error: unknown) => {
          if (this.resultRequests.get(taskId) === pending) this.resultRequests.delete(taskId);
          round.cut = true;
          if (error instanceof RpcError && error.rpcCode !== INVALID_PARAMS) {
            // A failed task's tasks/result is the JSON-RPC error the call would have returned.
            const outcome = { error: { code: error.rpcCode, message: error.message, data: error.data } };
            this.outcomes.set(taskId, outcome);
            return outcome;
          }
          throw error;
        },
      );
      pending.catch(() => {});
      this.resultRequests.set(taskId, pending);
    }
    if (!signal) return pending;
    return Promise.race([
      pending,
      new Promise<never>((_, reject) => signal.addEventListener("abort", () => reject(signal.reason), { once: true })),
    ]);
  }
}
