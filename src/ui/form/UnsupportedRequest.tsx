// A request mcp-task cannot serve (sampling/createMessage: there is no model here; a URL-mode elicitation; any
// other method): what the server asked, why it can only be declined, and a single decline action.
import { Box, Text, useInput } from "ink";
import { sanitize, sanitizeLine } from "../../sanitize.js";
import type { InputRequest } from "../../protocol/wire.js";
import { ActionBar } from "./ActionBar.js";

export interface UnsupportedRequestProps {
  readonly request: InputRequest;
  readonly width: number;
  readonly onDecline: () => void;
  /** Esc: close without answering. */
  readonly onClose: () => void;
}

const NO_MODEL = "mcp-task has no model: this request can only be declined";
const NO_URL = "mcp-task does not open URLs for a server: this request can only be declined";
const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

function textOf(content: unknown): string {
  const blocks = Array.isArray(content) ? content : [content];
  return blocks
    .map((b) =>
      b && typeof b === "object" && typeof (b as { text?: unknown }).text === "string"
        ? (b as { text: string }).text
        : "",
    )
    .join(" ");
}

/** What the server asks for, in a few display-safe lines. */
export function summarize(request: InputRequest): string[] {
  const p = request.params;
  const lines: string[] = [];
  if (request.method === "sampling/createMessage") {
    const messages = Array.isArray(p.messages) ? (p.messages as Array<{ role?: unknown; content?: unknown }>) : [];
    lines.push(
      `The server asks for a model's reply (sampling/createMessage) to ${messages.length} message${messages.length === 1 ? "" : "s"}.`,
    );
    const last = messages.at(-1);
    const text = last ? sanitizeLine(textOf(last.content)) : "";
    if (text)
      lines.push(
        `last message${typeof last?.role === "string" ? ` (${sanitizeLine(last.role)})` : ""}: "${clip(text, 300)}"`,
      );
    if (typeof p.systemPrompt === "string" && p.systemPrompt)
      lines.push(`system prompt: "${clip(sanitizeLine(p.systemPrompt), 150)}"`);
    if (typeof p.maxTokens === "number") lines.push(`at most ${p.maxTokens} tokens`);
    return lines;
  }
  if (request.method === "elicitation/create" && p.mode === "url")
    lines.push("The server asks you to open a web page (URL-mode elicitation).");
  else lines.push(`The server asks for ${sanitizeLine(request.method)}, which mcp-task does not support.`);
  if (typeof p.message === "string" && p.message) lines.push(sanitize(p.message));
  if (typeof p.url === "string") lines.push(`url: ${sanitizeLine(p.url)}`);
  return lines;
}

export function UnsupportedRequest({ request, width, onDecline, onClose }: UnsupportedRequestProps) {
  useInput((input, key) => {
    if (key.escape) onClose();
    else if (key.return || input === "d" || input === " ") onDecline();
  });
  const url = request.method === "elicitation/create" && request.params.mode === "url";
  return (
    <Box flexDirection="column" width={width} rowGap={1}>
      <Box flexDirection="column">
        {summarize(request).map((line, i) => (
          <Text key={i}>{line}</Text>
        ))}
      </Box>
      <Text bold>{url ? NO_URL : NO_MODEL}</Text>
      <Box flexDirection="column">
        <ActionBar buttons={[{ label: "Decline", key: "d" }]} focused={0} />
        <Text dimColor>Enter/d decline · Esc close without answering</Text>
      </Box>
    </Box>
  );
}
