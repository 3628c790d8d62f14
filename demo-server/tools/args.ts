// Helpers of the tools: results, argument readers that answer -32602 for a bad argument, elicitation forms.

import { ProtocolError } from "@modelcontextprotocol/server";
import type { InputRequest, JsonObject } from "../task.js";

const INVALID_PARAMS = -32602;

export const textResult = (text: string, structuredContent?: JsonObject): JsonObject => ({
  content: [{ type: "text", text }],
  ...(structuredContent !== undefined && { structuredContent }),
});

export function badArgs(message: string): never {
  throw new ProtocolError(INVALID_PARAMS, `Invalid arguments: ${message}`);
}

export function strArg(args: JsonObject, key: string, fallback?: string): string {
  const v = args[key];
  if (v === undefined || v === null) {
    if (fallback === undefined) badArgs(`${key} is required`);
    return fallback;
  }
  if (typeof v !== "string") badArgs(`${key} must be a string`);
  return v;
}

export function numArg(args: JsonObject, key: string, fallback: number | undefined, min: number, max: number): number {
  const v = args[key];
  if (v === undefined || v === null) {
    if (fallback === undefined) badArgs(`${key} is required`);
    return fallback;
  }
  // A number given as a numeric string (a form or a command line) is accepted.
  const n = typeof v === "string" && v.trim() !== "" ? Number(v) : v;
  if (typeof n !== "number" || !Number.isFinite(n)) badArgs(`${key} must be a number`);
  if (n < min || n > max) badArgs(`${key} must be between ${min} and ${max}`);
  return n;
}

export function enumArg<T extends string>(
  args: JsonObject,
  key: string,
  values: readonly T[],
  fallback: T | undefined,
): T {
  const v = args[key] ?? fallback;
  if (v === undefined) badArgs(`${key} is required`);
  if (typeof v !== "string" || !values.includes(v as T)) badArgs(`${key} must be one of ${values.join(", ")}`);
  return v as T;
}

export function elicitForm(message: string, properties: JsonObject, required: string[]): InputRequest {
  return {
    method: "elicitation/create",
    params: { mode: "form", message, requestedSchema: { type: "object", properties, required } },
  };
}

/** The accepted form content of an answer, or the action when it was not accepted. */
export function answerOf(response: JsonObject | undefined): { action: string; content: JsonObject } {
  const action = typeof response?.action === "string" ? response.action : "cancel";
  const content =
    response?.content !== null && typeof response?.content === "object" && !Array.isArray(response?.content)
      ? (response.content as JsonObject)
      : {};
  return { action, content };
}
