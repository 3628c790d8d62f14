// The bounds on a schema from a server (src/limits.ts, "schemas"), measured before anything parses, compiles, walks,
// stores or draws it: JSON.parse builds a schema 20,000 levels deep without trouble, but every recursive walk after
// it (zod's parse of tools/list, AJV's compile, JSON.stringify into a handle or the broker's socket) overflows the
// stack. The wires check tool schemas as tools/list arrives; ../tasks/schema.ts checks every schema it validates
// and every question's form.
import { ProtocolViolation } from "../errors.js";
import {
  MAX_FORM_FIELDS,
  MAX_SCHEMA_DEPTH,
  MAX_SCHEMA_KEYS,
  MAX_SCHEMA_NODES,
  MAX_SCHEMA_PATTERN,
  MAX_SCHEMA_STRING,
} from "../limits.js";
import { sanitizeLine } from "../sanitize.js";

/**
 * Why a schema is past one of the bounds, or undefined when it is within all of them. Iterative (a schema 20,000
 * levels deep must not overflow the stack here either) and stopped at the first bound passed, so it costs at most
 * MAX_SCHEMA_NODES steps whatever the schema.
 */
function schemaOverLimit(schema: unknown): string | undefined {
  const stack: Array<{ value: unknown; depth: number; pattern: boolean }> = [
    { value: schema, depth: 1, pattern: false },
  ];
  let nodes = 0;
  while (stack.length > 0) {
    const { value, depth, pattern } = stack.pop()!;
    if (++nodes > MAX_SCHEMA_NODES) return `it has more than ${MAX_SCHEMA_NODES} values`;
    if (typeof value === "string") {
      if (pattern && value.length > MAX_SCHEMA_PATTERN)
        return `it has a pattern of ${value.length} characters (limit ${MAX_SCHEMA_PATTERN})`;
      if (value.length > MAX_SCHEMA_STRING)
        return `it has a string of ${value.length} characters (limit ${MAX_SCHEMA_STRING})`;
      continue;
    }
    if (typeof value !== "object" || value === null) continue;
    if (depth > MAX_SCHEMA_DEPTH) return `it nests more than ${MAX_SCHEMA_DEPTH} levels deep`;
    if (Array.isArray(value)) {
      if (value.length > MAX_SCHEMA_NODES) return `it has more than ${MAX_SCHEMA_NODES} values`;
      for (const item of value) stack.push({ value: item, depth: depth + 1, pattern: false });
      continue;
    }
    const keys = Object.keys(value);
    if (keys.length > MAX_SCHEMA_KEYS) return `one of its objects has ${keys.length} keys (limit ${MAX_SCHEMA_KEYS})`;
    const patternKeys =
      Object.hasOwn(value, "patternProperties") && (value as Record<string, unknown>).patternProperties;
    for (const key of keys) {
      if (key.length > MAX_SCHEMA_STRING)
        return `it has a key of ${key.length} characters (limit ${MAX_SCHEMA_STRING})`;
      const child = (value as Record<string, unknown>)[key];
      if (child === patternKeys && child && typeof child === "object") {
        const long = Object.keys(child).find((name) => name.length > MAX_SCHEMA_PATTERN);
        if (long !== undefined) return `it has a pattern of ${long.length} characters (limit ${MAX_SCHEMA_PATTERN})`;
      }
      stack.push({ value: child, depth: depth + 1, pattern: key === "pattern" });
    }
  }
  return undefined;
}

/** Throws the protocol violation for a schema past a bound (`what`: "tool x's outputSchema"). */
export function checkSchemaBounds(schema: unknown, what: string): void {
  const over = schemaOverLimit(schema);
  if (over) throw new ProtocolViolation(sanitizeLine(`mcp-task will not process ${what} from the server: ${over}`));
}

/** A tools/list entry's inputSchema and outputSchema, before the tool is parsed or kept: a ProtocolViolation past a bound. */
export function checkToolSchemas(tool: unknown): void {
  if (!tool || typeof tool !== "object") return;
  const { name, inputSchema, outputSchema } = tool as Record<string, unknown>;
  const label = typeof name === "string" ? `tool ${name.slice(0, 200)}'s` : "a tool's";
  if (inputSchema !== undefined) checkSchemaBounds(inputSchema, `${label} inputSchema`);
  if (outputSchema !== undefined) checkSchemaBounds(outputSchema, `${label} outputSchema`);
}

/** The number of fields of an object schema (its own `properties`), without building the list. */
function fieldCount(schema: unknown): number {
  const properties = schema && typeof schema === "object" ? (schema as Record<string, unknown>).properties : undefined;
  return properties && typeof properties === "object" && !Array.isArray(properties)
    ? Object.keys(properties).length
    : 0;
}

/** Why a form (an object schema a person fills in) is too big to show or fill, or undefined. */
export function formOverLimit(schema: unknown): string | undefined {
  const fields = fieldCount(schema);
  return fields > MAX_FORM_FIELDS ? `it has ${fields} fields (limit ${MAX_FORM_FIELDS})` : schemaOverLimit(schema);
}

const OVER_LIMIT = "x-mcp-task-over-limit";

/** What stands in for a form past its bounds once it has been measured: why it was refused, and nothing else. */
export function overLimitStandIn(over: string): Record<string, unknown> {
  return { type: "object", [OVER_LIMIT]: over };
}

/** A question's requestedSchema: a ProtocolViolation past the form's bounds (the question is left unanswered). */
export function checkFormBounds(schema: unknown): void {
  const marked =
    schema !== null && typeof schema === "object" ? (schema as Record<string, unknown>)[OVER_LIMIT] : undefined;
  const over = typeof marked === "string" ? marked : formOverLimit(schema);
  if (over)
    throw new ProtocolViolation(
      sanitizeLine(`mcp-task will not show or fill the form of a question from the server: ${over}`),
    );
}
