// A line-by-line prompt for a server's elicitation form, on stderr, for a person at a terminal. (The Ink form of
// the dashboard replaces it on TTYs later; this one needs nothing but readline.)
import type { Interface } from "node:readline/promises";
import type { IO } from "../context.js";
import { setOwn } from "../data.js";
import { sanitizeLine } from "../output/sanitize.js";
import type { InputRequest, InputResponse } from "../protocol/wire.js";
import type { InputProvider } from "../tasks/input.js";
import { schemaProblem } from "../tasks/schema.js";

interface FieldSchema {
  type?: string;
  title?: string;
  description?: string;
  enum?: unknown[];
  enumNames?: string[];
  oneOf?: Array<{ const: unknown; title?: string }>;
  default?: unknown;
  minimum?: number;
  maximum?: number;
}

export function linePrompt(io: IO): InputProvider {
  let queue = Promise.resolve();
  return {
    available: true,
    // One question at a time, even when several arrive together.
    answer: (request, taskId) => {
      const next = queue.then(() => ask(io, request, taskId));
      queue = next.then(() => undefined, () => undefined);
      return next;
    },
  };
}

async function ask(io: IO, request: InputRequest, taskId: string | null): Promise<InputResponse> {
  const say = (text: string) => io.stderr.write(`${text}\n`);
  if (request.method !== "elicitation/create") {
    say(`mcp-task: the server asks for ${sanitizeLine(request.method)}; mcp-task has no model, so it is declined.`);
    return { action: "decline" };
  }
  // readline is loaded when a question comes, not by every command that might ask one.
  const { createInterface } = await import("node:readline/promises");
  const rl = createInterface({ input: io.stdin, output: io.stderr as NodeJS.WritableStream, terminal: false });
  try {
    const where = taskId ? ` (task ${sanitizeLine(taskId.slice(0, 8))})` : "";
    say(`\n? ${sanitizeLine(String(request.params.message ?? "The server asks for input"))}${where}`);
    const choice = (await rl.question("  answer, decline or cancel? [A/d/c] ")).trim().toLowerCase();
    if (choice.startsWith("d")) return { action: "decline" };
    if (choice.startsWith("c")) return { action: "cancel" };
    const schema = (request.params.requestedSchema ?? { type: "object", properties: {} }) as {
      properties?: Record<string, FieldSchema>;
      required?: string[];
    };
    for (;;) {
      const content: Record<string, unknown> = {};
      for (const [name, field] of Object.entries(schema.properties ?? {})) {
        const value = await askField(rl, say, name, field, (schema.required ?? []).includes(name));
        if (value !== undefined) setOwn(content, name, value); // a field may be named `__proto__`
      }
      const problem = await schemaProblem(schema as Record<string, unknown>, content);
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
  name: string,
  field: FieldSchema,
  required: boolean,
): Promise<unknown> {
  const label = sanitizeLine(field.title ?? name);
  const choices = field.oneOf?.map((o) => ({ value: o.const, title: o.title ?? String(o.const) })) ??
    field.enum?.map((value, i) => ({ value, title: field.enumNames?.[i] ?? String(value) }));
  if (field.description) say(`  ${sanitizeLine(field.description)}`);
  if (choices) choices.forEach((c, i) => say(`    ${i + 1}) ${sanitizeLine(c.title)}`));
  const hint = field.type === "boolean" ? " [y/n]" : choices ? ` [1-${choices.length}]` : "";
  const fallback = field.default !== undefined ? ` (default ${sanitizeLine(JSON.stringify(field.default))})` : required ? "" : " (optional)";
  for (;;) {
    const raw = (await rl.question(`  ${label}${hint}${fallback}: `)).trim();
    if (raw === "") {
      if (field.default !== undefined) return field.default;
      if (!required) return undefined;
      say("  required");
      continue;
    }
    if (choices) {
      const picked = choices[Number(raw) - 1] ?? choices.find((c) => String(c.value) === raw);
      if (picked) return picked.value;
      say(`  pick 1 to ${choices.length}`);
      continue;
    }
    if (field.type === "boolean") {
      if (/^(y|yes|true)$/i.test(raw)) return true;
      if (/^(n|no|false)$/i.test(raw)) return false;
      say("  y or n");
      continue;
    }
    if (field.type === "number" || field.type === "integer") {
      const value = Number(raw);
      if (Number.isFinite(value) && (field.type === "number" || Number.isInteger(value))) return value;
      say(`  a${field.type === "integer" ? " whole" : ""} number, please`);
      continue;
    }
    return raw;
  }
}
