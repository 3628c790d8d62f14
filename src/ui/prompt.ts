// A line-by-line prompt for a server's elicitation form, on stderr, for a person at a terminal. (The Ink form of
// the dashboard replaces it on TTYs later; this one needs nothing but readline.)
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
import { askSampling } from "./sampling-prompt.js";
import { isUrlRequest } from "../tasks/url-elicitation.js";
import { askUrl } from "./url-prompt.js";
import { quotedLines } from "./quote.js";

export function linePrompt(io: IO): InputProvider {
  let queue = Promise.resolve();
  return {
    available: true,
    sampling: true,
    // One question at a time, even when several arrive together.
    answer: (request, taskId) => {
      const next = queue.then(() => ask(io, request, taskId));
      queue = next.then(
        () => undefined,
        () => undefined,
      );
      return next;
    },
  };
}

async function ask(io: IO, request: InputRequest, taskId: string | null): Promise<InputResponse> {
  const say = (text: string) => io.stderr.write(`${text}\n`);
  if (isSampling(request)) return askSampling(io, request, taskId);
  if (request.method !== "elicitation/create") {
    say(
      `mcp-task: the server asks for ${sanitizeLine(request.method)}; mcp-task does not support it, so it is declined.`,
    );
    return { action: "decline" };
  }
  if (isUrlRequest(request)) return askUrl(io, request, taskId);
  // readline is loaded when a question comes, not by every command that might ask one.
  const { createInterface } = await import("node:readline/promises");
  const rl = createInterface({ input: io.stdin, output: io.stderr as NodeJS.WritableStream, terminal: false });
  try {
    const where = taskId ? ` (task ${sanitizeLine(taskId.slice(0, 8))})` : "";
    // The server's message quoted under a header of mcp-task's (./quote.ts): none of its lines can pass for ours.
    const message = typeof request.params.message === "string" ? cutText(request.params.message) : "";
    say(`\n? The server asks for input${where}${message ? ":" : ""}`);
    if (message) for (const line of quotedLines(message)) say(line);
    const choice = (await rl.question("  answer, decline or cancel? [A/d/c] ")).trim().toLowerCase();
    if (choice.startsWith("d")) return { action: "decline" };
    if (choice.startsWith("c")) return { action: "cancel" };
    // The one reader of a requestedSchema (../tasks/fields.ts), and the form's own reading of typed text
    // (./form/fields.ts, loaded when a question comes).
    const schema = requestedForm(request);
    const fields = await import("./form/fields.js");
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
  fields: typeof import("./form/fields.js"),
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
  const { createInterface } = await import("node:readline/promises");
  const rl = createInterface({ input: io.stdin, output: io.stderr as NodeJS.WritableStream, terminal: false });
  try {
    return /^(y|yes)$/i.test((await rl.question(`${question} [y/N] `)).trim());
  } catch {
    return false; // stdin closed
  } finally {
    rl.close();
  }
}
