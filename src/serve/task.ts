// One task of `mcp-task serve` (./tasks.ts), as this process follows it: its last state and outcome, the agent
// requests waiting for its progress, and the questions the agent may answer through task_answer (--agent-answers).
// With the bridge's shared words: a served server, and who answers a task's questions (QuestionMode).
import type { Context } from "../context.js";
import type { FinalOutcome } from "../model.js";
import type { ServerDescriptor } from "../protocol/server.js";
import type { InputRequest, InputResponse, Progress, Snapshot } from "../protocol/wire.js";
import type { Link } from "../tasks/reconnect.js";
import type { TrackedTask } from "../tasks/tracker.js";

/** A saved server this bridge offers. */
export interface Served {
  name: string;
  descriptor: ServerDescriptor;
}

/**
 * Who answers a task's questions: `person` (the default: the question waits where every held question waits, and a
 * person answers it with `respond`, `watch` or the dashboard), `agent` (--agent-answers: task_answer), `elicit` (the
 * agent's client declared elicitation: the question is forwarded to it, for its user to answer).
 */
export type QuestionMode = "person" | "agent" | "elicit";

/** What the bridge needs of the agent's side (the MCP server in ./index.ts). */
export interface AgentSide {
  mode(): QuestionMode;
  /** Forwards a question to the agent's client (mode `elicit`); rejects where it cannot take this one. */
  elicit(request: InputRequest, signal?: AbortSignal): Promise<InputResponse>;
}

/** A question the agent may answer through task_answer (mode `agent`), waiting for that answer. */
interface Asked {
  request: InputRequest;
  resolve(response: InputResponse): void;
  reject(error: Error): void;
}

/** One task of this bridge, followed in this process. */
export class BridgeTask {
  last: Snapshot;
  outcome?: FinalOutcome;
  /** Why the follow stopped without an outcome (the server unreachable past the give-up, a refused answer...). */
  error?: unknown;
  ended: Promise<void> = Promise.resolve();
  readonly asked = new Map<string, Asked>();
  /** Progress of the task, to the agent requests waiting for it that asked for progress. */
  readonly listeners = new Set<(progress: Progress) => void>();
  /** Told when a question comes for task_answer. */
  private askedWaiters = new Set<() => void>();

  constructor(
    readonly tracked: TrackedTask,
    readonly link: Link | undefined,
  ) {
    this.last = { ...tracked.handle.last };
    this.outcome = tracked.handle.outcome;
  }

  get taskId(): string {
    return this.tracked.taskId;
  }

  /** Resolves when a question for task_answer comes, or after `ms` (on `clock`). */
  async nextAsked(clock: Context["clock"], ms: number): Promise<void> {
    const stop = new AbortController();
    const done = () => stop.abort();
    this.askedWaiters.add(done);
    await clock.sleep(ms, stop.signal);
    this.askedWaiters.delete(done);
  }

  ask(request: InputRequest, signal?: AbortSignal): Promise<InputResponse> {
    return new Promise<InputResponse>((resolve, reject) => {
      const withdrawn = () => {
        this.asked.delete(request.key);
        reject(new Error("question withdrawn"));
      };
      if (signal?.aborted) return withdrawn();
      signal?.addEventListener("abort", withdrawn, { once: true });
      this.asked.set(request.key, { request, resolve, reject });
      for (const waiter of this.askedWaiters) waiter();
    });
  }
}
