// A form built from a JSON Schema object: an elicitation's requestedSchema or a tool's inputSchema. The state lives
// here (and only here); what each key does is the pure reducer in formState.ts, the drawing is FieldView and
// ActionBar.
//
// The inputs are written by hand on Ink's useInput rather than with @inkjs/ui's TextInput/Select: those each take
// the keyboard for themselves (every mounted one sees every key unless carefully deactivated), Select re-fires
// onChange on re-render with a new options array, and neither lets Tab/↑/↓ move between fields or Enter submit
// the whole form. One handler with one reducer is predictable, and testable key by key.
import { Box, Text, useInput } from "ink";
import { useEffect, useMemo, useRef, useState } from "react";
import { getOwn } from "../../data.js";
import { sanitizeLine } from "../../sanitize.js";
import { ServerText } from "./ServerText.js";
import { formOverLimit, schemaProblem } from "../../tasks/schema.js";
import { ActionBar } from "./ActionBar.js";
import { defaultsOf, fieldsOf, type Field } from "../../tasks/fields.js";
import { FieldView } from "./FieldView.js";
import { collect, initialState, step, withErrors, withProblem, type Effect, type FormState } from "./formState.js";
import { KeyHelp } from "./KeyHelp.js";

export interface FormAction {
  /** Display-safe. */
  readonly label: string;
  /** A one-character shortcut, active while no text field has the focus. */
  readonly key?: string;
  readonly onSelect: () => void;
}

export interface SchemaFormProps {
  readonly schema: Readonly<Record<string, unknown>>;
  /** Server text is fine: it is sanitised. */
  readonly title?: string;
  readonly width: number;
  /** Values to start from (over the schema's defaults). */
  readonly initial?: Readonly<Record<string, unknown>>;
  readonly submitLabel?: string;
  /** Called with the values once every field and the whole object pass the checks. */
  readonly onSubmit: (values: Record<string, unknown>) => void;
  /** Esc. */
  readonly onCancel: () => void;
  /** Buttons after submit (decline, cancel, ...). */
  readonly extraActions?: readonly FormAction[];
}

export function SchemaForm(props: SchemaFormProps) {
  const { schema, title, width, initial, submitLabel = "Submit", extraActions = [] } = props;
  // A form past the bounds (more than MAX_FORM_FIELDS fields: 10,000 froze the view, keys and Ctrl-C included) is
  // not built at all: the form says so and takes only Esc. (The engine refuses such a question before it gets here.)
  const tooBig = useMemo(() => formOverLimit(schema), [schema]);
  const fields = useMemo(() => (tooBig ? [] : fieldsOf(schema)), [schema, tooBig]);
  const [state, setState] = useState<FormState>(() => initialState(fields, { ...defaultsOf(schema), ...initial }));
  const [checking, setChecking] = useState(false);
  // The reducer reads the latest state from a ref: several keys may arrive in one chunk, before React re-renders.
  const current = useRef(state);
  const mounted = useRef(true);
  useEffect(() => () => void (mounted.current = false), []);
  const update = (next: FormState) => {
    current.current = next;
    setState(next);
  };
  const ctx = { fields, actionKeys: extraActions.map((a) => a.key) };

  async function submit(from: FormState) {
    const { values, errors } = collect(fields, from.drafts);
    if (Object.keys(errors).length > 0) return update(withErrors(from, fields, errors));
    setChecking(true);
    const problem = await schemaProblem(schema as Record<string, unknown>, values).catch(
      (error: unknown) => `cannot check the form (${error instanceof Error ? error.message : String(error)})`,
    );
    if (!mounted.current) return;
    setChecking(false);
    if (problem) return update(withProblem(current.current, fields, problem));
    props.onSubmit(values);
  }

  function run(effect: Effect, next: FormState) {
    if (effect.type === "cancel") props.onCancel();
    else if (effect.type === "action") extraActions[effect.index]?.onSelect();
    else void submit(next);
  }

  useInput((input, key) => {
    if (tooBig) return key.escape ? props.onCancel() : undefined;
    if (checking) return;
    const { state: next, effect } = step(current.current, ctx, input, key);
    if (next !== current.current) update(next);
    if (effect) run(effect, next);
  });

  const focusedField = fields[state.focus];
  const button = state.focus - fields.length;
  const buttons = [{ label: submitLabel }, ...extraActions.map((a) => ({ label: a.label, key: a.key }))];
  if (tooBig) return <TooBig why={tooBig} width={width} />;
  return (
    <Box flexDirection="column" width={width} rowGap={1}>
      {title ? (
        <ServerText>
          <Text bold>{sanitizeLine(title)}</Text>
        </ServerText>
      ) : null}
      <FieldList fields={fields} state={state} />
      <Box flexDirection="column">
        <ActionBar buttons={buttons} focused={button >= 0 ? button : undefined} />
        {state.formError ? <Text color="red">✗ {state.formError}</Text> : null}
        {checking ? <Text dimColor>checking…</Text> : null}
        <KeyHelp
          field={focusedField}
          last={state.focus === fields.length - 1}
          listOpen={state.open !== undefined}
          shortcuts={extraActions.flatMap((a) => (a.key ? [`${a.key} ${a.label.toLowerCase()}`] : []))}
        />
      </Box>
    </Box>
  );
}

/** The form's fields, each with its draft, its error, and the focus. */
function FieldList({ fields, state }: { readonly fields: readonly Field[]; readonly state: FormState }) {
  if (fields.length === 0) return <Text dimColor>(no fields to fill in)</Text>;
  return (
    <>
      {fields.map((field, i) => (
        <FieldView
          key={field.name}
          field={field}
          draft={getOwn(state.drafts, field.name)}
          focused={i === state.focus}
          error={getOwn(state.errors, field.name)}
          open={i === state.focus ? state.open : undefined}
        />
      ))}
    </>
  );
}

/** A form past the bounds: why it is not shown; only Esc is taken. */
function TooBig({ why, width }: { readonly why: string; readonly width: number }) {
  return (
    <Box flexDirection="column" width={width}>
      <Text color="red">✗ mcp-task will not show this form: {sanitizeLine(why)}</Text>
      <Text dimColor>Esc to close</Text>
    </Box>
  );
}
