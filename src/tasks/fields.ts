// The one reader of a JSON Schema object as form fields (an elicitation's requestedSchema, a tool's inputSchema):
// field kinds, choices (enum, enumNames, oneOf/anyOf of const and title), defaults, required. The Ink form and the
// line prompt (src/ui, src/ask) and the --input answers (./input.ts) all read a schema through it. Pure; titles,
// descriptions and choice titles are sanitised here, so a descriptor is safe to display. (The checks of typed values
// are ./field-input.ts; the AJV check of the whole object is ./schema.ts.)
import { setOwn } from "../data.js";
import { sanitize, sanitizeLine } from "../sanitize.js";
import type { InputRequest } from "../protocol/wire.js";

export type StringFormat = "email" | "uri" | "date" | "date-time";
const FORMATS: readonly string[] = ["email", "uri", "date", "date-time"];

export interface Choice {
  readonly value: unknown;
  /** Display-safe. */
  readonly title: string;
}

interface FieldBase {
  readonly name: string;
  /** The property's `type` as the schema writes it (for messages; not display-safe). */
  readonly type?: string;
  /** The schema's title, else the property name; display-safe. */
  readonly title: string;
  /** Display-safe (may hold newlines). */
  readonly description?: string;
  readonly required: boolean;
  readonly default?: unknown;
}

export interface StringField extends FieldBase {
  readonly kind: "string";
  readonly format?: StringFormat;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly pattern?: string;
}
export interface NumberField extends FieldBase {
  readonly kind: "number" | "integer";
  readonly minimum?: number;
  readonly maximum?: number;
  readonly exclusiveMinimum?: number;
  readonly exclusiveMaximum?: number;
}
export interface BooleanField extends FieldBase {
  readonly kind: "boolean";
}
/** `enum`: a plain `enum` (titles from legacy `enumNames`); `oneOf`: `oneOf`/`anyOf` of `{const, title}`. */
export interface ChoiceField extends FieldBase {
  readonly kind: "enum" | "oneOf";
  readonly choices: readonly Choice[];
}
/** `type: array` whose items are an `enum` or an `anyOf`/`oneOf` of `{const, title}`. */
export interface MultiField extends FieldBase {
  readonly kind: "multi";
  readonly choices: readonly Choice[];
  readonly minItems?: number;
  readonly maxItems?: number;
}
/** Anything else: edited as JSON text, checked only by the schema check of the whole form. */
export interface JsonField extends FieldBase {
  readonly kind: "json";
}

export type Field = StringField | NumberField | BooleanField | ChoiceField | MultiField | JsonField;

export type Schema = Readonly<Record<string, unknown>>;
const isObject = (v: unknown): v is Schema => typeof v === "object" && v !== null && !Array.isArray(v);
const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

function constChoices(options: unknown): Choice[] | undefined {
  if (!Array.isArray(options) || options.length === 0) return undefined;
  if (!options.every((o) => isObject(o) && "const" in o)) return undefined;
  return options.map((o: Schema) => ({ value: o.const, title: sanitizeLine(str(o.title) ?? String(o.const)) }));
}

function enumChoices(values: unknown, names: unknown): Choice[] | undefined {
  if (!Array.isArray(values) || values.length === 0) return undefined;
  const titles = Array.isArray(names) ? names : [];
  return values.map((value, i) => ({ value, title: sanitizeLine(str(titles[i]) ?? String(value)) }));
}

function fieldOf(name: string, prop: Schema, required: boolean): Field {
  const base = {
    name,
    ...(typeof prop.type === "string" ? { type: prop.type } : {}),
    title: sanitizeLine(str(prop.title) || name),
    ...(typeof prop.description === "string" && prop.description ? { description: sanitize(prop.description) } : {}),
    required,
    ...(prop.default !== undefined ? { default: prop.default } : {}),
  };
  const titled = constChoices(prop.oneOf) ?? constChoices(prop.anyOf);
  if (titled) return { ...base, kind: "oneOf", choices: titled };
  const plain = enumChoices(prop.enum, prop.enumNames);
  if (plain) return { ...base, kind: "enum", choices: plain };
  switch (prop.type) {
    case "string": {
      const format = FORMATS.includes(str(prop.format) ?? "") ? (prop.format as StringFormat) : undefined;
      return {
        ...base,
        kind: "string",
        format,
        minLength: num(prop.minLength),
        maxLength: num(prop.maxLength),
        pattern: str(prop.pattern),
      };
    }
    case "number":
    case "integer":
      return {
        ...base,
        kind: prop.type,
        minimum: num(prop.minimum),
        maximum: num(prop.maximum),
        exclusiveMinimum: num(prop.exclusiveMinimum),
        exclusiveMaximum: num(prop.exclusiveMaximum),
      };
    case "boolean":
      return { ...base, kind: "boolean" };
    case "array": {
      const items = isObject(prop.items) ? prop.items : {};
      const choices =
        constChoices(items.anyOf) ?? constChoices(items.oneOf) ?? enumChoices(items.enum, items.enumNames);
      if (choices)
        return { ...base, kind: "multi", choices, minItems: num(prop.minItems), maxItems: num(prop.maxItems) };
    }
  }
  return { ...base, kind: "json" };
}

/** The fields of an object schema, in `properties` order. Not an object schema: no fields. */
export function fieldsOf(schema: Schema): Field[] {
  const properties = isObject(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required : [];
  return Object.entries(properties).map(([name, prop]) =>
    fieldOf(name, isObject(prop) ? prop : {}, required.includes(name)),
  );
}

/** The `default` of each property that has one. */
export function defaultsOf(schema: Schema): Record<string, unknown> {
  const properties = isObject(schema.properties) ? schema.properties : {};
  return Object.fromEntries(
    Object.entries(properties).flatMap(([name, prop]) =>
      isObject(prop) && prop.default !== undefined ? [[name, prop.default]] : [],
    ),
  );
}

const EMPTY_FORM: Schema = { type: "object", properties: {} };

/** The form an elicitation asks to fill in: its requestedSchema when that is an object, else an empty form. */
export function requestedForm(request: InputRequest): Schema {
  const requested = request.params.requestedSchema;
  return requested && typeof requested === "object" && !Array.isArray(requested) ? (requested as Schema) : EMPTY_FORM;
}

/**
 * A skeleton of the answer to a form (`respond --template`): each field's default, else its first choice, else an
 * empty value of its kind; with a line per field saying what it takes.
 */
export function templateOf(schema: Schema): { template: Record<string, unknown>; notes: string[] } {
  const template: Record<string, unknown> = {};
  const notes: string[] = [];
  for (const field of fieldsOf(schema)) {
    const choices = "choices" in field ? field.choices : undefined;
    const empty: Record<Field["kind"], unknown> = {
      string: "",
      number: 0,
      integer: 0,
      boolean: false,
      enum: choices?.[0]?.value ?? null,
      oneOf: choices?.[0]?.value ?? null,
      multi: [],
      json: null,
    };
    // A field may be named `__proto__`: an own property, not the prototype's setter.
    setOwn(template, field.name, field.default !== undefined ? field.default : empty[field.kind]);
    const takes = choices
      ? `one of ${choices.map((c) => JSON.stringify(c.value)).join(", ")}`
      : (field.type ?? field.kind);
    const parts = [takes, field.required ? "required" : "optional"];
    if (field.default !== undefined) parts.push(`default ${JSON.stringify(field.default)}`);
    notes.push(
      `${field.name}: ${parts.join(", ")}${field.description ? ` (${field.description.split("\n")[0]})` : ""}`,
    );
  }
  return { template, notes };
}
