// `mcp-task respond <id> --template`: a JSON skeleton of the task's outstanding question, to edit and give back with
// `respond --input @file`: each field's default, else its first choice, else an empty value; a line per field on
// stderr says what it takes. The question is read from the handle, else from the server (V2 lists its questions); it
// is never answered here.
import type { Context } from "../../context.js";
import { InputRequiredError, UsageError } from "../../errors.js";
import { createPrinter } from "../../output/printer.js";
import { safeJson, sanitizeLine, shellWord } from "../../sanitize.js";
import { requestedForm, templateOf } from "../../tasks/fields.js";
import { preparedAnswers } from "../../tasks/input.js";
import { reconnect } from "../../tasks/reconnect.js";
import type { InputRequest } from "../../protocol/wire.js";
import type { TaskRef } from "../options.js";

export async function runTemplate(options: TaskRef & { json: boolean }, ctx: Context): Promise<number> {
  const tracked = await ctx.tracker.open(options.id, options.server);
  const { handle } = tracked;
  const id = shellWord(handle.taskId);
  if (handle.outcome)
    throw new UsageError(`task ${handle.taskId} has ended (${handle.outcome.status}): nothing to answer`);
  let questions: InputRequest[] = handle.last.inputRequests.filter((q) => !handle.answered.includes(q.key));
  if (questions.length === 0) {
    const { wire } = await reconnect(tracked, ctx, preparedAnswers({}));
    try {
      const snapshot = await wire.getTask(handle.taskId, ctx.interrupt);
      await tracked.observe(snapshot);
      questions = snapshot.inputRequests.filter((q) => !handle.answered.includes(q.key));
    } finally {
      await wire.close();
    }
  }
  // Every form the task lists, in one object: one `--input` object answers each question it has fields for.
  const forms = questions.filter((q) => q.method === "elicitation/create");
  if (!forms.length) throw nothingToTemplate(handle.taskId, handle.last.status, questions);
  const template: Record<string, unknown> = {};
  const notes: string[] = [];
  for (const form of forms) {
    const skeleton = templateOf(requestedForm(form));
    Object.assign(template, skeleton.template);
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

/** Why there is no form to sketch: the task asks something else, or nothing yet, or its server asks on a stream (V1). */
function nothingToTemplate(taskId: string, status: string, questions: InputRequest[]): InputRequiredError {
  const id = shellWord(taskId);
  if (questions.length)
    return new InputRequiredError(
      `task ${taskId} asks something other than a form (${sanitizeLine(questions[0]!.method)})`,
      `see the question as it comes with: mcp-task watch ${id}`,
      taskId,
    );
  if (status !== "input_required")
    return new InputRequiredError(
      `task ${taskId} asks nothing yet (${status})`,
      `ask again once it waits for input (input_required), or answer it as it asks with: mcp-task watch ${id}`,
      taskId,
    );
  return new InputRequiredError(
    `task ${taskId} lists no question (${status}); a 2025-11-25 server hands its questions over on a stream`,
    `see the question as it comes with: mcp-task watch ${id}`,
    taskId,
  );
}
