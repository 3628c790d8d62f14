// The generation-neutral task engine: start a call, watch a task as an async iterator of snapshots, answer its
// input, cancel it. It sees only the Wire interface; it never knows which generation the server speaks.
import type { Clock, DeliveryEvent, FinalOutcome } from "../model.js";
export type { DeliveryEvent, FinalOutcome };
import { InputRequiredError, McpTaskError, ProtocolViolation, ServerError } from "../errors.js";
import {
  isTerminal,
  type CallOutcome,
  type CallToolResult,
  type InputRequest,
  type InputResponse,
  type Snapshot,
  type TaskError,
  type ToolInfo,
  type UncertainDelivery,
  type Wire,
} from "../protocol/wire.js";
import { answerNotDelivered, forTask, inputUnavailable, type InputProvider } from "./input.js";
import { checkQuestion, outputProblem } from "./schema.js";
import { MAX_ANSWERS_PER_TASK } from "../limits.js";
export { MAX_ANSWERS_PER_TASK };
import { shellWord } from "../sanitize.js";
import { completedOrThrow, pollInterval } from "../protocol/checks.js";

/** Used when the server gives no poll interval. */
export const DEFAULT_POLL_INTERVAL_MS = 1000;
const MAX_BACKOFF_MS = 30_000;
/** While pushes flow, the longest time without a poll of our own (pushes are never the only source of truth). */
const PUSH_TRUST_MS = 30_000;
/** After a push, the next poll waits this many poll intervals. */
const PUSH_GRACE = 3;
/** An answered key the server still lists after this many reads and this long was ignored (exit 4). */
const IGNORED_POLLS = 10;
const IGNORED_MS = 5_000;

export interface WatchOptions {
  signal?: AbortSignal;
  /** The user's floor on the poll interval. */
  floorMs?: number;
  /** How long transient failures (server unreachable) may last before giving up. */
  giveUpMs?: number;
  /** Use push notifications where the server sends them (default true). */
  push?: boolean;
  /** The state already known (the create reply): the first read waits an interval instead of coming at once. */
  initial?: Snapshot;
  /** Told of each transient failure and when the next try comes (to show "reconnecting"). */
  onRetry?: (error: Error, retryInMs: number) => void;
  /** Input keys already answered (across processes): never answered twice. Grows as answers are delivered. */
  answered?: Set<string>;
  /** Answer input when the task asks (without it, input_required is only reported). */
  answerInput?: boolean;
  /** Called with the keys whose answers were delivered (to persist them); awaited before the next answer. */
  onAnswered?: (keys: string[]) => Promise<void> | void;
  /** Called each time an answer reaches the server (both generations). */
  onDelivered?: () => void;
  /** Called when input requests are seen (for display); keys already answered are left out. */
  onInput?: (taskId: string, requests: InputRequest[]) => void;
  /** Told when an answer's delivery is in doubt, and what the next read of the task says about it. */
  onDelivery?: (event: DeliveryEvent) => void;
}

export class TaskEngine {
  private tools?: Map<string, ToolInfo>;
  /** Errors raised while answering input, per task (null: input before a task exists). */
  private readonly inputErrors = new Map<string | null, McpTaskError | Error>();
  private readonly wakers = new Map<string, () => void>();
  /** Per watched task: told each time an answer reached the server. */
  private readonly deliveries = new Map<string, () => void>();
  /** Per watched task: told of answers whose delivery is in doubt. */
  private readonly doubts = new Map<string, (delivery: UncertainDelivery) => void>();
  /** Questions answered so far, per task (bounded by MAX_ANSWERS_PER_TASK). */
  private readonly answerCounts = new Map<string, number>();
  /** Answers the server did not take after a dropped connection, sent again without asking again (task + key). */
  private readonly resend = new Map<string, InputResponse>();
  /**
   * The same where questions have no lasting key (V1: the server asks again with a new request): per task, the
   * answer given again to the same question (method and params) while the task still waits.
   */
  private readonly reasked = new Map<string, Array<{ question: string; response: InputResponse }>>();

  constructor(
    readonly wire: Wire,
    private readonly clock: Clock,
    private readonly input?: InputProvider,
  ) {
    wire.onUncertainDelivery = (delivery) => this.doubts.get(delivery.taskId)?.(delivery);
    wire.inputHandler = async (request, taskId, signal) => {
      if (!this.input) throw new ServerError("internal: no input provider");
      const again = taskId ? this.resend.get(resendKey(taskId, request.key)) : undefined;
      const asked = taskId ? this.reasked.get(taskId) : undefined;
      const same = asked?.findIndex((entry) => entry.question === questionOf(request)) ?? -1;
      if (same >= 0) {
        const [{ response }] = asked!.splice(same, 1);
        this.deliveries.get(taskId!)?.();
        return response;
      }
      if (again) {
        this.resend.delete(resendKey(taskId!, request.key));
        this.deliveries.get(taskId!)?.();
        return again;
      }
      try {
        if (taskId) {
          const count = (this.answerCounts.get(taskId) ?? 0) + 1;
          if (count > MAX_ANSWERS_PER_TASK) {
            throw new InputRequiredError(
              `the task keeps asking for input: ${MAX_ANSWERS_PER_TASK} questions answered, and it asks again; mcp-task stops answering`,
              `answer it yourself with: mcp-task respond --input '{...}' ${shellWord(taskId)}`,
              taskId,
            );
          }
          this.answerCounts.set(taskId, count);
        }
        checkQuestion(request); // a form past the bounds is refused, unanswered (exit 4)
        const response = await this.input.answer(request, taskId, signal);
        // Returned to the server by the wire (V1 answers the server's request with it).
        if (taskId) this.deliveries.get(taskId)?.();
        return response;
      } catch (error) {
        // A question withdrawn because the task moved on is not a failure.
        if (!signal?.aborted) {
          this.inputErrors.set(taskId, error as Error);
          if (taskId) this.wakers.get(taskId)?.();
        }
        throw error;
      }
    };
  }

  async tool(name: string): Promise<ToolInfo | undefined> {
    return (await this.listTools()).find((tool) => tool.name === name);
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
    options: { task: "auto" | "never"; ttlMs?: number; signal?: AbortSignal },
  ): Promise<{ kind: "result"; outcome: FinalOutcome } | Extract<CallOutcome, { kind: "task" }>> {
    let outcome: CallOutcome | undefined;
    try {
      outcome = await this.wire.callTool(name, args, options);
    } finally {
      // Input refused during a plain call surfaces as what it was, not as the server's reaction to it. Refused
      // while the call became a task, it is the task's: the task is returned (to be saved first), and following it
      // reports the refusal (the question itself stays with whoever holds it: see Wire.handsQuestionsOnce).
      const refused = this.inputErrors.get(null);
      this.inputErrors.delete(null);
      if (refused && outcome?.kind === "task")
        this.inputErrors.set(outcome.snapshot.taskId, forTask(refused, outcome.snapshot.taskId));
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
   * Follows a task until it is terminal, yielding each changed snapshot. Polls at the server's pace (never faster
   * than its interval or the user's floor); a pushed update is shown at once, postpones the next poll by three
   * intervals (so no poll is spent while pushes flow, yet one comes at least every 30 s), and a terminal push
   * triggers an immediate read (for the result). Transient failures back off exponentially with jitter. Abort with `signal`;
   * the abort reason is thrown.
   */
  async *watch(taskId: string, options: WatchOptions = {}): AsyncGenerator<Snapshot> {
    const answered = options.answered ?? new Set<string>();
    let wake = new AbortController();
    let woken = false;
    const wakeUp = () => {
      woken = true;
      wake.abort();
    };
    this.wakers.set(taskId, wakeUp);
    if (options.onDelivered) this.deliveries.set(taskId, options.onDelivered);
    let pushed: Snapshot | undefined;
    const unsubscribe =
      options.push === false
        ? () => {}
        : await this.wire
            .watchNotifications([taskId], (snapshot) => {
              if (snapshot.taskId !== taskId) return;
              pushed = snapshot;
              wakeUp();
            })
            .catch(() => () => {});
    let last: Snapshot | undefined;
    let inputJob: Promise<void> | undefined;
    let inputAbort: AbortController | undefined;
    let failingSince: number | undefined;
    let lastPoll: number | undefined;
    let failures = 0;
    if (options.initial?.taskId === taskId && !isTerminal(options.initial.status)) last = options.initial;
    // The server's interval as parsed is within the floor and ceiling (src/limits.ts); kept there here too, for
    // snapshots that come from elsewhere (a handle saved by an older version).
    const intervalOf = (snapshot?: Snapshot) =>
      Math.max(pollInterval(snapshot?.pollIntervalMs) ?? DEFAULT_POLL_INTERVAL_MS, options.floorMs ?? 0);
    // With a confirmed subscription the server has promised to push every change: polls are only a safety net.
    const pace = (snapshot?: Snapshot) => intervalOf(snapshot) * (this.wire.pushConfirmed?.(taskId) ? PUSH_GRACE : 1);
    let due = last ? this.clock.now() + intervalOf(last) : this.clock.now();
    const changed = (next: Snapshot) => !last || fingerprint(last, answered) !== fingerprint(next, answered);
    // Answers whose delivery is in doubt: read the task at once (retrying while the server is away) and settle them.
    let doubt: UncertainDelivery | undefined;
    this.doubts.set(taskId, (delivery) => {
      doubt = doubt ? { ...delivery, answers: [...doubt.answers, ...delivery.answers] } : delivery;
      options.onDelivery?.({
        kind: "uncertain",
        taskId,
        requests: delivery.answers.map((answer) => answer.request),
        error: delivery.error,
      });
      due = this.clock.now();
      wakeUp();
    });
    const settle = async (snapshot: Snapshot) => {
      if (!doubt) return;
      const { answers, stableKeys } = doubt;
      doubt = undefined;
      // Taken: the task no longer waits, or (where the server lists its questions) the key is no longer listed.
      const listed = new Set(snapshot.inputRequests.map((request) => request.key));
      const waiting = snapshot.status === "input_required";
      const isTaken = (request: InputRequest) =>
        !waiting || (snapshot.inputListed === true && !listed.has(request.key));
      const taken = answers.filter(({ request }) => isTaken(request));
      const missed = answers.filter(({ request }) => !isTaken(request));
      if (taken.length) {
        const keys = taken.map(({ request }) => request.key);
        if (stableKeys) {
          for (const key of keys) answered.add(key);
          await options.onAnswered?.(keys);
        }
        options.onDelivery?.({ kind: "taken", taskId, requests: taken.map(({ request }) => request) });
      }
      if (missed.length) {
        if (stableKeys)
          for (const { request, response } of missed) this.resend.set(resendKey(taskId, request.key), response);
        else
          this.reasked.set(taskId, [
            ...(this.reasked.get(taskId) ?? []),
            ...missed.map(({ request, response }) => ({ question: questionOf(request), response })),
          ]);
        options.onDelivery?.({
          kind: stableKeys ? "resending" : "askAgain",
          taskId,
          requests: missed.map(({ request }) => request),
        });
      }
    };
    // Answers the server acknowledged and did not take: an answered key it still lists, read after read.
    const ignored = new Map<string, { since: number; reads: number }>();
    const checkIgnored = (snapshot: Snapshot) => {
      const listed =
        snapshot.status === "input_required" && snapshot.inputListed
          ? snapshot.inputRequests.filter((r) => answered.has(r.key))
          : [];
      for (const key of [...ignored.keys()]) if (!listed.some((r) => r.key === key)) ignored.delete(key);
      if (inputJob || doubt) return;
      for (const request of listed) {
        const seen = ignored.get(request.key) ?? { since: this.clock.now(), reads: 0 };
        seen.reads++;
        ignored.set(request.key, seen);
        if (seen.reads > IGNORED_POLLS && this.clock.now() - seen.since >= IGNORED_MS) {
          throw new ProtocolViolation(
            `the server still asks for ${request.key} ${Math.round((this.clock.now() - seen.since) / 1000)} s after mcp-task answered it (it acknowledged the answer and ignored it)`,
            `keep waiting with: mcp-task watch ${shellWord(taskId)}`,
            taskId,
          );
        }
      }
    };
    // input_required with nothing asked (V2: an empty inputRequests): nothing can be answered. A state that lasts
    // as long as an ignored answer may (IGNORED_POLLS reads and IGNORED_MS) is reported (exit 4), not waited on.
    let unasked: { since: number; reads: number } | undefined;
    const checkUnasked = (snapshot: Snapshot) => {
      if (
        snapshot.status !== "input_required" ||
        !snapshot.inputListed ||
        snapshot.inputRequests.length > 0 ||
        inputJob ||
        doubt
      ) {
        unasked = undefined;
        return;
      }
      unasked ??= { since: this.clock.now(), reads: 0 };
      if (++unasked.reads > IGNORED_POLLS && this.clock.now() - unasked.since >= IGNORED_MS) {
        throw new ProtocolViolation(
          `the server says the task needs input but asks no question (input_required with an empty inputRequests, for ${Math.round((this.clock.now() - unasked.since) / 1000)} s)`,
          `keep waiting with: mcp-task watch ${shellWord(taskId)}`,
          taskId,
        );
      }
    };
    const serviceInput = (snapshot: Snapshot) => {
      if (snapshot.status !== "input_required") {
        // The task moved on (answered elsewhere, timed out): withdraw a question still waiting for a person.
        inputAbort?.abort();
        this.reasked.delete(taskId);
        return;
      }
      if (inputJob) return;
      const open = snapshot.inputRequests.filter((request) => !answered.has(request.key));
      if (open.length) options.onInput?.(taskId, open);
      if (!options.answerInput) return;
      // Every listed question is answered already: the server has yet to take the answers in.
      if (snapshot.inputListed && open.length === 0) return;
      if (!this.input?.available) {
        // Nobody can answer: fail now, before the server hands the question over (V1 would consume it).
        const question = open[0]?.params.message;
        this.inputErrors.set(
          taskId,
          inputUnavailable(taskId, typeof question === "string" ? question : snapshot.statusMessage),
        );
        wakeUp();
        return;
      }
      const abort = (inputAbort = new AbortController());
      const signal = options.signal ? AbortSignal.any([options.signal, abort.signal]) : abort.signal;
      inputJob = (async () => {
        try {
          const keys = await this.wire.serviceInput(snapshot, { answered, signal });
          for (const key of keys) answered.add(key);
          if (keys.length) options.onDelivered?.();
          await options.onAnswered?.(keys);
        } catch (error) {
          if (!abort.signal.aborted) {
            this.inputErrors.set(taskId, error as Error);
            wakeUp();
          }
        } finally {
          inputJob = undefined;
          if (this.inputErrors.has(taskId)) wakeUp();
        }
      })();
    };
    try {
      for (;;) {
        if (options.signal?.aborted) throw options.signal.reason;
        // A refusal waits for the answers delivered beside it to be recorded (their job is still running).
        const refused = inputJob ? undefined : this.inputErrors.get(taskId);
        if (refused) {
          this.inputErrors.delete(taskId);
          throw refused;
        }
        if (pushed) {
          const snapshot = pushed;
          pushed = undefined;
          await settle(snapshot);
          if (isTerminal(snapshot.status)) {
            // A final push that carries its outcome ends the watch without a read; one without, reads it now.
            if (snapshot.status === "cancelled" || snapshot.result || snapshot.error) {
              last = snapshot;
              yield snapshot;
              return;
            }
            due = this.clock.now();
          } else {
            // A push is fresh word from the server: the next poll waits PUSH_GRACE intervals from it (so no poll is
            // spent while pushes flow, even when they come at the poll's own pace), but never longer than
            // PUSH_TRUST_MS without a read of our own.
            const interval = intervalOf(snapshot.pollIntervalMs !== undefined ? snapshot : last);
            lastPoll ??= this.clock.now();
            due = Math.min(
              Math.max(due, this.clock.now() + PUSH_GRACE * interval),
              lastPoll + Math.max(PUSH_TRUST_MS, interval),
            );
            if (changed(snapshot)) {
              last = snapshot;
              yield snapshot;
              serviceInput(snapshot);
            }
          }
        }
        if (this.clock.now() >= due) {
          let snapshot: Snapshot;
          try {
            lastPoll = this.clock.now();
            snapshot = await this.wire.getTask(taskId, options.signal);
            failures = 0;
            failingSince = undefined;
          } catch (error) {
            if (options.signal?.aborted) throw options.signal.reason;
            if (!(error instanceof ServerError) || !error.transient) throw error;
            failingSince ??= this.clock.now();
            if (this.clock.now() - failingSince > (options.giveUpMs ?? 60_000)) {
              // An answer still in doubt is reported as not delivered: the handle does not count it as answered.
              if (doubt)
                throw answerNotDelivered(
                  taskId,
                  doubt.answers.map((answer) => answer.request),
                  error,
                );
              throw error;
            }
            failures++;
            const wait = backoff(failures, options.floorMs);
            options.onRetry?.(error, wait);
            due = this.clock.now() + wait;
            continue;
          }
          await settle(snapshot);
          checkIgnored(snapshot);
          checkUnasked(snapshot);
          if (changed(snapshot) || isTerminal(snapshot.status)) {
            last = snapshot;
            yield snapshot;
          }
          if (isTerminal(snapshot.status)) return;
          serviceInput(snapshot);
          due = this.clock.now() + Math.min(pace(snapshot), Math.max(PUSH_TRUST_MS, intervalOf(snapshot)));
        }
        if (!woken) {
          const signals = options.signal ? [options.signal, wake.signal] : [wake.signal];
          await this.clock.sleep(due - this.clock.now(), AbortSignal.any(signals));
        }
        woken = false;
        if (wake.signal.aborted) wake = new AbortController();
      }
    } finally {
      inputAbort?.abort();
      this.wakers.delete(taskId);
      this.deliveries.delete(taskId);
      this.doubts.delete(taskId);
      this.reasked.delete(taskId);
      for (const key of [...this.resend.keys()]) if (key.startsWith(resendKey(taskId, ""))) this.resend.delete(key);
      unsubscribe();
    }
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
  return { taskId: snapshot.taskId, status: "cancelled" };
}

const resendKey = (taskId: string, key: string) => `${taskId}\n${key}`;
/** A question as asked, without its `_meta` (which may carry per-request details). */
const questionOf = (request: InputRequest) => JSON.stringify([request.method, { ...request.params, _meta: undefined }]);

/** What counts as a visible change between two snapshots. */
function fingerprint(snapshot: Snapshot, answered: ReadonlySet<string>): string {
  const open = snapshot.inputRequests.filter((request) => !answered.has(request.key)).map((request) => request.key);
  return JSON.stringify([snapshot.status, snapshot.statusMessage ?? "", open, snapshot.pollIntervalMs ?? null]);
}

/** Exponential backoff with full jitter, from 500 ms up to 30 s. */
export function backoff(failures: number, floorMs = 0): number {
  const ceiling = Math.min(MAX_BACKOFF_MS, 500 * 2 ** Math.min(failures, 10));
  return Math.max(floorMs, Math.round(ceiling / 2 + (Math.random() * ceiling) / 2));
}
