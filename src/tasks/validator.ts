// The JSON Schema validator: AJV (the engine the MCP SDK uses, in the SDK's own configuration: not strict, formats
// checked with ajv-formats, schemas not validated, all errors) with the server's regular expressions on a
// linear-time engine (./regex.ts). The SDK's AjvJsonSchemaValidator builds its AJV instances itself, with no way to
// pass the `code.regExp` option, so mcp-task builds its own. Loaded with import() by ./schema.ts, on the first check.
import type { ValidateFunction } from "ajv";
import { Ajv2019 } from "ajv/dist/2019.js";
import { Ajv2020 } from "ajv/dist/2020.js";
import { Ajv as AjvDraft7 } from "ajv";
import * as formats from "ajv-formats";
import { MAX_SCHEMA_ERRORS } from "../limits.js";
import { linearRegExp } from "./regex.js";

type Engine = InstanceType<typeof Ajv2020> | InstanceType<typeof Ajv2019> | InstanceType<typeof AjvDraft7>;

// AJV calls it as `regExp(pattern, "u")`; `code` names it in standalone code, which mcp-task does not generate.
const regExp = Object.assign((pattern: string) => linearRegExp(pattern), { code: "mcpTaskLinearRegExp" });
const addFormats = ((formats as unknown as { default?: unknown }).default ?? formats) as (ajv: Engine) => void;

const engines = new Map<string, Engine>();
function engine(dialect: "2020-12" | "2019-09" | "draft-07"): Engine {
  let found = engines.get(dialect);
  if (!found) {
    const Class = dialect === "2020-12" ? Ajv2020 : dialect === "2019-09" ? Ajv2019 : AjvDraft7;
    // ownProperties: a `required` or `properties` check of `__proto__` or `constructor` must not see Object.prototype's.
    found = new Class({
      strict: false,
      validateFormats: true,
      validateSchema: false,
      allErrors: true,
      ownProperties: true,
      code: { regExp },
    });
    addFormats(found);
    engines.set(dialect, found);
  }
  return found;
}

/**
 * The engine for a schema's declared `$schema`, as the SDK's provider picks it (none or 2020-12: 2020-12; 2019-09;
 * draft-07 and draft-06: the classic engine). Where the SDK throws on any other dialect, mcp-task checks it as
 * 2020-12: a check that may be slightly off beats none. (Eight lines rather than the SDK's `declaredDialect`,
 * which it does not export.)
 */
function dialectOf(schema: Record<string, unknown>): "2020-12" | "2019-09" | "draft-07" {
  const declared = typeof schema.$schema === "string" ? schema.$schema : "";
  if (declared.includes("2019-09")) return "2019-09";
  if (/draft-0[67]/.test(declared)) return "draft-07";
  return "2020-12";
}

/** Builds, ahead of the first check (schema.ts), the engines most tools' schemas need: none declared (2020-12), and
 *  draft-07, which the TypeScript SDK's servers declare (server-everything's echo). ~4 ms each. */
export function warm(): void {
  engine("2020-12");
  engine("draft-07");
}

/** The compiled check of a schema (AJV keeps compiled schemas by object: a schema checked twice compiles once). */
export function compile(schema: Record<string, unknown>): (value: unknown) => string | undefined {
  const ajv = engine(dialectOf(schema));
  const validate: ValidateFunction = ajv.compile(schema);
  return (value) => {
    if (validate(value)) return undefined;
    const errors = validate.errors ?? [];
    const more = errors.length > MAX_SCHEMA_ERRORS ? ` (and ${errors.length - MAX_SCHEMA_ERRORS} more)` : "";
    return ajv.errorsText(errors.slice(0, MAX_SCHEMA_ERRORS)) + more;
  };
}
