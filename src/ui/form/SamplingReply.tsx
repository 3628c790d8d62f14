// A server's sampling request (sampling/createMessage) answered by a person: what it asks (the system prompt, each
// message's role and content, the model preferences and limits: src/tasks/sampling.ts makes them display-safe) and
// a reply to write (or edit, where one is prefilled), sent as the model's reply, or declined. The text is edited on
// Ink's useInput by hand, as SchemaForm's fields are (see there why not @inkjs/ui's TextInput).
import { Box, Text, useInput } from "ink";
import { useMemo, useState } from "react";
import type { InputRequest, InputResponse } from "../../protocol/wire.js";
import { sanitize } from "../../sanitize.js";
import { HUMAN_MODEL, samplingAnswer, samplingView } from "../../tasks/sampling.js";
import { ActionBar } from "./ActionBar.js";
import { ServerText } from "./ServerText.js";

export interface SamplingReplyProps {
  readonly request: InputRequest;
  readonly width: number;
  readonly onRespond: (response: InputResponse) => void;
  /** Esc: close without answering. */
  readonly onClose: () => void;
  /** A reply to start from (the person edits it). */
  readonly initial?: string;
  /** The model the reply names. */
  readonly model?: string;
}

const BUTTONS = [{ label: "Send reply" }, { label: "Decline", key: "d" }] as const;
/** A request that cannot be declined (2026-07-28: InputRequest.declinable false) offers only the reply. */
const SEND_ONLY = BUTTONS.slice(0, 1);

/** The request as a person reads it: pure, from the request. */
export function SamplingRequestView({ request }: { readonly request: InputRequest }) {
  const view = useMemo(() => samplingView(request), [request]);
  return (
    <Box flexDirection="column">
      <Text>The server asks for a model's reply (sampling/createMessage). You write it.</Text>
      {/* What the server sent, quoted (../../ask/quote.ts): none of its lines can pass for mcp-task's own. */}
      <ServerText>
        {view.systemPrompt ? <Text dimColor>{`system prompt: ${view.systemPrompt}`}</Text> : null}
        {view.omitted ? <Text dimColor>{`(${view.omitted} earlier messages not shown)`}</Text> : null}
        {view.messages.map((message, i) => (
          <Text key={i}>
            <Text bold>{`${message.role}: `}</Text>
            {message.parts.join(" ")}
          </Text>
        ))}
        {view.details.length ? <Text dimColor>{view.details.join(" · ")}</Text> : null}
      </ServerText>
    </Box>
  );
}

export function SamplingReply({ request, width, onRespond, onClose, initial = "", model }: SamplingReplyProps) {
  const [text, setText] = useState(initial);
  // -1: the reply has the focus; 0, 1: a button.
  const [focus, setFocus] = useState(-1);
  const [error, setError] = useState<string | undefined>();
  const declinable = request.declinable !== false;
  const last = declinable ? 1 : 0;
  const send = () => {
    if (!text.trim()) return setError(declinable ? "write a reply first (or decline)" : "write a reply first");
    onRespond(samplingAnswer({ text, model: model ?? HUMAN_MODEL }));
  };
  const decline = () => onRespond({ action: "decline" });
  useInput((input, key) => {
    if (key.escape) return onClose();
    if (key.tab) return setFocus((f) => (f === -1 ? 0 : key.shift ? f - 1 : f === last ? -1 : f + 1));
    if (focus >= 0) {
      if (key.leftArrow || key.rightArrow) return setFocus(focus === 0 ? last : 0);
      if (key.upArrow) return setFocus(-1);
      if (input === "d" && declinable) return decline();
      if (key.return || input === " ") return focus === 0 ? send() : decline();
      return;
    }
    setError(undefined);
    if (key.return) return send();
    if (key.backspace || key.delete) return setText((t) => Array.from(t).slice(0, -1).join(""));
    // Typed or pasted text (a paste's line breaks are kept); other control keys are not text.
    if (input && !key.ctrl && !key.meta) setText((t) => t + input.replace(/\r\n?/g, "\n"));
  });
  return (
    <Box flexDirection="column" width={width} rowGap={1}>
      <SamplingRequestView request={request} />
      <Box flexDirection="column">
        <Text bold={focus === -1}>{`Your reply (as model "${model ?? HUMAN_MODEL}"):`}</Text>
        <Text>
          {`› ${sanitize(text)}`}
          {focus === -1 ? <Text inverse> </Text> : null}
        </Text>
        {error ? <Text color="red">✗ {error}</Text> : null}
      </Box>
      <Box flexDirection="column">
        <ActionBar buttons={declinable ? BUTTONS : SEND_ONLY} focused={focus >= 0 ? focus : undefined} />
        <Text dimColor>
          {`Enter send · Tab to the buttons${declinable ? " (d decline)" : ""} · Esc close without answering`}
        </Text>
      </Box>
    </Box>
  );
}
