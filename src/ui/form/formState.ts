// The form's state and what each key does to it: a pure reducer, so that SchemaForm stays a thin shell around
// useInput and the behaviour of every key is plain data in, data out.
import { getOwn, setOwn, withOwn, withoutOwn } from "../../data.js";
import { sanitizeLine } from "../../sanitize.js";
import {
  checkField,
  choiceIndex,
  isChoiceField,
  isTextField,
  parseField,
  sameValue,
  textOf,
} from "../../tasks/field-input.js";
import type { Field } from "../../tasks/fields.js";

export interface FormState {
  /** 0..fields-1: a field; fields + i: button i (0 is submit, then the extra actions). */
  readonly focus: number;
  /** Text fields hold the text typed; the others hold their value (undefined: not set). */
  readonly drafts: Readonly<Record<string, unknown>>;
  readonly errors: Readonly<Record<string, string>>;
  /** A problem with the whole form (the schema check), display-safe. */
  readonly formError?: string;
  /** The highlighted row while the focused field's choice list is open. */
  readonly open?: number;
}

/** The subset of Ink's Key the form reads. */
export interface KeyPress {
  readonly upArrow?: boolean;
  readonly downArrow?: boolean;
  readonly leftArrow?: boolean;
  readonly rightArrow?: boolean;
  readonly return?: boolean;
  readonly escape?: boolean;
  readonly tab?: boolean;
  readonly shift?: boolean;
  readonly ctrl?: boolean;
  readonly meta?: boolean;
  readonly backspace?: boolean;
  readonly delete?: boolean;
}

export type Effect =
  { readonly type: "submit" } | { readonly type: "cancel" } | { readonly type: "action"; readonly index: number };
export interface Step {
  readonly state: FormState;
  readonly effect?: Effect;
}
export interface FormContext {
  readonly fields: readonly Field[];
  /** Single-character shortcuts of the extra actions (undefined: none), in button order after submit. */
  readonly actionKeys: readonly (string | undefined)[];
}

export function initialState(fields: readonly Field[], values: Readonly<Record<string, unknown>>): FormState {
  // Field names are the server's (`__proto__`, `constructor`...): read and written as own properties only (../../data.ts).
  const drafts = Object.fromEntries(
    fields.map((f) => [f.name, isTextField(f) ? textOf(f, getOwn(values, f.name)) : getOwn(values, f.name)]),
  );
  return { focus: 0, drafts, errors: {} };
}

/** Parses and checks every field: the values to send (unset ones left out) and the errors by field name. */
export function collect(fields: readonly Field[], drafts: Readonly<Record<string, unknown>>) {
  const values: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  for (const field of fields) {
    const draft = getOwn(drafts, field.name);
    const parsed = isTextField(field) ? parseField(field, String(draft ?? "")) : { value: draft };
    const error = "error" in parsed ? parsed.error : checkField(field, parsed.value);
    if (error) setOwn(errors, field.name, error);
    else if ("value" in parsed && parsed.value !== undefined) setOwn(values, field.name, parsed.value);
  }
  return { values, errors };
}

/** Shows field errors and focuses the first bad field. */
export function withErrors(
  state: FormState,
  fields: readonly Field[],
  errors: Record<string, string>,
  formError?: string,
): FormState {
  const first = fields.findIndex((f) => getOwn(errors, f.name));
  return { ...state, errors, formError, open: undefined, focus: first >= 0 ? first : state.focus };
}

/** A schema-check complaint (AJV's `data/limit must be <= 100000`): put on its field when it names one. */
export function withProblem(state: FormState, fields: readonly Field[], problem: string): FormState {
  const named = /data\/([^/\s,]+)/.exec(problem)?.[1] ?? /required property '([^']+)'/.exec(problem)?.[1];
  const name = named?.replace(/~1/g, "/").replace(/~0/g, "~");
  const field = fields.find((f) => f.name === name);
  const text = sanitizeLine(problem);
  return field
    ? withErrors(state, fields, { [field.name]: text })
    : { ...state, formError: `the answer does not fit the form: ${text}` };
}

const count = (ctx: FormContext) => ctx.fields.length + 1 + ctx.actionKeys.length;
const move = (state: FormState, ctx: FormContext, by: number): FormState => ({
  ...state,
  open: undefined,
  focus: (state.focus + by + count(ctx)) % count(ctx),
});

function setDraft(state: FormState, field: Field, draft: unknown, extra: Partial<FormState> = {}): FormState {
  return {
    ...state,
    drafts: withOwn(state.drafts, field.name, draft),
    errors: withoutOwn(state.errors, field.name),
    formError: undefined,
    ...extra,
  };
}

/** Keys while a field's choice list is open. */
function listKey(
  state: FormState,
  ctx: FormContext,
  field: Field & { choices: readonly { value: unknown }[] },
  input: string,
  key: KeyPress,
): Step {
  const rows = field.choices.length;
  const at = state.open ?? 0;
  if (key.escape) return { state: { ...state, open: undefined } };
  if (key.upArrow || (key.tab && key.shift)) return { state: { ...state, open: (at - 1 + rows) % rows } };
  if (key.downArrow || key.tab) return { state: { ...state, open: (at + 1) % rows } };
  const value = field.choices[at].value;
  if (field.kind === "multi" && input === " ") {
    const draft = getOwn(state.drafts, field.name);
    const now = Array.isArray(draft) ? (draft as unknown[]) : [];
    const on = now.some((v) => sameValue(v, value));
    // Kept in the schema's order whatever the order of picking.
    const next = field.choices
      .map((c) => c.value)
      .filter((v) => (sameValue(v, value) ? !on : now.some((n) => sameValue(n, v))));
    return { state: setDraft(state, field, next) };
  }
  if (key.return) {
    const picked = field.kind === "multi" ? state : setDraft(state, field, value);
    return { state: move({ ...picked, open: undefined }, ctx, 1) };
  }
  return { state };
}

const printable = (input: string, key: KeyPress) =>
  input !== "" && !key.ctrl && !key.meta && !key.return && !key.tab && !key.escape;

/** Keys on a field. */
function fieldKey(state: FormState, ctx: FormContext, field: Field, input: string, key: KeyPress): Step {
  const last = state.focus === ctx.fields.length - 1;
  if (isTextField(field)) {
    const text = String(getOwn(state.drafts, field.name) ?? "");
    if (key.return) return last ? { state, effect: { type: "submit" } } : { state: move(state, ctx, 1) };
    if (key.backspace || key.delete) return { state: setDraft(state, field, [...text].slice(0, -1).join("")) };
    if (key.ctrl && input === "u") return { state: setDraft(state, field, "") };
    // Typed or pasted text; a paste may hold newlines and control characters: folded and dropped.
    if (printable(input, key)) return { state: setDraft(state, field, text + sanitizeLine(input)) };
    return { state };
  }
  if (field.kind === "boolean") {
    if (input === " " || key.leftArrow || key.rightArrow)
      return { state: setDraft(state, field, getOwn(state.drafts, field.name) !== true) };
    if (key.return) return last ? { state, effect: { type: "submit" } } : { state: move(state, ctx, 1) };
  }
  if (isChoiceField(field) || field.kind === "multi") {
    const at = choiceIndex(field.choices, getOwn(state.drafts, field.name));
    const rows = field.choices.length;
    if (isChoiceField(field) && (key.leftArrow || key.rightArrow)) {
      const next = at < 0 ? (key.rightArrow ? 0 : rows - 1) : (at + (key.rightArrow ? 1 : -1) + rows) % rows;
      return { state: setDraft(state, field, field.choices[next].value) };
    }
    if (key.return || (field.kind === "multi" && input === " ")) return { state: { ...state, open: Math.max(at, 0) } };
  }
  return shortcut(state, ctx, input, key);
}

function shortcut(state: FormState, ctx: FormContext, input: string, key: KeyPress): Step {
  const index = input && !key.ctrl && !key.meta ? ctx.actionKeys.indexOf(input) : -1;
  return index >= 0 ? { state, effect: { type: "action", index } } : { state };
}

/** What one key press does. */
export function step(state: FormState, ctx: FormContext, input: string, key: KeyPress): Step {
  const field = ctx.fields[state.focus] as Field | undefined;
  if (field && state.open !== undefined && (isChoiceField(field) || field.kind === "multi"))
    return listKey(state, ctx, field, input, key);
  if (key.escape) return { state, effect: { type: "cancel" } };
  if (key.tab) return { state: move(state, ctx, key.shift ? -1 : 1) };
  if (key.downArrow) return { state: move(state, ctx, 1) };
  if (key.upArrow) return { state: move(state, ctx, -1) };
  if (field) return fieldKey(state, ctx, field, input, key);
  const button = state.focus - ctx.fields.length;
  if (key.leftArrow && button > 0) return { state: move(state, ctx, -1) };
  if (key.rightArrow && button < ctx.actionKeys.length) return { state: move(state, ctx, 1) };
  if (key.return || input === " ")
    return { state, effect: button === 0 ? { type: "submit" } : { type: "action", index: button - 1 } };
  return shortcut(state, ctx, input, key);
}
