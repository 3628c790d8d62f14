// Before a call: the server's tool by name, and the arguments checked against its inputSchema.
import { UsageError } from "../errors.js";
import { excludedTool } from "../protocol/param-headers.js";
import type { ToolInfo } from "../protocol/wire.js";
import type { TaskEngine } from "./engine.js";
import { shellWord } from "../sanitize.js";
import { getOwn, setOwn } from "../data.js";

/**
 * `mcp-task tools` for the server as it was given (`option`: `--stdio '<line>'`, `-s <name>`, or "" for the
 * default server), and one tool's schema when `tool` is given (last: shellWord may put `--` before it).
 */
export function toolsCommand(option: string, tool?: string): string {
  return ["mcp-task tools", option, tool === undefined ? "" : shellWord(tool)].filter(Boolean).join(" ");
}

/**
 * The tool `name` of the server behind `engine`, with `args` read by its inputSchema (`typed`: the key=value
 * arguments as typed, see `typedArgs`) and checked against it (a UsageError when it is missing or they do not fit).
 * `seen` hears every tool's task support (cached, so that the next call knows).
 */
export async function checkedTool(
  engine: TaskEngine,
  server: { name: string; option: string },
  name: string,
  given: Record<string, unknown>,
  seen: (taskSupport: Record<string, ToolInfo["taskSupport"]>) => void,
  typed: Readonly<Record<string, string>> = {},
): Promise<{ tool: ToolInfo; args: Record<string, unknown> }> {
  const tools = await engine.listTools();
  seen(Object.fromEntries(tools.map((t) => [t.name, t.taskSupport])));
  const tool = tools.find((t) => t.name === name);
  const excluded = tool ? undefined : engine.toolExclusion(name);
  if (excluded) throw excludedTool(name, excluded);
  if (!tool) {
    const near = closest(
      name,
      tools.map((t) => t.name),
    );
    throw new UsageError(
      `${server.name} has no tool named ${name}${didYouMean(near)}`,
      `list the tools with: ${toolsCommand(server.option)}`,
    );
  }
  const args = typedArgs(tool.inputSchema, given, typed);
  const problem = await engine.argumentsProblem(tool.inputSchema, args, `tool ${name}'s inputSchema`);
  if (problem)
    throw new UsageError(
      `the arguments do not fit ${name}'s inputSchema: ${problem}`,
      `see the schema with: ${toolsCommand(server.option, name)}`,
    );
  return { tool, args };
}

/**
 * The arguments as the tool's inputSchema reads them: a key=value argument (its text in `typed`) was taken as JSON
 * where it parses (`n=3`, `flag=true`); where the property's declared `type` does not take that value but takes a
 * string, it is the text as typed (`message=42` is "42" for a string), and a string that is a number where the
 * type is number or integer is that number. Keys that `typed` does not hold (`--args`) are left as they are.
 */
export function typedArgs(
  schema: Readonly<Record<string, unknown>>,
  args: Record<string, unknown>,
  typed: Readonly<Record<string, string>>,
): Record<string, unknown> {
  const properties = getOwn(schema, "properties");
  if (!properties || typeof properties !== "object") return args;
  const out = { ...args };
  for (const key of Object.keys(typed)) {
    if (!Object.hasOwn(out, key)) continue;
    const property = getOwn(properties as Record<string, unknown>, key) as { type?: unknown } | undefined;
    const declared = typeof property?.type === "string" ? [property.type] : property?.type;
    if (!Array.isArray(declared)) continue;
    const value = out[key];
    const text = typed[key]!;
    const type = jsonType(value);
    if (declared.includes(type) || (type === "integer" && declared.includes("number"))) continue;
    if (declared.includes("string")) setOwn(out, key, text);
    else if ((declared.includes("number") || declared.includes("integer")) && NUMBER.test(text.trim()))
      setOwn(out, key, Number(text));
  }
  return out;
}

const NUMBER = /^-?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** The JSON Schema type of a parsed JSON value (a whole number's: "integer", which a "number" also takes). */
function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

/** " (Did you mean <name>?)", commander's words for a misspelt command, or "" where nothing is near. */
export function didYouMean(near: string | undefined): string {
  return near === undefined ? "" : ` (Did you mean ${shellWord(near)}?)`;
}

/**
 * The candidate nearest to `name` by edit distance, where near enough to be a slip (at most a third of its length,
 * and at least one edit): what commander suggests for a misspelt command, for a tool.
 */
export function closest(name: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(1, Math.floor(name.length / 3)) + 1;
  for (const candidate of candidates) {
    const d = editDistance(name, candidate);
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return best;
}

/** Levenshtein distance, a transposition of two neighbours counting as one edit. */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = d;
    }
  return rows[a.length]![b.length]!;
}
