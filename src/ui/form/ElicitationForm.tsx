// A server's question (an InputRequest) as a form: the message, the task it belongs to, the fields of its
// requestedSchema, and accept / decline / cancel. Esc closes without answering (onClose), which is not the
// cancel action (that one is an answer: {action: "cancel"}). A sampling request gets SamplingReply (a person writes
// the model's reply), a URL-mode page UrlConsent; other methods get UnsupportedRequest: decline only.
import { Box, Text } from "ink";
import { useMemo } from "react";
import { sanitize, sanitizeLine } from "../../sanitize.js";
import type { InputRequest, InputResponse } from "../../protocol/wire.js";
import { requestedForm } from "../../tasks/fields.js";
import { SchemaForm, type FormAction } from "./SchemaForm.js";
import { SamplingReply } from "./SamplingReply.js";
import { UnsupportedRequest } from "./UnsupportedRequest.js";
import { isUrlRequest } from "../../tasks/url-elicitation.js";
import { UrlConsent } from "./UrlConsent.js";
import { ServerText } from "./ServerText.js";

export interface ElicitationFormProps {
  readonly request: InputRequest;
  /** Which task asks (server text is fine: it is sanitised). */
  readonly taskLabel: string;
  readonly width: number;
  readonly onRespond: (response: InputResponse) => void;
  /** Esc: close the form without answering. */
  readonly onClose: () => void;
  /** 0-based position of this question among those the task asks at once (V2); shown when questionCount > 1. */
  readonly questionIndex?: number;
  readonly questionCount?: number;
}

export function ElicitationForm(props: ElicitationFormProps) {
  const { request, taskLabel, width, questionIndex = 0, questionCount = 1 } = props;
  const { onRespond, onClose } = props;
  const form = request.method === "elicitation/create" && request.params.mode !== "url";
  const schema = useMemo(() => requestedForm(request), [request]);
  const actions = useMemo<FormAction[]>(
    () => [
      { label: "Decline", key: "d", onSelect: () => onRespond({ action: "decline" }) },
      { label: "Cancel", onSelect: () => onRespond({ action: "cancel" }) },
    ],
    [onRespond],
  );
  const message = typeof request.params.message === "string" ? sanitize(request.params.message) : "";
  const which = questionCount > 1 ? ` · question ${questionIndex + 1} of ${questionCount}` : "";
  return (
    <Box flexDirection="column" width={width} rowGap={1}>
      <Box flexDirection="column">
        <Text bold wrap="truncate-middle">
          {`? ${sanitizeLine(taskLabel)} asks for input`}
          <Text dimColor>{which}</Text>
        </Text>
        {form && message ? (
          <ServerText>
            <Text>{message}</Text>
          </ServerText>
        ) : null}
      </Box>
      {request.method === "sampling/createMessage" ? (
        <SamplingReply key={request.key} request={request} width={width} onRespond={onRespond} onClose={onClose} />
      ) : form ? (
        <SchemaForm
          key={request.key}
          schema={schema}
          width={width}
          submitLabel="Accept"
          onSubmit={(content) => onRespond({ action: "accept", content })}
          onCancel={onClose}
          extraActions={actions}
        />
      ) : isUrlRequest(request) ? (
        <UrlConsent key={request.key} request={request} width={width} onRespond={onRespond} onClose={onClose} />
      ) : (
        <UnsupportedRequest
          key={request.key}
          request={request}
          width={width}
          onDecline={() => onRespond({ action: "decline" })}
          onClose={onClose}
        />
      )}
    </Box>
  );
}
