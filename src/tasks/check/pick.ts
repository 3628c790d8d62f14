// Which tool `mcp-task check` runs as a task when no --tool is given: the tools that may run as one (V1 `required`
// before `optional`; a V2 server decides per call), each with its required arguments filled from its inputSchema
// (a default, an example, a const or the first enum value, else a placeholder of the property's type) and kept only
// when the arguments then fit the schema. The task-created check tries them in turn until one answers with a task.
import { MAX_CHECK_TOOL_TRIES } from "../../limits.js";
import type { ToolInfo } from "../../protocol/wire.js";
import { schemaProblem } from "../schema.js";

export interface Candidate {
  tool: ToolInfo;
  args: Record<string, unknown>;
}

const RANK: Record<string, number> = { required: 0, optional: 1 };
const PLACEHOLDER: Record<string, unknown> = { string: "mcp-task check", number: 1, integer: 1, boolean: false };

/** A value for one property from what its schema offers, or undefined when it offers nothing to go by. */
function valueOf(property: unknown): unknown {
  if (typeof property !== "object" || property === null) return undefined;
  const schema = property as Record<string, unknown>;
  if (schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if (typeof schema.type === "string") {
    if (schema.type === "number" || schema.type === "integer")
      return typeof schema.minimum === "number" ? schema.minimum : PLACEHOLDER[schema.type];
    return PLACEHOLDER[schema.type];
  }
  return undefined;
}

/** The tool's required arguments filled from its inputSchema, under `given`; undefined when one cannot be filled. */
export function filledArgs(tool: ToolInfo, given: Record<string, unknown> = {}): Record<string, unknown> | undefined {
  const required = Array.isArray(tool.inputSchema.required) ? (tool.inputSchema.required as unknown[]) : [];
  const properties = (tool.inputSchema.properties ?? {}) as Record<string, unknown>;
  const args: Record<string, unknown> = {};
  for (const name of required) {
    if (typeof name !== "string" || name in given) continue;
    const value = valueOf(properties[name]);
    if (value === undefined) return undefined;
    args[name] = value;
  }
  return { ...args, ...given };
}

/** The tools to try, best first, at most MAX_CHECK_TOOL_TRIES, each with arguments that fit its inputSchema. */
export async function candidates(tools: readonly ToolInfo[], given?: Record<string, unknown>): Promise<Candidate[]> {
  const taskable = tools
    .filter((tool) => tool.taskSupport !== "forbidden")
    .sort((a, b) => (RANK[a.taskSupport] ?? 2) - (RANK[b.taskSupport] ?? 2));
  const picked: Candidate[] = [];
  for (const tool of taskable) {
    if (picked.length >= MAX_CHECK_TOOL_TRIES) break;
    const args = filledArgs(tool, given);
    if (!args) continue;
    // A schema the server sent that is past a bound is the server's to fix: that tool is not tried.
    const problem = await schemaProblem(tool.inputSchema, args).catch((error: unknown) => String(error));
    if (problem === undefined) picked.push({ tool, args });
  }
  return picked;
}
