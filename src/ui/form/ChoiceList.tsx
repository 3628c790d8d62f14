// The open list of a choice field: one row per choice, the highlighted row marked and inverse.
import { Box, Text } from "ink";
import type { Choice } from "../../tasks/fields.js";

export interface ChoiceListProps {
  /** Display-safe titles (from fieldsOf). */
  readonly choices: readonly Choice[];
  /** Which rows are chosen now. */
  readonly selected: readonly boolean[];
  readonly highlight: number;
  /** Check boxes (several may be chosen) instead of radio marks. */
  readonly multi: boolean;
}

export function ChoiceList({ choices, selected, highlight, multi }: ChoiceListProps) {
  return (
    <Box flexDirection="column" paddingLeft={4}>
      {choices.map((choice, i) => {
        const mark = multi ? (selected[i] ? "[x]" : "[ ]") : selected[i] ? "(•)" : "( )";
        const here = i === highlight;
        return (
          // One line, cut at the width: a wrapped title would start a line with the server's words (../../ask/quote.ts).
          <Text key={i} bold={here} inverse={here} wrap="truncate-end">
            {here ? "› " : "  "}
            {mark} {choice.title}
          </Text>
        );
      })}
    </Box>
  );
}
