// A URL-mode elicitation in the live view and the dashboard: the server's message, the page's host on its own line
// and its whole address (made safe), the warnings, and the person's choice: open (accept), decline or cancel.
// Opening happens after the yes, outside the view (../../ask/url-open.ts).
import { Box, Text, useInput } from "ink";
import type { InputRequest, InputResponse } from "../../protocol/wire.js";
import { urlQuestion, viewUrl } from "../../tasks/url-elicitation.js";
import { ActionBar } from "./ActionBar.js";
import { ServerText } from "./ServerText.js";

export interface UrlConsentProps {
  readonly request: InputRequest;
  readonly width: number;
  readonly onRespond: (response: InputResponse) => void;
  /** Esc: close without answering. */
  readonly onClose: () => void;
}

export function UrlConsent({ request, width, onRespond, onClose }: UrlConsentProps) {
  const openable = viewUrl(request.params.url).openable;
  useInput((input, key) => {
    if (key.escape) onClose();
    else if (openable && (input === "o" || input === "y")) onRespond({ action: "accept", content: {} });
    else if (input === "d" || input === "n") onRespond({ action: "decline" });
    else if (input === "c") onRespond({ action: "cancel" });
  });
  const { head, message, facts } = urlQuestion(request);
  return (
    <Box flexDirection="column" width={width} rowGap={1}>
      <Box flexDirection="column">
        <Text>{head}</Text>
        {message ? (
          <ServerText>
            <Text>{message}</Text>
          </ServerText>
        ) : null}
        {facts.map((line, i) => (
          <Text key={i} bold={line.startsWith("host:")} color={line.startsWith("warning:") ? "yellow" : undefined}>
            {line}
          </Text>
        ))}
      </Box>
      <Box flexDirection="column">
        <ActionBar
          buttons={[
            ...(openable ? [{ label: "Open in browser", key: "o" }] : []),
            { label: "Decline", key: "d" },
            { label: "Cancel", key: "c" },
          ]}
        />
        <Text dimColor>{openable ? "o open · " : ""}d decline · c cancel · Esc close without answering</Text>
      </Box>
    </Box>
  );
}
