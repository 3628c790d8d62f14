// The dimmed line of keys under a form, for whatever has the focus now.
import { Text } from "ink";
import type { Field } from "../../tasks/fields.js";

export interface KeyHelpProps {
  /** The focused field; undefined when a button has the focus. */
  readonly field?: Field;
  /** Whether the focused field is the last one (Enter submits). */
  readonly last: boolean;
  readonly listOpen: boolean;
  /** Shortcuts of the extra actions, active when no text field has the focus: `d decline`. */
  readonly shortcuts: readonly string[];
}

export function keyHelp({ field, last, listOpen, shortcuts }: KeyHelpProps): string {
  if (field && listOpen) {
    return field.kind === "multi"
      ? "↑/↓ move · Space pick · Enter done · Esc close list"
      : "↑/↓ move · Enter pick · Esc close list";
  }
  const keys: string[] = [];
  const enter = last ? "Enter submit" : "Enter next";
  if (!field) keys.push("Enter press", "←/→ buttons");
  else if (field.kind === "boolean") keys.push("Space toggle", enter);
  else if (field.kind === "enum" || field.kind === "oneOf") keys.push("←/→ change", "Enter list");
  else if (field.kind === "multi") keys.push("Enter/Space open list");
  else keys.push("type to edit", "Backspace delete", enter);
  keys.push("Tab/↑/↓ move");
  if (!field || !["string", "number", "integer", "json"].includes(field.kind)) keys.push(...shortcuts);
  keys.push("Esc close");
  return keys.join(" · ");
}

export function KeyHelp(props: KeyHelpProps) {
  return <Text dimColor>{keyHelp(props)}</Text>;
}
