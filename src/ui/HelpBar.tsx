// The always-visible keyboard help and the status line.
import { Box, Text } from "ink";
import { sanitizeLine } from "../sanitize.js";

export interface HelpBarProps {
  keys: ReadonlyArray<readonly [string, string]>;
  notice?: string;
  summary: string;
  width: number;
}

export function HelpBar({ keys, notice, summary, width }: HelpBarProps) {
  return (
    <Box flexDirection="column" width={width}>
      <Text wrap="truncate">
        <Text dimColor>{summary}</Text>
        {notice ? <Text color="yellow">{`  ${sanitizeLine(notice)}`}</Text> : null}
      </Text>
      <Text wrap="wrap">
        {keys.map(([key, what], i) => (
          <Text key={key}>
            {i > 0 ? "  " : ""}
            <Text bold>{key}</Text>
            <Text dimColor>{` ${what}`}</Text>
          </Text>
        ))}
      </Text>
    </Box>
  );
}
