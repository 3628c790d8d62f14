// The generation-neutral task engine: start a call, watch a task as an async iterator of snapshots, answer its
// input, cancel it. It sees only the Wire interface; it never knows which generation the server speaks.
import type { Clock, FinalOutcome } from "../model.js";
import { InputRequiredError, ProtocolViolation, ServerError } from "../errors.js";
import type {
  CallOptions,
  CallOutcome,
  CallToolResult,
  InputRequest,
  InputResponse,
  Snapshot,
  ToolInfo,
  Unsubscribe,
  Wire,
} from "../protocol/wire.js";
import { forTask, type InputProvider } from "./input.js";
import { checkQuestion, outputProblem, schemaProblem } from "./schema.js";
import { MAX_ANSWERS_PER_TASK, URL_ELICITATION_WAIT_MS } from "../limits.js";
import { sanitizeLine, shellWord } from "../sanitize.js";
import { completedOrThrow } from "../protocol/checks.js";
import { questionOf } from "./answering.js";
import { taskOf, type EngineShared } from "./engine-task.js";
import { Alarms } from "./alarms.js";
import { TaskWatch, type WatchOptions } from "./watch.js";
import { callAfterUrlElicitations, UrlCompletions } from "./url-elicitation.js";

export class TaskEngine {
  private tools?: Map<string, ToolInfo>;
  /** What the input handler and the watches share: the tasks, one object each (engine-task.ts). */
  private readonly shared: EngineShared;
  /** The server's word that a URL-mode elicitation's page is done. */
  private readonly completions: UrlCompletions;
  /** Its hold on the wire's questions and doubtful answers (see release). */
  private readonly holds: Unsubscribe[];

  constructor(
    readonly wire: Wire,
    clock: Clock,
    input?: InputProvider,
    /** The jitter's source (Context.random). */
    random: () => number = Math.random,
  ) {
    this.shared = { wire, clock, random, alarms: new Alarms(clock), input, tasks: new Map(), watched: 0 };
    this.holds = [
      wire.on("uncertainDelivery", (delivery) => this.shared.tasks.get(delivery.taskId)?.doubted?.(delivery)),
      wire.handleInput((request, taskId, signal) => this.answer(request, taskId, signal)),
    ];
    this.completions = new UrlCompletions(wire);
  }

  /** Lets go of the wire's questions and events, for another engine to take them (one answers at a time). */
  release(): void {
    for (const hold of this.holds) hold();
    this.completions.release();
  }

  /**
   * Answers one question of the server (the wire's input handler): an answer to give again (its delivery failed
   * and the server asks again), else the input provider's, within MAX_ANSWERS_PER_TASK per task.
   */
  private async answer(request: InputRequest, taskId: string | null, signal?: AbortSignal): Promise<InputResponse> {
    const { input, tasks } = this.shared;
    if (!input) throw new ServerError("internal: no input provider");
    const task = taskId ? tasks.get(taskId) : undefined;
    const same = task?.reasked?.findIndex((entry) => entry.question === questionOf(request)) ?? -1;
    if (same >= 0) {
      const [{ response }] = task!.reasked!.splice(same, 1);
      task!.delivered?.([request.key]);
      return response;
    }
    const again = task?.resend?.get(request.key);
    if (again) {
      task!.resend!.delete(request.key);
      task!.delivered?.([request.key]);
      return again;
    }
    // Shown (an `input` event, the `asks:` line) before it is answered, declined or refused.
    // (A question handed over before the task's watch began, as a broker does with one it held, is shown then.)
    if (task?.asked) task.asked(request);
    else if (taskId) (taskOf(this.shared, taskId).unshown ??= []).push(request);
    try {
      if (taskId) {
        const counted = taskOf(this.shared, taskId);
        if (counted.answers + 1 > MAX_ANSWERS_PER_TASK) {
          throw new InputRequiredError(
            `the task keeps asking for input: ${MAX_ANSWERS_PER_TASK} questions answered, and it asks again; mcp-task stops answering`,
            `answer it yourself with: mcp-task respond --input '{...}' ${shellWord(taskId)}`,
            taskId,
          );
        }
        counted.answers++;
      }
      checkQuestion(request); // a form past the bounds is refused, unanswered (exit 4)
      const response = await input.answer(request, taskId, signal);
      // Returned to the server by the wire (V1 answers the server's request with it).
      if (taskId) tasks.get(taskId)?.delivered?.([request.key]);
      return response;
    } catch (error) {
      // A question withdrawn because the task moved on is not a failure.
      if (!signal?.aborted) {
        if (taskId === null) this.shared.callInputError = error as Error;
        else {
          const refused = taskOf(this.shared, taskId);
          refused.inputError = error as Error;
          refused.wake?.();
        }
      }
      throw error;
    }
  }

  async tool(name: string): Promise<ToolInfo | undefined> {
    return (await this.listTools()).find((tool) => tool.name === name);
  }

  /** Why the server's tool `name` was left out of the listing (an invalid declaration), if it was. */
  toolExclusion(name: string): string | undefined {
    return this.wire.toolExclusion?.(name);
  }

  /** What is wrong with a call's arguments against the tool's schema, checked by the wire where it can. */
  argumentsProblem(schema: Record<string, unknown>, args: Record<string, unknown>, what: string) {
    const { broker } = this.wire;
    return broker ? broker.schemaProblem(schema, args, what) : schemaProblem(schema, args, what);
  }

  /** The server's tools (listed once per engine). */
  async listTools(): Promise<ToolInfo[]> {
    if (!this.tools) this.tools = new Map((await this.wire.listTools()).map((tool) => [tool.name, tool]));
    return [...this.tools.values()];
  }

  /** Starts a tool call: an immediate result (already checked against the outputSchema) or a task. */
  async call(
    name: string,
    args: Record<string, unknown>,
    options: CallOptions,
  ): Promise<{ kind: "result"; outcome: FinalOutcome } | Extract<CallOutcome, { kind: "task" }>> {
    let outcome: CallOutcome | undefined;
    try {
      // A call refused with -32042 is made again once its web pages were visited (url-elicitation.ts).
      outcome = await callAfterUrlElicitations(
        () => this.wire.callTool(name, args, options),
        (request) => this.answer(request, null),
        this.completions,
        { ms: URL_ELICITATION_WAIT_MS, clock: this.shared.clock, signal: options.signal },
      );
    } finally {
      // Input refused during a plain call surfaces as what it was, not as the server's reaction to it. Refused
      // while the call became a task, it is the task's: the task is returned (to be saved first), and following it
      // reports the refusal (the question itself stays with whoever holds it: see handsQuestionsOnce, wire.ts).
      const refused = this.shared.callInputError;
      this.shared.callInputError = undefined;
      if (refused && outcome?.kind === "task")
        taskOf(this.shared, outcome.snapshot.taskId).inputError = forTask(refused, outcome.snapshot.taskId);
      else if (refused) throw refused;
    }
    if (outcome.kind === "task") return outcome;
    return { kind: "result", outcome: await this.finalFromResult(null, name, outcome.result) };
  }

  private async finalFromResult(
    taskId: string | null,
    toolName: string | undefined,
    result: CallToolResult,
  ): Promise<FinalOutcome> {
    const tool = toolName ? await this.tool(toolName).catch(() => undefined) : undefined;
    return { taskId, status: "completed", result, outputProblem: await outputProblem(tool, result) };
  }

  /** The final outcome of a terminal snapshot, with the result checked against the tool's outputSchema. */
  async final(snapshot: Snapshot, toolName?: string): Promise<FinalOutcome> {
    return finalOutcome(snapshot, toolName ? await this.tool(toolName).catch(() => undefined) : undefined);
  }

  /**
   * Follows a task until it is terminal, yielding each changed snapshot: at the server's pace, woken early by
   * pushes, backing off on transient failures, answering input (see TaskWatch). Abort with `signal`; the abort
   * reason is thrown.
   */
  watch(taskId: string, options: WatchOptions = {}): AsyncGenerator<Snapshot> {
    return new TaskWatch(this.shared, taskId, options).run();
  }

  /** Asks the server to cancel; returns what the server reports afterwards (a cancel request is no proof). */
  async cancel(taskId: string): Promise<Snapshot> {
    const reported = await this.wire.cancelTask(taskId);
    return reported ?? (await this.wire.getTask(taskId));
  }
}

/** The final outcome of a terminal snapshot, with a completed result checked against the tool's outputSchema. */
export async function finalOutcome(snapshot: Snapshot, tool: ToolInfo | undefined): Promise<FinalOutcome> {
  if (snapshot.status === "completed") {
    // The wires check this on every read (completedOrThrow); checked again here for snapshots from elsewhere.
    const { result } = completedOrThrow(snapshot);
    return {
      taskId: snapshot.taskId,
      status: "completed",
      result: result!,
      outputProblem: await outputProblem(tool, result!),
    };
  }
  if (snapshot.status === "failed")
    return { taskId: snapshot.taskId, status: snapshot.status, result: snapshot.result, error: snapshot.error };
  if (snapshot.status === "cancelled") return { taskId: snapshot.taskId, status: "cancelled" };
  // Read again for its payload after the server said it ended (born completed without a result, say), the task is
  // running: a status that goes back is the server's fault, never an outcome (it had been saved as "cancelled").
  throw new ProtocolViolation(
    `the server said task ${sanitizeLine(snapshot.taskId)} had ended, then reads it as ${snapshot.status}: a task's end is final`,
    undefined,
    snapshot.taskId,
  );
}
