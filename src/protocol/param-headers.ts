// SEP-2243 (2026-07-28 Streamable HTTP): a tool's inputSchema may mark a property with `x-mcp-header: Name`; each
// tools/call then mirrors that argument into an `Mcp-Param-Name` header, and a tool whose declarations break the
// rules is left out of `tools` and never called. The rules are the SDK's (@modelcontextprotocol/client 2.4,
// core-internal/src/shared/mcpParamHeaders.ts: scanXMcpHeaderDeclarations, buildMcpParamHeaders), which it applies
// only inside its own `client.callTool`/`listTools` and does not export; mcp-task sends tools/call on its raw
// channel (rpc.ts), so they are written out here, following the SDK's line by line.

import { UsageError } from "../errors.js";
import { sanitizeLine } from "../sanitize.js";

/** One `x-mcp-header` declaration: where the argument sits in `arguments`, and the header's name. */
export interface HeaderDeclaration {
  readonly path: readonly string[];
  readonly headerName: string;
}

export type HeaderScan = { valid: true; declarations: HeaderDeclaration[] } | { valid: false; reason: string };

const KEY = "x-mcp-header";
/** RFC 9110 §5.1 `token`: no empty name, space, control character or delimiter. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** The property types a declaration may sit on (`number` is excluded by the spec, so are objects and arrays). */
const PRIMITIVE = new Set(["string", "integer", "boolean"]);
/** Subschemas a `properties` chain does not pass through: a declaration under any of them is invalid. */
const UNREACHABLE = [
  "items",
  "prefixItems",
  "contains",
  "additionalProperties",
  "unevaluatedProperties",
  "unevaluatedItems",
  "propertyNames",
  "patternProperties",
  "dependentSchemas",
  "oneOf",
  "anyOf",
  "allOf",
  "not",
  "if",
  "then",
  "else",
  "$defs",
  "definitions",
];
const NAMED_SUBSCHEMAS = new Set(["patternProperties", "dependentSchemas", "$defs", "definitions"]);

const pathName = (path: readonly string[]) => (path.length === 0 ? "<root>" : path.join("."));

/**
 * The `x-mcp-header` declarations of a tool's inputSchema, or the first rule one breaks. The schema has been
 * measured (schema-bounds.ts) before this walks it, so the recursion is bounded by MAX_SCHEMA_DEPTH.
 */
export function scanHeaderDeclarations(inputSchema: unknown): HeaderScan {
  const declarations: HeaderDeclaration[] = [];
  const seen = new Map<string, string>();
  const visit = (node: unknown, path: string[], reachable: boolean): string | undefined => {
    if (node === null || typeof node !== "object") return undefined;
    const schema = node as Record<string, unknown>;
    if (Object.hasOwn(schema, KEY)) {
      if (!reachable || path.length === 0)
        return `${pathName(path)}: x-mcp-header is allowed only on properties reached through 'properties'`;
      const name = schema[KEY];
      if (typeof name !== "string" || name.length === 0) return `${pathName(path)}: x-mcp-header is empty`;
      if (!TOKEN.test(name)) return `${pathName(path)}: x-mcp-header '${name}' is not a valid HTTP header name`;
      const type = typeof schema.type === "string" ? schema.type : undefined;
      if (!type || !PRIMITIVE.has(type))
        return `${pathName(path)}: x-mcp-header is allowed only on string, integer and boolean properties (not ${type ?? "untyped"})`;
      const prior = seen.get(name.toLowerCase());
      if (prior !== undefined) return `x-mcp-header '${name}' is declared twice (also as '${prior}')`;
      seen.set(name.toLowerCase(), name);
      declarations.push({ path, headerName: name });
    }
    const properties = schema.properties;
    if (properties !== null && typeof properties === "object")
      for (const [key, child] of Object.entries(properties)) {
        const fault = visit(child, [...path, key], reachable);
        if (fault !== undefined) return fault;
      }
    for (const keyword of UNREACHABLE) {
      const sub = schema[keyword];
      if (sub === undefined) continue;
      const branches = Array.isArray(sub)
        ? sub
        : sub !== null && typeof sub === "object" && NAMED_SUBSCHEMAS.has(keyword)
          ? Object.values(sub)
          : [sub];
      for (const branch of branches) {
        const fault = visit(branch, [...path, `<${keyword}>`], false);
        if (fault !== undefined) return fault;
      }
    }
    return undefined;
  };
  const fault = visit(inputSchema, [], true);
  return fault === undefined ? { valid: true, declarations } : { valid: false, reason: fault };
}

/** A primitive argument as the header's text (the spec's conversions); undefined: no header for it. */
function asText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number" && Number.isFinite(value) && (!Number.isInteger(value) || Number.isSafeInteger(value)))
    return String(value);
  return undefined;
}

/** True when `text` cannot travel as a plain HTTP field value (non-ASCII, control bytes, edge spaces, a sentinel). */
function needsBase64(text: string): boolean {
  if (text.length === 0 || text !== text.trim()) return true;
  if (text.startsWith("=?base64?") && text.endsWith("?=")) return true;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 9 && (c < 32 || c > 126)) return true;
  }
  return false;
}

/** A header value per the spec's encoding: plain when safe, else `=?base64?{base64 of UTF-8}?=`. */
export function encodeHeaderValue(text: string): string {
  return needsBase64(text) ? `=?base64?${Buffer.from(text, "utf8").toString("base64")}?=` : text;
}

/** The `Mcp-Param-*` headers of one tools/call: a declared argument that is absent, null or not primitive has none. */
export function paramHeaders(
  declarations: readonly HeaderDeclaration[],
  args: Record<string, unknown>,
): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const { path, headerName } of declarations) {
    let value: unknown = args;
    for (const key of path)
      value =
        value !== null && typeof value === "object" && Object.hasOwn(value, key) ? (value as never)[key] : undefined;
    const text = value === null || value === undefined ? undefined : asText(value);
    if (text !== undefined) headers[`Mcp-Param-${headerName}`] = encodeHeaderValue(text);
  }
  return headers;
}

/** The refusal to call a tool left out of `tools` for its x-mcp-header declarations (exit 2, nothing sent). */
export function excludedTool(name: string, reason: string): UsageError {
  return new UsageError(
    sanitizeLine(`tool ${name} is not called: its inputSchema declares an invalid x-mcp-header (${reason})`),
    "the tool's declarations are the server's to fix; see the valid tools with: mcp-task tools",
  );
}
