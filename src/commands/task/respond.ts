// `mcp-task respond <id>`: answer a saved task's outstanding input request from another process. It waits for the
// question if it has not come yet, answers the questions the task asks then (not those it asks after: the task's
// next question is the next command's, see OpenQuestions), and returns once the server has taken those answers and
// the task moved on (left input_required, or asks something else), or the task ends. With --json it prints one JSON
// document, like `get`.
import { Option, type Command } from "commander";
import { cutText, InterruptedError, StillRunningError, UsageError } from "../../errors.js";
import { runTemplate } from "./respond-template.js";
import type { Context } from "../../context.js";
import type { Leaf } from "../command.js";
import { createPrinter, type Printer } from "../../output/printer.js";
import { safeJson, sanitizeLine, shellValue, shellWord } from "../../sanitize.js";
import { exitCodeOf, followSettings, followTask, printerHooks } from "../../tasks/run.js";
import { readUnlessLost } from "../../tasks/away.js";
import { reconnect } from "../../tasks/reconnect.js";
import { waitSignal, withResumeHint } from "../../tasks/waiting.js";
import { inputProvider, readAnswers } from "../presentation.js";
import {
  answerFlags,
  answerOptions,
  jsonFlag,
  jsonOption,
  pickServer,
  timeoutFlag,
  timeoutOption,
  withOptions,
  type AnswerFlags,
  taskIdArgument,
  taskRef,
  type TaskRef,
} from "../options.js";
import type { InputRequest, Snapshot } from "../../protocol/wire.js";
import { OpenQuestions } from "../../tasks/input.js";
import { questionViews } from "../../tasks/views.js";
import type { FinalOutcome } from "../../model.js";

export interface RespondOptions extends TaskRef, AnswerFlags {
  timeoutMs?: number;
  json: boolean;
  /** Print a skeleton of the answer instead (./respond-template.ts). */
  template: boolean;
}

export const respond: Leaf<RespondOptions, [string]> = {
  examples: [
    "mcp-task respond 5348014916be --template > answer.json",
    "mcp-task respond 5348014916be --input @answer.json",
  ],
  declare: (parent: Command) =>
    withOptions(
      parent
        .command("respond")
        .summary("answer a saved task's outstanding input request")
        .addArgument(taskIdArgument()),
      pickServer(),
      ...answerOptions("the answer: an object of form fields", "decline the request"),
      timeoutOption("stop waiting for the question after this long; exit 7"),
      new Option("--template", "print a JSON skeleton of the outstanding question's answer instead (to edit and give)"),
      jsonOption("one JSON document on stdout"),
    ),
  parse: ([id], flags) => {
    if (
      flags.template &&
      (flags.input !== undefined || flags.decline || flags.samplingReply !== undefined || flags.openUrl !== undefined)
    )
      throw new UsageError("--template prints the question's skeleton: it takes no answer");
    return {
      ...taskRef(id, flags),
      ...answerFlags(flags),
      timeoutMs: timeoutFlag(flags),
      json: jsonFlag(flags),
      template: Boolean(flags.template),
    };
  },
  run: (options, ctx) => (options.template ? runTemplate(options, ctx) : runRespond(options, ctx)),
};

/** respond's document: what was answered, and what the task does now (its outcome, or its next question). */
function reportRespond(
  printer: Printer,
  taskId: string,
  { outcome, last, answered }: { outcome?: FinalOutcome; last: Omit<Snapshot, "result">; answered: string[] },
): number {
  // What the task asks now, none of it answered here: its next question, left for a later command.
  const next = outcome || last.status !== "input_required" ? [] : last.inputRequests;
  const doc = {
    taskId,
    answered,
    status: last.status,
    statusMessage: last.statusMessage ?? null,
    inputRequests: questionViews(next),
    outcome: outcome ?? null,
  };
  const id = shellWord(taskId);
  const name = `task ${sanitizeLine(taskId)}`;
  const asked = (request: InputRequest) => cutText(sanitizeLine(String(request.params.message ?? request.method)));
  const more = next.length > 1 ? ` (and ${next.length - 1} more)` : "";
  printer.document(doc, () =>
    outcome
      ? `${answered.length ? "answered; " : ""}${name} ended (${outcome.status}); see it with: mcp-task result ${id}`
      : next.length
        ? `answered; ${name} asks again: ${asked(next[0])}${more}\nanswer it with: mcp-task respond ${id} (see it first with: mcp-task get ${id})`
        : `answered; ${name} is ${last.status} again; follow it with: mcp-task watch ${id}`,
  );
  // Exit 0 when the task asks again: this command's answers were taken; the next question is another's.
  return outcome ? exitCodeOf(outcome) : 0;
}

export async function runRespond(options: RespondOptions, ctx: Context): Promise<number> {
  const answers = await readAnswers(options, ctx);
  const printer = createPrinter(ctx.io, options.json);
  const tracked = await ctx.tracker.open(options.id, options.server);
  const report = (outcome: FinalOutcome | undefined, last: Omit<Snapshot, "result">, answered: string[]) =>
    reportRespond(printer, tracked.taskId, { outcome, last, answered });
  // Finished (its outcome saved): nothing to answer, whether or not its server is still there.
  if (tracked.handle.outcome) return report(tracked.handle.outcome, tracked.handle.last, []);
  // The questions this command answers: those the task asks until its first answer is delivered.
  const open = new OpenQuestions(inputProvider(ctx, answers));
  const { wire, engine } = await reconnect(tracked, ctx, open, (text) => printer.note(text));
  const answeredBefore = new Set(tracked.handle.answered);
  // What this command answered: the keys its answers reached the server for (a V1 question's key is never saved
  // on the handle, and through a broker the handle learns V2 keys only once they are recorded).
  const delivered = new Set<string>();
  const answered = () => [
    ...new Set([...tracked.handle.answered.filter((key) => !answeredBefore.has(key)), ...delivered]),
  ];
  const wait = waitSignal(ctx, options.timeoutMs);
  try {
    const hooks = printerHooks(createPrinter(ctx.io, false), ctx.clock, { printResult: false });
    // A V1 question this home cannot be given (its keeper stopped, the task imported while it waited): said now.
    const first = await readUnlessLost(tracked.handle, wire, ctx.clock, wait.signal);
    const { outcome, last } = await followTask(engine, tracked, first, {
      clock: ctx.clock,
      signal: wait.signal,
      settings: followSettings(ctx),
      // Progress as text on stderr; stdout carries only the final document.
      hooks: {
        ...hooks,
        input: (taskId, requests) => (open.shown(requests), hooks.input?.(taskId, requests)),
        delivered: (keys) => (keys.forEach((key) => delivered.add(key)), open.delivered()),
      },
      // Done once an answer reached the server, none of the questions taken on still waits for its answer, and the
      // task moved on: it left input_required, or asks something else (its next question, left for a later
      // command). A question answered elsewhere (or that timed out) before this answer got there does not count:
      // wait for the next one, or the end.
      until: (snapshot, state) => {
        if (state.delivered === 0) return false;
        const waiting = snapshot.inputRequests.filter((request) => !delivered.has(request.key));
        if (waiting.some((request) => open.keys.has(request.key))) return false;
        return snapshot.status !== "input_required" || waiting.length > 0;
      },
    });
    return report(outcome, last, answered());
  } catch (error) {
    // Some questions answered, another not: say which were taken before the error says what was not.
    const taken = answered();
    if (taken.length)
      createPrinter(ctx.io, false).note(
        `answered ${taken.map((key) => sanitizeLine(key)).join(", ")} (the server has it); not the next question:`,
      );
    const resumed = withResumeHint(error, tracked.taskId);
    // Stopped waiting (--timeout, Ctrl-C) before the answer was taken: the way on is the same answer again.
    if (!taken.length && (resumed instanceof StillRunningError || resumed instanceof InterruptedError))
      resumed.hint = `answer it later with: ${respondAgain(options, tracked.taskId)}`;
    throw resumed;
  } finally {
    wait.dispose();
    await wire.close();
  }
}

/** The `respond` command line that gives the same answer again (options first: an id may start with `-`). */
function respondAgain(options: AnswerFlags, taskId: string): string {
  const { input, decline, samplingReply, samplingModel, openUrl } = options;
  const words = ["mcp-task respond"];
  if (input)
    words.push(
      `--input ${"file" in input ? shellValue(`@${input.file}`) : "stdin" in input ? "-" : shellValue(safeJson(input.value))}`,
    );
  if (decline) words.push("--decline");
  if (samplingReply !== undefined) words.push(`--sampling-reply ${shellValue(samplingReply)}`);
  if (samplingModel !== undefined) words.push(`--sampling-model ${shellValue(samplingModel)}`);
  for (const host of openUrl) words.push(`--open-url ${shellValue(host)}`);
  return [...words, shellWord(taskId)].join(" ");
}
