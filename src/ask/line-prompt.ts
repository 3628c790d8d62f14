// A line-by-line prompt for a server's question, on stderr, for a person at a terminal without the live view (the
// Ink form replaces it on TTYs). It asks the head of the one queue of questions (./queue.ts), one at a time however
// many arrive together; a question withdrawn while it is asked is said so and its reading stopped.
import type { Interface } from "node:readline/promises";
import type { IO } from "../context.js";
import { cutText } from "../errors.js";
import { setOwn } from "../data.js";
import { sanitizeLine } from "../sanitize.js";
import type { InputRequest, InputResponse } from "../protocol/wire.js";
import { fieldsOf, requestedForm, type Field } from "../tasks/fields.js";
import type { InputProvider } from "../tasks/input.js";
import { isSampling } from "../tasks/sampling.js";
import { schemaProblem } from "../tasks/schema.js";
import { QuestionQueue, type Question } from "./queue.js";
import { lineReader, taskWhere } from "./reader.js";
import { askSampling } from "./sampling-prompt.js";
import { isUrlRequest } from "../tasks/url-elicitation.js";
import { askUrl } from "./url-prompt.js";
import { quotedLines } from "./quote.js";

export function linePrompt(io: IO): InputProvider {
  let questions: readonly Question[] = [];
  let asking: { id: number; stop: AbortController } | undefined;
  const queue = new QuestionQueue({
    questions: () => questions,
    change: (change) => {
      questions = change.questions;
      // Withdrawn while asked: stop reading it, and say so (the person may be typing an answer).
      if (asking && !questions.some((q) => q.id === asking!.id)) {
        asking.stop.abort(new Error("question withdrawn"));
        if (change.notice) io.stderr.write(`\n  ${change.notice}\n`);
      }
      next();
    },
  });
  const next = () => {
    const head = questions[0];
    if (asking || !head) return;
    const stop = new AbortController();
    asking = { id: head.id, stop };
    // (A readline closed under a pending question may leave it pending on some Node lines: the abort ends the wait.)
    const withdrawn = new Promise<never>((_, reject) =>
      stop.signal.addEventListener("abort", () => reject(stop.signal.reason as Error), { once: true }),
    );
    Promise.race([ask(io, head.request, head.taskId, stop.signal), withdrawn]).then(
      (response) => {
        asking = undefined;
        queue.answer(head.id, response);
      },
      (error: Error) => {
        asking = undefined;
        queue.fail(head.id, error); // (nothing, if it was withdrawn: then the next is asked here)
        next();
      },
    );
  };
  return queue.provider;
}

async function ask(io: IO, request: InputRequest, taskId: string | null, signal: AbortSignal): Promise<InputResponse> {
  const say = (text: string) => io.stderr.write(`${text}\n`);
  if (isSampling(request)) return askSampling(io, request, taskId, signal);
  if (request.method !== "elicitation/create") {
    say(
      `mcp-task: the server asks for ${sanitizeLine(request.method)}; mcp-task does not support it, so it is declined.`,
    );
    return { action: "decline" };
  }
  if (isUrlRequest(request)) return askUrl(io, request, taskId, signal);
  const rl = await lineReader(io, signal);
  try {
    const where = taskWhere(taskId);
    // The server's message quoted under a header of mcp-task's (./quote.ts): none of its lines can pass for ours.
    const message = typeof request.params.message === "string" ? cutText(request.params.message) : "";
    say(`\n? The server asks for input${where}${message ? ":" : ""}`);
    if (message) for (const line of quotedLines(message)) say(line);
    const choice = (await rl.question("  answer, decline or cancel? [A/d/c] ")).trim().toLowerCase();
    if (choice.startsWith("d")) return { action: "decline" };
    if (choice.startsWith("c")) return { action: "cancel" };
    // The one reader of a requestedSchema (../tasks/fields.ts), and the form's own reading of typed text
    // (../tasks/field-input.ts, loaded when a question comes).
    const schema = requestedForm(request);
    const fields = await import("../tasks/field-input.js");
    for (;;) {
      const content: Record<string, unknown> = {};
      for (const field of fieldsOf(schema)) {
        const value = await askField(rl, say, field, fields);
        if (value !== undefined) setOwn(content, field.name, value); // a field may be named `__proto__`
      }
      const problem = await schemaProblem(schema, content, "the question's requestedSchema");
      if (!problem) return { action: "accept", content };
      say(`  that does not fit the form: ${sanitizeLine(problem)}; again:`);
    }
  } finally {
    rl.close();
  }
}

async function askField(
  rl: Interface,
  say: (text: string) => void,
  field: Field,
  fields: typeof import("../tasks/field-input.js"),
): Promise<unknown> {
  const choices = field.kind === "enum" || field.kind === "oneOf" ? field.choices : undefined;
  if (field.description) for (const line of quotedLines(field.description)) say(line);
  if (choices) choices.forEach((c, i) => say(`    ${i + 1}) ${c.title}`));
  const hint = field.kind === "boolean" ? " [y/n]" : choices ? ` [1-${choices.length}]` : "";
  const fallback =
    field.default !== undefined
      ? ` (default ${sanitizeLine(JSON.stringify(field.default))})`
      : field.required
        ? ""
        : " (optional)";
  for (;;) {
    const raw = (await rl.question(`  › ${field.title}${hint}${fallback}: `)).trim();
    if (raw === "" && field.default !== undefined) return field.default;
    // A choice by its number, else by its value or title (parseField).
    const picked = choices && /^\d+$/.test(raw) ? choices[Number(raw) - 1] : undefined;
    const parsed = picked ? { value: picked.value } : fields.parseField(field, raw);
    const problem =
      "error" in parsed
        ? choices
          ? `pick 1 to ${choices.length}`
          : parsed.error
        : fields.checkField(field, parsed.value);
    if (!problem) return "value" in parsed ? parsed.value : undefined;
    say(`  ${problem}`);
  }
}

/** Asks a yes/no question on stderr; anything but y/yes is no. */
export async function confirm(io: IO, question: string): Promise<boolean> {
  const rl = await lineReader(io);
  try {
    return /^(y|yes)$/i.test((await rl.question(`${question} [y/N] `)).trim());
  } catch {
    return false; // stdin closed
  } finally {
    rl.close();
  }
}
