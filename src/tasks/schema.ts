// JSON Schema checks: a tool's outputSchema against its final result, and a prepared answer against an
// elicitation's requestedSchema. The validator is the SDK's own AJV provider.
import type { AjvJsonSchemaValidator } from "@modelcontextprotocol/client/validators/ajv";
import type { CallToolResult, ToolInfo } from "../protocol/wire.js";

let validator: AjvJsonSchemaValidator | undefined;

/** Undefined when valid, else the validator's complaint. (AJV is loaded on first use: it is heavy.) */
export async function schemaProblem(schema: Record<string, unknown>, value: unknown): Promise<string | undefined> {
  validator ??= new (await import("@modelcontextprotocol/client/validators/ajv")).AjvJsonSchemaValidator();
  const check = validator.getValidator(schema as never)(value);
  return check.valid ? undefined : check.errorMessage;
}

/**
 * Checks a final result's structuredContent against the tool's outputSchema. Only on final results, and not
 * when the tool reported an error (../shared/PROTOCOL.md).
 */
export async function outputProblem(tool: ToolInfo | undefined, result: CallToolResult): Promise<string | undefined> {
  if (!tool?.outputSchema || result.isError) return undefined;
  if (result.structuredContent === undefined) return "the tool declares an outputSchema but the result has no structuredContent";
  const problem = await schemaProblem(tool.outputSchema, result.structuredContent);
  return problem ? `the result does not match the tool's outputSchema: ${problem}` : undefined;
}
