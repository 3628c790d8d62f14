// One field of a form: title (with `*` when required), what it takes, its description, its value, and the
// choice list when open, then its error. A pure function of its props.
import { Box, Text } from "ink";
import { sanitizeLine } from "../../sanitize.js";
import { ChoiceList } from "./ChoiceList.js";
import { ServerText } from "./ServerText.js";
import type { Field } from "../../tasks/fields.js";
import { choiceIndex, hintOf, isTextField, sameValue } from "../../tasks/field-input.js";

export interface FieldViewProps {
  readonly field: Field;
  /** The text typed (text fields) or the value (the others); undefined: not set. */
  readonly draft: unknown;
  readonly focused: boolean;
  readonly error?: string;
  /** The highlighted row, when the choice list is open. */
  readonly open?: number;
}

function ValueView({ field, draft, focused }: Pick<FieldViewProps, "field" | "draft" | "focused">) {
  if (isTextField(field)) {
    // Defaults and initial values come from the server: shown sanitised like any server text. The cursor is a
    // visible block (not inverse video), so that it shows without colour too.
    const text = sanitizeLine(String(draft ?? ""));
    if (!focused) return text ? <Text>{text}</Text> : <Text dimColor>(empty)</Text>;
    return (
      <Text>
        {text}
        <Text>▌</Text>
      </Text>
    );
  }
  let shown: string;
  if (field.kind === "boolean") shown = draft === true ? "[x] yes" : draft === false ? "[ ] no" : "[ ] not set";
  else if (field.kind === "multi") {
    const picked = Array.isArray(draft) ? field.choices.filter((c) => draft.some((v) => sameValue(v, c.value))) : [];
    shown = picked.length ? picked.map((c) => c.title).join(", ") : "(none)";
  } else if (field.kind === "enum" || field.kind === "oneOf") {
    const at = choiceIndex(field.choices, draft);
    shown = `‹ ${at >= 0 ? field.choices[at].title : draft === undefined ? "choose…" : sanitizeLine(JSON.stringify(draft) ?? "")} ›`;
  } else shown = sanitizeLine(JSON.stringify(draft) ?? "");
  return <Text inverse={focused}>{shown}</Text>;
}

export function FieldView({ field, draft, focused, error, open }: FieldViewProps) {
  const hint = hintOf(field);
  const choices = field.kind === "enum" || field.kind === "oneOf" || field.kind === "multi" ? field.choices : undefined;
  const selected = choices?.map((c) =>
    Array.isArray(draft) && field.kind === "multi"
      ? draft.some((v) => sameValue(v, c.value))
      : sameValue(draft, c.value),
  );
  return (
    <Box flexDirection="column">
      {/* One line, cut at the width: a wrapped title would start a line with the server's words (../../ask/quote.ts). */}
      <Text wrap="truncate-end">
        <Text bold={focused}>
          {focused ? "› " : "  "}
          {field.title}
          {field.required ? " *" : ""}
        </Text>
        {hint ? <Text dimColor>{`  (${hint})`}</Text> : null}
      </Text>
      {field.description ? (
        <Box paddingLeft={4}>
          <ServerText>
            <Text dimColor>{field.description}</Text>
          </ServerText>
        </Box>
      ) : null}
      <Box paddingLeft={4}>
        <ValueView field={field} draft={draft} focused={focused && open === undefined} />
      </Box>
      {choices && selected && open !== undefined ? (
        <ChoiceList choices={choices} selected={selected} highlight={open} multi={field.kind === "multi"} />
      ) : null}
      {error ? (
        <Box paddingLeft={4}>
          <Text color="red">✗ {error}</Text>
        </Box>
      ) : null}
    </Box>
  );
}
