// A request mcp-task cannot serve (a method other than a form, a URL-mode page or a sampling request, which have
// forms of their own): what the server asked, and a single decline action.
import { Box, Text, useInput } from "ink";
import { sanitize, sanitizeLine } from "../../sanitize.js";
import type { InputRequest } from "../../protocol/wire.js";
import { ActionBar } from "./ActionBar.js";
import { ServerText } from "./ServerText.js";

export interface UnsupportedRequestProps {
  readonly request: InputRequest;
  readonly width: number;
  readonly onDecline: () => void;
  /** Esc: close without answering. */
  readonly onClose: () => void;
}

/** What the server asks for, in a few display-safe lines. */
export function summarize(request: InputRequest): string[] {
  const lines = [`The server asks for ${sanitizeLine(request.method)}, which mcp-task does not support.`];
  if (typeof request.params.message === "string" && request.params.message)
    lines.push(sanitize(request.params.message));
  return lines;
}

export function UnsupportedRequest({ request, width, onDecline, onClose }: UnsupportedRequestProps) {
  useInput((input, key) => {
    if (key.escape) onClose();
    else if (key.return || input === "d" || input === " ") onDecline();
  });
  return (
    <Box flexDirection="column" width={width} rowGap={1}>
      <Box flexDirection="column">
        {summarize(request).map((line, i) =>
          // The first line is mcp-task's; the server's message after it is quoted.
          i === 0 ? (
            <Text key={i}>{line}</Text>
          ) : (
            <ServerText key={i}>
              <Text>{line}</Text>
            </ServerText>
          ),
        )}
      </Box>
      <Text bold>This request can only be declined.</Text>
      <Box flexDirection="column">
        <ActionBar buttons={[{ label: "Decline", key: "d" }]} focused={0} />
        <Text dimColor>Enter/d decline · Esc close without answering</Text>
      </Box>
    </Box>
  );
}
