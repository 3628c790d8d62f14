// The questions of a watched task: answering them as the task asks (in the background, through the wire), settling
// answers whose delivery was in doubt, and reporting a server that ignores answers or asks nothing (exit 4). The
// engine's input handler and each TaskWatch share the task's state (EngineTask, engine-task.ts).
import type { Clock, DeliveryEvent } from "../model.js";
import { ProtocolViolation } from "../errors.js";
import { openRequests, type InputRequest, type Snapshot, type UncertainDelivery } from "../protocol/wire.js";
import { inputUnavailable } from "./input.js";
import { taskOf, type EngineShared } from "./engine-task.js";
import { shellWord } from "../sanitize.js";
import { IGNORED_ANSWER_MS, IGNORED_ANSWER_READS as IGNORED_POLLS } from "../limits.js";

/** A question as asked, without its `_meta` (which may carry per-request details). */
export const questionOf = (request: InputRequest) =>
  JSON.stringify([request.method, { ...request.params, _meta: undefined }]);

/** What a watch is told, and may do, about the questions of its task. */
export interface AnswerOptions {
  signal?: AbortSignal;
  /** Input keys already answered (across processes): never answered twice. Grows as answers are delivered. */
  answered?: Set<string>;
  /** Answer input when the task asks (without it, input_required is only reported). */
  answerInput?: boolean;
  /** Called with the keys whose answers were delivered (to persist them); awaited before the next answer. */
  onAnswered?: (keys: string[]) => Promise<void> | void;
  /** Called each time an answer reaches the server (both generations). */
  onDelivered?: (keys: string[]) => void;
  /**
   * Called when input requests are seen (for display); keys already answered are left out. One another process
   * holds (InputRequest.heldBy: see heldElsewhereNote) is neither asked nor answered here.
   */
  onInput?: (taskId: string, requests: InputRequest[]) => void;
  /** Told when an answer's delivery is in doubt, and what the next read of the task says about it. */
  onDelivery?: (event: DeliveryEvent) => void;
  /** How long an ignored answer or an empty question may last (with IGNORED_ANSWER_READS reads) before exit 4. */
  ignoredMs?: number;
}

/** How long a state that nothing answers has lasted: reads and since when. */
interface Lasting {
  since: number;
  reads: number;
}

/** The questions of one watched task (see the top of this file). */
export class TaskAnswers {
  private readonly clock: Clock;
  private inputJob?: Promise<void>;
  private inputAbort?: AbortController;
  /**
   * Answers whose delivery is in doubt: the task is read at once (retrying while the server is away) to settle
   * them.
   */
  private doubt?: UncertainDelivery;
  /** Answers the server acknowledged and did not take: an answered key it still lists, read after read. */
  private readonly ignored = new Map<string, Lasting>();
  /** input_required with nothing asked (V2: an empty inputRequests), since when. */
  private unasked?: Lasting;
  /**
   * The keys of the questions shown (onInput) already. A question the server lists (V2) shows each time it is
   * listed anew (asked again after an answer it did not take); one it does not list (V1, held by a broker) shows
   * once, whether read on the task or handed to the input handler.
   */
  private readonly shown = new Set<string>();
  /** Of those, the ones shown as another process's (InputRequest.heldBy): said once, with where it is asked. */
  private readonly heldShown = new Set<string>();

  /** `wake` wakes the watch; `readNow` makes it read the task at once. */
  constructor(
    private readonly shared: EngineShared,
    private readonly taskId: string,
    private readonly options: AnswerOptions,
    private readonly answered: Set<string>,
    private readonly loop: { wake(): void; readNow(): void },
  ) {
    this.clock = shared.clock;
  }

  private get ignoredMs(): number {
    return this.options.ignoredMs ?? IGNORED_ANSWER_MS;
  }

  /** True while answers are on their way (a refusal waits for the answers delivered beside it to be recorded). */
  get busy(): boolean {
    return this.inputJob !== undefined;
  }

  /** The questions whose answers are still in doubt; undefined when no delivery is. */
  get inDoubt(): InputRequest[] | undefined {
    return this.doubt?.answers.map((answer) => answer.request);
  }

  /** The watch ends: a question still waiting for a person is withdrawn. */
  close(): void {
    this.inputAbort?.abort();
  }

  /** Answers whose delivery is in doubt: read the task at once (retrying while the server is away) and settle them. */
  doubted(delivery: UncertainDelivery): void {
    const doubt = this.doubt;
    this.doubt = doubt ? { ...delivery, answers: [...doubt.answers, ...delivery.answers] } : delivery;
    this.options.onDelivery?.({
      kind: "uncertain",
      taskId: this.taskId,
      requests: delivery.answers.map((answer) => answer.request),
      error: delivery.error,
    });
    this.loop.readNow();
  }

  /** Whether an answer's delivery is in doubt: the next snapshot settles it (see settle). */
  get unsettled(): boolean {
    return this.doubt !== undefined;
  }

  async settle(snapshot: Snapshot): Promise<void> {
    if (!this.doubt) return;
    const { taskId, options, shared } = this;
    const { answers, stableKeys } = this.doubt;
    this.doubt = undefined;
    // Taken: the task no longer waits, or (where the server lists its questions) the key is no longer listed.
    const listed = new Set(snapshot.inputRequests.map((request) => request.key));
    const waiting = snapshot.status === "input_required";
    const isTaken = (request: InputRequest) => !waiting || (snapshot.inputListed === true && !listed.has(request.key));
    const taken = answers.filter(({ request }) => isTaken(request));
    const missed = answers.filter(({ request }) => !isTaken(request));
    if (taken.length) {
      const keys = taken.map(({ request }) => request.key);
      if (stableKeys) {
        for (const key of keys) this.answered.add(key);
        await options.onAnswered?.(keys);
      }
      options.onDelivery?.({ kind: "taken", taskId, requests: taken.map(({ request }) => request) });
    }
    if (missed.length) {
      if (stableKeys)
        for (const { request, response } of missed)
          (taskOf(shared, taskId).resend ??= new Map()).set(request.key, response);
      else {
        const task = taskOf(shared, taskId);
        task.reasked = [
          ...(task.reasked ?? []),
          ...missed.map(({ request, response }) => ({ question: questionOf(request), response })),
        ];
      }
      options.onDelivery?.({
        kind: stableKeys ? "resending" : "askAgain",
        taskId,
        requests: missed.map(({ request }) => request),
      });
    }
  }

  /** Throws when the server has kept listing an answered key for IGNORED_POLLS reads and ignoredMs. */
  checkIgnored(snapshot: Snapshot): void {
    const listed =
      snapshot.status === "input_required" && snapshot.inputListed
        ? snapshot.inputRequests.filter((r) => this.answered.has(r.key))
        : [];
    for (const key of [...this.ignored.keys()]) if (!listed.some((r) => r.key === key)) this.ignored.delete(key);
    if (this.inputJob || this.doubt) return;
    for (const request of listed) {
      const seen = this.ignored.get(request.key) ?? { since: this.clock.monotonic(), reads: 0 };
      seen.reads++;
      this.ignored.set(request.key, seen);
      if (seen.reads > IGNORED_POLLS && this.clock.monotonic() - seen.since >= this.ignoredMs) {
        throw new ProtocolViolation(
          `the server still asks for ${request.key} ${Math.round((this.clock.monotonic() - seen.since) / 1000)} s after mcp-task answered it (it acknowledged the answer and ignored it)`,
          `keep waiting with: mcp-task watch ${shellWord(this.taskId)}`,
          this.taskId,
        );
      }
    }
  }

  // input_required with nothing asked (V2: an empty inputRequests): nothing can be answered. A state that lasts
  // as long as an ignored answer may (IGNORED_POLLS reads and ignoredMs) is reported (exit 4), not waited on.
  checkUnasked(snapshot: Snapshot): void {
    if (
      snapshot.status !== "input_required" ||
      !snapshot.inputListed ||
      snapshot.inputRequests.length > 0 ||
      this.inputJob ||
      this.doubt
    ) {
      this.unasked = undefined;
      return;
    }
    const unasked = (this.unasked ??= { since: this.clock.monotonic(), reads: 0 });
    if (++unasked.reads > IGNORED_POLLS && this.clock.monotonic() - unasked.since >= this.ignoredMs) {
      throw new ProtocolViolation(
        `the server says the task needs input but asks no question (input_required with an empty inputRequests, for ${Math.round((this.clock.monotonic() - unasked.since) / 1000)} s)`,
        `keep waiting with: mcp-task watch ${shellWord(this.taskId)}`,
        this.taskId,
      );
    }
  }

  /** Answers what the task asks (in the background), or withdraws a question the task no longer asks. */
  serviceInput(snapshot: Snapshot): void {
    const { taskId, options, shared } = this;
    if (snapshot.status !== "input_required") {
      // The task moved on (answered elsewhere, timed out): withdraw a question still waiting for a person.
      this.inputAbort?.abort();
      const task = shared.tasks.get(taskId);
      if (task) task.reasked = undefined;
      return;
    }
    // A refusal on its way to end the watch (no answer here): nothing more is asked of the server or the broker (the
    // watch throws it once no job runs; a job started on every read kept it waiting for ever behind a big question).
    if (this.inputJob || shared.tasks.get(taskId)?.inputError) return;
    const open = openRequests(snapshot.inputRequests, this.answered);
    this.show(open, snapshot.inputListed === true);
    if (!options.answerInput) return;
    // Every listed question is answered already: the server has yet to take the answers in.
    if (snapshot.inputListed && open.length === 0) return;
    // Each question is another process's (a broker's mark: InputRequest.heldBy): nobody here is asked, nothing is
    // answered; once that process leaves without an answer, the next read carries it unmarked, and it comes here.
    if (open.length > 0 && open.every((request) => request.heldBy)) return;
    if (!shared.input?.available) {
      // Nobody can answer: fail now, before the server hands the question over (V1 would consume it).
      const question = open[0]?.params.message;
      const unavailable = typeof question === "string" ? question : snapshot.statusMessage;
      taskOf(shared, taskId).inputError = inputUnavailable(taskId, unavailable, open[0]);
      this.loop.wake();
      return;
    }
    this.inputJob = this.answer(snapshot);
  }

  /** A question handed to the input handler (V1's only way): shown unless the task's reads showed it already. */
  asked(request: InputRequest): void {
    this.show([request], false);
  }

  private show(requests: InputRequest[], listed: boolean): void {
    // One another process holds shows once more with its mark, if it showed before it was handed there.
    const fresh = listed
      ? requests
      : requests.filter(
          (request) => !this.shown.has(request.key) || (request.heldBy && !this.heldShown.has(request.key)),
        );
    for (const request of fresh) (this.shown.add(request.key), request.heldBy && this.heldShown.add(request.key));
    if (fresh.length) this.options.onInput?.(this.taskId, fresh);
  }

  private async answer(snapshot: Snapshot): Promise<void> {
    const { taskId, options, shared } = this;
    const abort = (this.inputAbort = new AbortController());
    const signal = options.signal ? AbortSignal.any([options.signal, abort.signal]) : abort.signal;
    try {
      const keys = await shared.wire.serviceInput(snapshot, { answered: this.answered, signal });
      for (const key of keys) this.answered.add(key);
      if (keys.length) options.onDelivered?.(keys);
      await options.onAnswered?.(keys);
    } catch (error) {
      if (!abort.signal.aborted) {
        taskOf(shared, taskId).inputError = error as Error;
        this.loop.wake();
      }
    } finally {
      this.inputJob = undefined;
      if (shared.tasks.get(taskId)?.inputError) this.loop.wake();
    }
  }
}
