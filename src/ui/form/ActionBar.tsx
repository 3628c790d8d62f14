// The row of buttons under a form: submit first, then the extra actions.
import { Box, Text } from "ink";

export interface ActionButton {
  /** Display-safe. */
  readonly label: string;
  /** A one-character shortcut, shown beside the label. */
  readonly key?: string;
}

export interface ActionBarProps {
  readonly buttons: readonly ActionButton[];
  /** The focused button's index, if a button has the focus. */
  readonly focused?: number;
}

export function ActionBar({ buttons, focused }: ActionBarProps) {
  return (
    <Box flexDirection="row" flexWrap="wrap" columnGap={2}>
      {buttons.map((button, i) => (
        <Text key={i} bold={i === focused} inverse={i === focused}>
          {i === focused ? "›" : " "}[ {button.label}
          {button.key ? ` (${button.key})` : ""} ]
        </Text>
      ))}
    </Box>
  );
}
