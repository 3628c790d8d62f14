// Where answers to a server's questions come from: given ahead of time (--input / --decline), or nowhere (a
// pipeline never waits for a person: exit 6). The interactive prompt is another InputProvider.
import { AnswerNotDeliveredError, cutText, InputRequiredError } from "../errors.js";
import { sanitizeLine, shellWord } from "../sanitize.js";
import type { InputRequest, InputResponse, QuestionHolder } from "../protocol/wire.js";
import { MAX_HOLDER_COMMAND_CHARS } from "../limits.js";
import type { DeliveryEvent } from "../model.js";
import { defaultsOf, fieldsOf, requestedForm, type Schema } from "./fields.js";
import { schemaProblem } from "./schema.js";
import { isSampling, samplingAnswer, type SamplingReply } from "./sampling.js";

export interface InputProvider {
  /** False when no answer can come from anywhere: input_required then fails at once, before asking the server. */
  readonly available: boolean;
  /** True when a sampling request can be answered (a person, or a reply given ahead): only then is it declared. */
  readonly sampling?: boolean;
  /** `signal` aborts when the question is no longer asked (the task moved on): stop asking. */
  answer(request: InputRequest, taskId: string | null, signal?: AbortSignal): Promise<InputResponse>;
}

function describe(request: InputRequest): string {
  const message = typeof request.params.message === "string" ? cutText(sanitizeLine(request.params.message), 200) : "";
  return message ? `"${message}"` : `a ${request.method} request`;
}

/** What a form expects, field by field, in a few words: `interpretation: one of programming, snake, comedy`. */
export function expected(schema: Schema): string {
  const fields = fieldsOf(schema).map((field) => {
    const choices = "choices" in field ? field.choices.map((c) => JSON.stringify(c.value)).join(", ") : undefined;
    const what = choices ? `${field.kind === "multi" ? "any" : "one"} of ${choices}` : (field.type ?? "any value");
    return `${field.name}${field.required ? "" : "?"}: ${what}`;
  });
  return sanitizeLine(fields.length ? `expected ${fields.join("; ")}` : "expected an empty object");
}

/**
 * How to give the answer later: to the task (respond), or to the call (again, with the answer); fitted to the
 * question when it is known (a form: --input, or --decline; a sampling request: --sampling-reply), and --decline
 * offered only where the request can be declined (InputRequest.declinable).
 */
function answerHint(taskId: string | null, request?: InputRequest): string {
  if (request && isSampling(request)) return samplingHint(taskId, request);
  const decline = request?.declinable === false ? "" : "--decline";
  if (request)
    return taskId
      ? `mcp-task respond --input '{...}' ${shellWord(taskId)}${decline ? `  (or ${decline})` : ""}`
      : `call again with --input '{...}'${decline ? ` or ${decline}` : ""}`;
  return taskId
    ? `mcp-task respond --input '{...}' ${shellWord(taskId)}  (or --decline; for a sampling request --sampling-reply TEXT)`
    : "call again with --input '{...}' or --decline (for a sampling request --sampling-reply TEXT)";
}

/** How to give a reply to a sampling request later (see answerHint); --decline only where it can be declined. */
function samplingHint(taskId: string | null, request: InputRequest): string {
  const decline = request.declinable === false ? "" : " (or --decline)";
  return taskId
    ? `mcp-task respond --sampling-reply TEXT ${shellWord(taskId)}${decline}`
    : `call again with --sampling-reply TEXT${decline}`;
}

/** The error for a task that waits for input nobody here can give. */
export function inputUnavailable(
  taskId: string | null,
  question: string | undefined,
  request?: InputRequest,
): InputRequiredError {
  return new InputRequiredError(
    `input required and no answer given${question ? `: ${sanitizeLine(question)}` : ""}`,
    answerHint(taskId, request),
    taskId,
  );
}

/** A refusal of a question asked before its task's id was known, as the refusal of that task's question. */
export function forTask(error: Error, taskId: string): Error {
  if (!(error instanceof InputRequiredError) || error.taskId) return error;
  return new InputRequiredError(error.message, answerHint(taskId), taskId);
}

/**
 * Answers nothing: a command that hands the task back at once (--detach) leaves every question of the task to a
 * later `respond`, `watch` or the dashboard (whoever holds it keeps it). Questions before any task exists are
 * answered by `before`.
 */
export function noAnswers(before: InputProvider): InputProvider {
  return {
    available: false,
    answer: async (request, taskId, signal) => {
      if (taskId === null) return before.answer(request, taskId, signal);
      throw new InputRequiredError(
        `the task asks for input: ${describe(request)}`,
        answerHint(taskId, request),
        taskId,
      );
    },
  };
}

/**
 * The answers of a command that answers the questions a task asks now, not the ones it asks after (`respond`): the
 * questions shown (`shown`) or handed to it before its first answer was delivered (`delivered`) are answered by
 * `inner`, each as it comes; one that comes after is the task's next question, for a later command. It is not
 * refused (the watch would report a refusal as this command's failure, exit 6): it is left unanswered here until
 * the command leaves, and whoever holds it (a V1 task's broker; a V2 server lists it) keeps it for the next one.
 */
export class OpenQuestions implements InputProvider {
  /** The keys of the questions this command took on. */
  readonly keys = new Set<string>();
  private closed = false;

  constructor(private readonly inner: InputProvider) {}

  get available(): boolean {
    return this.inner.available;
  }
  get sampling(): boolean | undefined {
    return this.inner.sampling;
  }

  /** Questions shown to the person (or the script) before any answer was delivered are theirs to answer. */
  shown(requests: InputRequest[]): void {
    if (!this.closed) for (const request of requests) this.keys.add(request.key);
  }

  /** An answer reached the server: the questions taken on are all there will be. */
  delivered(): void {
    this.closed = true;
  }

  answer(request: InputRequest, taskId: string | null, signal?: AbortSignal): Promise<InputResponse> {
    if (!this.closed) this.keys.add(request.key);
    if (this.keys.has(request.key)) return this.inner.answer(request, taskId, signal);
    // Parked: neither answered nor refused, so that the server keeps it for a later command; it ends when the server
    // withdraws it or the connection goes (the signal), or with this process.
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    return new Promise((_resolve, reject) =>
      signal?.addEventListener("abort", () => reject(signal.reason as Error), { once: true }),
    );
  }
}

/** An answer the server was not seen to take before it became unreachable (see DeliveryEvent in engine.ts). */
export function answerNotDelivered(taskId: string, requests: InputRequest[], cause: Error): AnswerNotDeliveredError {
  return new AnswerNotDeliveredError(
    `answer not delivered: the connection dropped before the server confirmed the answer to ${requests.map(describe).join(", ")} (${sanitizeLine(cause.message)})`,
    `once the server is back, give it again: ${answerHint(taskId, requests.length === 1 ? requests[0] : undefined)}`,
    taskId,
  );
}

/** The line for a question the server withdrew before it was answered (the wire's `questionWithdrawn` event). */
export function withdrawnNote(request: InputRequest): string {
  return `the server stopped waiting for the answer to ${describe(request)} (its own timeout) and withdrew the question; what the task does without it is the server's to say`;
}

/**
 * The line for a question another process holds (a broker's mark, InputRequest.heldBy): which process, as it named
 * itself, and what to do here. The command it names works: a watch of the task is handed the question once that
 * process has left without answering it.
 */
export function heldElsewhereNote(taskId: string, holder: QuestionHolder): string {
  const pid = Number.isSafeInteger(holder.pid) ? `pid ${holder.pid}` : "";
  const command =
    typeof holder.command === "string" ? cutText(sanitizeLine(holder.command), MAX_HOLDER_COMMAND_CHARS) : "";
  const who = [pid, command].filter(Boolean).join(": ");
  return `the question is being answered in another process${who ? ` (${who})` : ""}; answer it there, or stop that one and run: mcp-task watch ${shellWord(taskId)}`;
}

/** One line on what became of an answer whose delivery was in doubt. */
export function deliveryNote(event: DeliveryEvent): string {
  const what = `the answer to ${event.requests.map(describe).join(", ")}`;
  switch (event.kind) {
    case "uncertain":
      return `the connection dropped while ${what} was on its way (${sanitizeLine(event.error.message)}); checking whether the server took it`;
    case "taken":
      return `the server took ${what} (confirmed after the connection dropped)`;
    case "resending":
      return `${what} did not reach the server; sending it again`;
    case "askAgain":
      return `${what} did not reach the server (the task still waits for input); it is given again when the server asks again`;
  }
}

function needInput(request: InputRequest, taskId: string | null, why: string): InputRequiredError {
  return new InputRequiredError(`${why}: ${describe(request)}`, answerHint(taskId, request), taskId);
}

/**
 * Answers from the command line. `--input` is an object of field values: each form takes the fields its
 * requestedSchema names, so one object can answer several questions.
 */
export function preparedAnswers(answer: {
  input?: Record<string, unknown>;
  decline?: boolean;
  sampling?: SamplingReply;
}): InputProvider {
  return {
    available: answer.input !== undefined || Boolean(answer.decline) || answer.sampling !== undefined,
    sampling: answer.sampling !== undefined,
    answer: async (request, taskId) => {
      if (isSampling(request)) {
        if (answer.sampling) return samplingAnswer(answer.sampling);
        if (answer.decline && request.declinable === false)
          throw needInput(
            request,
            taskId,
            "the server asks for a model's reply (sampling), which cannot be declined on its protocol",
          );
        if (answer.decline) return { action: "decline" };
        throw needInput(
          request,
          taskId,
          "the server asks for a model's reply (sampling) and no --sampling-reply was given",
        );
      }
      if (request.method !== "elicitation/create")
        throw needInput(request, taskId, `the server asks for unsupported input (${sanitizeLine(request.method)})`);
      if (answer.decline) return { action: "decline" };
      if (!answer.input) throw needInput(request, taskId, "input required and no answer given");
      if (request.params.mode === "url" || !request.params.requestedSchema)
        throw needInput(request, taskId, "the server asks for input mcp-task cannot give from --input");
      const form = requestedForm(request);
      const names = fieldsOf(form).map((field) => field.name);
      // A field the answer leaves out takes the form's default (SEP-1034): the person accepts the form as offered.
      const content = Object.fromEntries([
        ...Object.entries(defaultsOf(form)).filter(([key]) => !Object.hasOwn(answer.input!, key)),
        ...Object.entries(answer.input).filter(([key]) => names.includes(key)),
      ]);
      // Checked against the schema as sent (whatever it is), not the form read from it.
      const problem = await schemaProblem(request.params.requestedSchema as Record<string, unknown>, content);
      if (problem)
        throw needInput(
          request,
          taskId,
          `the --input answer does not fit the requested form (${expected(requestedForm(request))})`,
        );
      return { action: "accept", content };
    },
  };
}
