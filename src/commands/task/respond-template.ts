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
import { isSampling } from "../../tasks/sampling.js";
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
  const question = questions.find((q) => q.method === "elicitation/create");
  if (!question)
    throw new InputRequiredError(
      questions.length
        ? `task ${handle.taskId} asks something other than a form (${sanitizeLine(questions[0]!.method)})`
        : `task ${handle.taskId} lists no question (${handle.last.status}); a 2025-11-25 server hands its questions over on a stream`,
      // A sampling request has no form: it is answered with a reply (watch, in a pipe, would only ask again).
      questions.some(isSampling)
        ? `reply with: mcp-task respond --sampling-reply TEXT ${id}`
        : `see the question as it comes with: mcp-task watch ${id}`,
      handle.taskId,
    );
  const { template, notes } = templateOf(requestedForm(question));
  const message = typeof question.params.message === "string" ? question.params.message : "";
  createPrinter(ctx.io, options.json).document(
    { taskId: handle.taskId, key: question.key, message, template, fields: notes },
    () => safeJson(template, 2),
  );
  if (!options.json) {
    const printer = createPrinter(ctx.io, false);
    if (message) printer.note(`question: ${sanitizeLine(message)}`);
    for (const note of notes) printer.note(`  ${sanitizeLine(note)}`);
    printer.note(`answer with: mcp-task respond ${id} --input @answer.json`);
  }
  return 0;
}
