// The per-field parsing and checks the form and the line prompt run on what a person types, for the fields that
// ./fields.ts reads from a schema. Pure functions, no React. The AJV check of the whole object stays in
// ./schema.ts (the form runs it after these checks).
import { sanitizeLine } from "../sanitize.js";
import type { Choice, ChoiceField, Field, NumberField, StringField, StringFormat } from "./fields.js";
import { linearRegExp, type LinearRegExp } from "./regex.js";

export type ParseResult = { readonly value: unknown } | { readonly error: string };

/** Fields edited as text (the rest are toggled or chosen). */
export const isTextField = (field: Field): boolean => ["string", "number", "integer", "json"].includes(field.kind);
export const isChoiceField = (field: Field): field is ChoiceField => field.kind === "enum" || field.kind === "oneOf";

/** How a value is shown in a text field ("" for none). */
export function textOf(field: Field, value: unknown): string {
  if (value === undefined) return "";
  if (field.kind === "string" && typeof value === "string") return value;
  if ((field.kind === "number" || field.kind === "integer") && typeof value === "number") return String(value);
  return JSON.stringify(value) ?? "";
}

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
export const sameValue = (a: unknown, b: unknown) => a === b || JSON.stringify(a) === JSON.stringify(b);
export const choiceIndex = (choices: readonly Choice[], value: unknown) =>
  choices.findIndex((c) => sameValue(c.value, value));

function parseChoice(choices: readonly Choice[], text: string): Choice | undefined {
  return (
    choices.find((c) => String(c.value) === text) ?? choices.find((c) => c.title.toLowerCase() === text.toLowerCase())
  );
}

/** Text typed by a person → the value to send, or why it cannot be one. Empty text: no value (undefined). */
export function parseField(field: Field, text: string): ParseResult {
  const trimmed = text.trim();
  if (field.kind === "string") return { value: text === "" ? undefined : text };
  if (trimmed === "") return { value: undefined };
  switch (field.kind) {
    case "number":
    case "integer":
      if (!NUMBER.test(trimmed)) return { error: field.kind === "integer" ? "enter a whole number" : "enter a number" };
      return { value: Number(trimmed) };
    case "boolean":
      if (/^(y|yes|true)$/i.test(trimmed)) return { value: true };
      if (/^(n|no|false)$/i.test(trimmed)) return { value: false };
      return { error: "enter yes or no" };
    case "enum":
    case "oneOf": {
      const choice = parseChoice(field.choices, trimmed);
      return choice ? { value: choice.value } : { error: "pick one of the choices" };
    }
    case "multi": {
      const picked = trimmed.split(",").map((part) => parseChoice(field.choices, part.trim()));
      return picked.every((c) => c) ? { value: picked.map((c) => c!.value) } : { error: "pick from the choices" };
    }
    case "json":
      try {
        return { value: JSON.parse(trimmed) };
      } catch {
        return { error: "not valid JSON" };
      }
  }
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;

function validDate(text: string): boolean {
  const m = DATE.exec(text);
  if (!m) return false;
  const date = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return date.getUTCMonth() === Number(m[2]) - 1 && date.getUTCDate() === Number(m[3]);
}

function formatProblem(format: StringFormat, text: string): string | undefined {
  switch (format) {
    case "email":
      return EMAIL.test(text) ? undefined : "not an email address";
    case "uri":
      return /^[a-z][a-z0-9+.-]*:\S+$/i.test(text) && URL.canParse(text)
        ? undefined
        : "not a URI (like https://example.com)";
    case "date":
      return validDate(text) ? undefined : "not a date (YYYY-MM-DD)";
    case "date-time":
      return DATE_TIME.test(text) && validDate(text.slice(0, 10)) && !Number.isNaN(Date.parse(text))
        ? undefined
        : "not a date-time (like 2026-01-31T09:30:00Z)";
  }
}

function stringProblem(field: StringField, value: string): string | undefined {
  const length = [...value].length; // JSON Schema counts code points
  if (field.minLength !== undefined && length < field.minLength)
    return `at least ${field.minLength} characters (now ${length})`;
  if (field.maxLength !== undefined && length > field.maxLength)
    return `at most ${field.maxLength} characters (now ${length})`;
  if (field.format) {
    const problem = formatProblem(field.format, value);
    if (problem) return problem;
  }
  if (field.pattern !== undefined) {
    // On the linear-time engine, as the schema check: a server's `^(a+)+$` must not freeze the form as it is typed.
    let pattern: LinearRegExp | undefined;
    try {
      pattern = linearRegExp(field.pattern);
    } catch {
      return undefined; // an invalid pattern is left to the schema check
    }
    if (!pattern.test(value)) return `does not match ${sanitizeLine(field.pattern)}`;
  }
  return undefined;
}

function numberProblem(field: NumberField, value: number): string | undefined {
  if (field.kind === "integer" && !Number.isInteger(value)) return "must be a whole number";
  if (field.minimum !== undefined && value < field.minimum) return `must be at least ${field.minimum}`;
  if (field.maximum !== undefined && value > field.maximum) return `must be at most ${field.maximum}`;
  if (field.exclusiveMinimum !== undefined && value <= field.exclusiveMinimum)
    return `must be more than ${field.exclusiveMinimum}`;
  if (field.exclusiveMaximum !== undefined && value >= field.exclusiveMaximum)
    return `must be less than ${field.exclusiveMaximum}`;
  return undefined;
}

/** Why a value does not fit its field (undefined: it fits). `undefined` stands for "not given". */
export function checkField(field: Field, value: unknown): string | undefined {
  if (value === undefined) return field.required ? "required" : undefined;
  switch (field.kind) {
    case "string":
      return typeof value === "string" ? stringProblem(field, value) : "must be text";
    case "number":
    case "integer":
      return typeof value === "number" && Number.isFinite(value) ? numberProblem(field, value) : "must be a number";
    case "boolean":
      return typeof value === "boolean" ? undefined : "must be yes or no";
    case "enum":
    case "oneOf":
      return choiceIndex(field.choices, value) >= 0 ? undefined : "pick one of the choices";
    case "multi": {
      if (!Array.isArray(value) || value.some((v) => choiceIndex(field.choices, v) < 0)) return "pick from the choices";
      if (field.minItems !== undefined && value.length < field.minItems) return `pick at least ${field.minItems}`;
      if (field.maxItems !== undefined && value.length > field.maxItems) return `pick at most ${field.maxItems}`;
      return undefined;
    }
    case "json":
      return undefined;
  }
}

/** A short, display-safe description of what a field takes: `text, email, at most 200 characters`. */
export function hintOf(field: Field): string {
  const parts: string[] = [];
  switch (field.kind) {
    case "string":
      if (field.format) parts.push(field.format);
      if (field.minLength !== undefined) parts.push(`at least ${field.minLength} characters`);
      if (field.maxLength !== undefined) parts.push(`at most ${field.maxLength} characters`);
      break;
    case "number":
    case "integer":
      parts.push(field.kind === "integer" ? "whole number" : "number");
      if (field.minimum !== undefined) parts.push(`min ${field.minimum}`);
      if (field.maximum !== undefined) parts.push(`max ${field.maximum}`);
      break;
    case "multi":
      parts.push("any of");
      break;
    case "json":
      parts.push("JSON");
      break;
  }
  if (!field.required) parts.push("optional");
  return parts.join(", ");
}
