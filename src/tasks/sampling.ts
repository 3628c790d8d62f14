// Sampling answered by a person: a server's `sampling/createMessage` request (a model's reply to its messages) is
// shown, made display-safe, and answered with a CreateMessageResult built from the text a person writes, or gives
// ahead of time (--sampling-reply). mcp-task has no model of its own: the "model" is the person (or a name they give).
import { cutText } from "../errors.js";
import { MAX_SAMPLING_MESSAGES_SHOWN, MAX_SAMPLING_TEXT_SHOWN } from "../limits.js";
import { sanitize, sanitizeLine } from "../sanitize.js";
import type { InputRequest, InputResponse } from "../protocol/wire.js";

export const SAMPLING = "sampling/createMessage";
/** The `model` of a reply when the person names none. */
export const HUMAN_MODEL = "human";

/** A reply to sampling requests: its text, and the model name the server is told. */
export interface SamplingReply {
  text: string;
  model: string;
}

export const isSampling = (request: InputRequest): boolean => request.method === SAMPLING;

/** The CreateMessageResult the server receives for `reply`. */
export function samplingResult(reply: SamplingReply): Record<string, unknown> {
  return {
    role: "assistant",
    content: { type: "text", text: reply.text },
    model: reply.model || HUMAN_MODEL,
    stopReason: "endTurn",
  };
}

/** `reply` as the answer to a sampling request (the wire sends `content`, the CreateMessageResult, as the result). */
export function samplingAnswer(reply: SamplingReply): InputResponse {
  return { action: "accept", content: samplingResult(reply) };
}

/** One message of the request, display-safe: its role and its content, each block a text or a named stand-in. */
export interface ShownMessage {
  role: string;
  parts: string[];
}

/** What a sampling request asks, display-safe. */
export interface SamplingView {
  messages: ShownMessage[];
  /** Messages left out at the start (past MAX_SAMPLING_MESSAGES_SHOWN). */
  omitted: number;
  systemPrompt?: string;
  /** Model preferences and the other parameters, one line each ("model hints: claude, gpt", "at most 100 tokens"). */
  details: string[];
}

const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);
const record = (value: unknown): Record<string, unknown> =>
  value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

/** Bytes of a base64 payload, for naming an image or audio block by its size. */
function base64Bytes(data: unknown): number {
  if (typeof data !== "string") return 0;
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

function sizeOf(bytes: number): string {
  return bytes < 1024
    ? `${bytes} B`
    : bytes < 1024 * 1024
      ? `${(bytes / 1024).toFixed(1)} KB`
      : `${(bytes / 1048576).toFixed(1)} MB`;
}

/** One content block: text as text (safe, cut), anything else named by its type (and MIME type and size). */
function shownBlock(block: unknown): string {
  const b = record(block);
  const type = str(b.type) ?? "unknown";
  if (type === "text") return cutText(sanitize(str(b.text) ?? ""), MAX_SAMPLING_TEXT_SHOWN);
  if (type === "image" || type === "audio")
    return `[${sanitizeLine(type)} ${sanitizeLine(str(b.mimeType) ?? "")}, ${sizeOf(base64Bytes(b.data))}]`;
  if (type === "tool_use") return `[tool_use ${cutText(sanitizeLine(str(b.name) ?? ""), 100)}]`;
  return `[${cutText(sanitizeLine(type), 100)} content]`;
}

function preferenceLines(preferences: Record<string, unknown>): string[] {
  const lines: string[] = [];
  const hints = Array.isArray(preferences.hints)
    ? preferences.hints.map((hint) => str(record(hint).name)).filter((name): name is string => Boolean(name))
    : [];
  if (hints.length) lines.push(`model hints: ${cutText(sanitizeLine(hints.join(", ")), 300)}`);
  const priorities = (["cost", "speed", "intelligence"] as const)
    .map((name) => [name, preferences[`${name}Priority`]] as const)
    .filter(([, value]) => typeof value === "number")
    .map(([name, value]) => `${name} ${value as number}`);
  if (priorities.length) lines.push(`priorities: ${priorities.join(", ")}`);
  return lines;
}

/** The request as a person sees it (every string from the server made safe). */
export function samplingView(request: InputRequest): SamplingView {
  const p = request.params;
  const all = Array.isArray(p.messages) ? p.messages : [];
  const messages = all.slice(-MAX_SAMPLING_MESSAGES_SHOWN).map((message) => {
    const m = record(message);
    const blocks = Array.isArray(m.content) ? m.content : [m.content];
    return { role: cutText(sanitizeLine(str(m.role) ?? "?"), 40), parts: blocks.map(shownBlock) };
  });
  const details = preferenceLines(record(p.modelPreferences));
  if (typeof p.maxTokens === "number") details.push(`at most ${p.maxTokens} tokens`);
  if (typeof p.temperature === "number") details.push(`temperature ${p.temperature}`);
  if (str(p.includeContext) && p.includeContext !== "none")
    details.push(`include context: ${sanitizeLine(str(p.includeContext)!)}`);
  if (Array.isArray(p.tools) && p.tools.length)
    details.push(
      `tools offered: ${cutText(sanitizeLine(p.tools.map((tool) => str(record(tool).name) ?? "?").join(", ")), 300)}`,
    );
  const system = str(p.systemPrompt);
  return {
    messages,
    omitted: all.length - messages.length,
    systemPrompt: system ? cutText(sanitize(system), MAX_SAMPLING_TEXT_SHOWN) : undefined,
    details,
  };
}

/** The request as plain lines (the line prompt, a summary): the head, the system prompt, the messages, the details. */
export function samplingLines(request: InputRequest): string[] {
  const view = samplingView(request);
  const count = view.messages.length + view.omitted;
  const lines = [`The server asks for a model's reply (sampling) to ${count} message${count === 1 ? "" : "s"}.`];
  if (view.systemPrompt) lines.push(`system prompt: ${view.systemPrompt}`);
  if (view.omitted) lines.push(`(${view.omitted} earlier message${view.omitted === 1 ? "" : "s"} not shown)`);
  for (const message of view.messages) lines.push(`[${message.role}] ${message.parts.join(" ")}`);
  lines.push(...view.details);
  return lines;
}
