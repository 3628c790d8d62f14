// `mcp-task respond <id> --template`: a JSON skeleton of the task's outstanding forms, to edit and give back with
// `respond --input @file`: each field's default, else its first choice, else an empty value; a line per field on
// stderr says what it takes. The questions are read from the server (or the broker or keeper that holds them where
// the server hands each over once); none is answered here.
import type { Context } from "../../context.js";
import { setOwn } from "../../data.js";
import { InputRequiredError, UsageError } from "../../errors.js";
import { createPrinter } from "../../output/printer.js";
import { safeJson, sanitizeLine, shellWord } from "../../sanitize.js";
import { requestedForm, templateOf } from "../../tasks/fields.js";
import { preparedAnswers } from "../../tasks/input.js";
import { readUnlessLost } from "../../tasks/away.js";
import { reconnect } from "../../tasks/reconnect.js";
import { isSampling } from "../../tasks/sampling.js";
import { openRequests, type InputRequest } from "../../protocol/wire.js";
import type { TaskRef } from "../options.js";

export async function runTemplate(options: TaskRef & { json: boolean }, ctx: Context): Promise<number> {
  const tracked = await ctx.tracker.open(options.id, options.server);
  const { handle } = tracked;
  const id = shellWord(handle.taskId);
  if (handle.outcome)
    throw new UsageError(`task ${handle.taskId} has ended (${handle.outcome.status}): nothing to answer`);
  // The questions as the server lists them now (or, where it hands each over once, as its broker or the session's
  // keeper holds them): one saved on the handle may have been answered since.
  const { wire } = await reconnect(tracked, ctx, preparedAnswers({}));
  let questions: InputRequest[];
  let once: boolean;
  try {
    // A question that cannot come here (its keeper stopped, or it went to the home the task came from): said so,
    // rather than a hint to fetch it (src/tasks/away.ts).
    const snapshot =
      (await readUnlessLost(handle, wire, ctx.clock, ctx.interrupt)) ??
      (await wire.getTask(handle.taskId, ctx.interrupt));
    await tracked.observe(snapshot);
    questions = openRequests(snapshot.inputRequests, handle.answered);
    once = wire.capabilities.handsQuestionsOnce;
  } finally {
    await wire.close();
  }
  // Every form the task lists, in one object: one `--input` object answers each question it has fields for.
  const forms = questions.filter((q) => q.method === "elicitation/create");
  if (!forms.length) throw nothingToTemplate(handle.taskId, tracked.handle.last.status, questions, once);
  const template: Record<string, unknown> = {};
  const notes: string[] = [];
  for (const form of forms) {
    const skeleton = templateOf(requestedForm(form));
    // Field names are data (a form may name one `__proto__`): own properties, never Object.assign's setters.
    for (const [name, value] of Object.entries(skeleton.template)) setOwn(template, name, value);
    notes.push(...skeleton.notes);
  }
  const messages = forms.map((q) => (typeof q.params.message === "string" ? q.params.message : ""));
  const doc = { taskId: handle.taskId, key: forms[0]!.key, keys: forms.map((q) => q.key), message: messages[0]! };
  createPrinter(ctx.io, options.json).document({ ...doc, template, fields: notes }, () => safeJson(template, 2));
  if (!options.json) {
    const printer = createPrinter(ctx.io, false);
    for (const message of messages) if (message) printer.note(`question: ${sanitizeLine(message)}`);
    for (const note of notes) printer.note(`  ${sanitizeLine(note)}`);
    printer.note(`answer with: mcp-task respond --input @answer.json ${id}`);
  }
  return 0;
}

/**
 * Why there is no form to sketch: the task asks something else, or its server hands each question over once and
 * none is held for it now (2025-11-25: a watch with no answer fetches it and leaves it held), or it asks nothing yet.
 */
function nothingToTemplate(
  taskId: string,
  status: string,
  questions: InputRequest[],
  once: boolean,
): InputRequiredError {
  const id = shellWord(taskId);
  if (questions.length)
    return new InputRequiredError(
      `task ${taskId} asks something other than a form (${sanitizeLine(questions[0]!.method)})`,
      // A sampling request has no form: it is answered with a reply (watch, in a pipe, would only ask again).
      questions.some(isSampling)
        ? `reply with: mcp-task respond --sampling-reply TEXT ${id}`
        : `see the question as it comes with: mcp-task watch ${id}`,
      taskId,
    );
  if (once)
    return new InputRequiredError(
      `no question of task ${taskId} is held (${status}): its server hands each question over once, as mcp-task reads the task, and none is waiting for an answer now`,
      `fetch it with: mcp-task watch ${id} </dev/null  (it exits 6 once the question has come, and keeps it for respond); then: mcp-task respond --template ${id}`,
      taskId,
    );
  if (status !== "input_required")
    return new InputRequiredError(
      `task ${taskId} asks nothing yet (${status})`,
      `ask again once it waits for input (input_required), or answer it as it asks with: mcp-task watch ${id}`,
      taskId,
    );
  return new InputRequiredError(
    `task ${taskId} lists no question (${status})`,
    `see the question as it comes with: mcp-task watch ${id}`,
    taskId,
  );
}
