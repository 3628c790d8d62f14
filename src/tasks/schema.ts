// JSON Schema checks: a tool's outputSchema against its final result, a tool's inputSchema against the arguments,
// and an answer against an elicitation's requestedSchema. A schema comes from the server: before anything compiles,
// walks or draws it, ../protocol/schema-bounds.ts measures it (depth, values, keys, string and pattern lengths:
// src/limits.ts), so that no schema can overflow the stack or hold mcp-task for long; the validator (./validator.ts:
// AJV with a linear-time regular-expression engine) is loaded on the first check.
import { ProtocolViolation } from "../errors.js";
import { checkFormBounds, checkSchemaBounds } from "../protocol/schema-bounds.js";
import { sanitizeLine } from "../sanitize.js";
export { formOverLimit } from "../protocol/schema-bounds.js";
import type { CallToolResult, InputRequest, ToolInfo } from "../protocol/wire.js";

/**
 * Checks a server's question before anyone answers it (engine: every question of both generations passes here; V2
 * questions were measured already as tasks/get arrived): a form past the bounds is refused with a protocol
 * violation (exit 4) and left unanswered (V1: the server's request gets an error reply).
 */
export function checkQuestion(request: InputRequest): void {
  if (request.method === "elicitation/create" && request.params.requestedSchema !== undefined)
    checkFormBounds(request.params.requestedSchema);
}

let compile: typeof import("./validator.js").compile | undefined;
let validator: Promise<typeof import("./validator.js")> | undefined;
const loadValidator = () => (validator ??= import("./validator.js"));

/**
 * Loads the validator and builds its usual engine ahead of the first check (failures are left to that check): a
 * call's arguments are checked once the server has listed its tools, and ~15 ms of loading and building (server-
 * everything's echo) then delayed the call; started as the connection begins, it is done while the server boots.
 */
export function warmSchemaChecks(): void {
  void loadValidator()
    .then((loaded) => loaded.warm())
    .catch(() => {});
}

/**
 * Undefined when valid, else the validator's complaint. Throws a ProtocolViolation for a schema past a bound
 * (`what` names it in the message), and for one AJV cannot compile: the server's schema is broken, not the value
 * checked against it (an inputSchema with a property named by a lone surrogate had made `call` say the person's
 * arguments did not fit, exit 2). `uncompilable: "report"` makes that a complaint instead (a result's outputSchema:
 * the result is shown with the warning).
 */
export async function schemaProblem(
  schema: Record<string, unknown>,
  value: unknown,
  what = "a schema",
  options: { uncompilable?: "throw" | "report" } = {},
): Promise<string | undefined> {
  checkSchemaBounds(schema, what);
  compile ??= (await loadValidator()).compile;
  let check: (value: unknown) => string | undefined;
  try {
    check = compile(schema);
  } catch (error) {
    const why = sanitizeLine(error instanceof Error ? error.message : String(error)).slice(0, 200);
    if (options.uncompilable === "report") return `the schema cannot be checked (${why})`;
    throw new ProtocolViolation(`${what} from the server cannot be compiled: ${why}`);
  }
  return check(value);
}

/**
 * Checks a final result's structuredContent against the tool's outputSchema. Only on final results, and not
 * when the tool reported an error (docs/protocol.md#both-generations).
 */
export async function outputProblem(tool: ToolInfo | undefined, result: CallToolResult): Promise<string | undefined> {
  if (!tool?.outputSchema || result.isError) return undefined;
  if (result.structuredContent === undefined)
    return "the tool declares an outputSchema but the result has no structuredContent";
  const problem = await schemaProblem(tool.outputSchema, result.structuredContent, `tool ${tool.name}'s outputSchema`, {
    uncompilable: "report",
  });
  return problem ? `the result does not match the tool's outputSchema: ${problem}` : undefined;
}
