// Turning tool results into terminal text: text content as is, structured content as pretty JSON, binary
// content as a one-line summary. All server text passes through sanitize().
import type { CallToolResult, ContentBlock } from "../protocol/wire.js";
import { sanitize, sanitizeLine } from "./sanitize.js";

function bytesOfBase64(data: unknown): number {
  return typeof data === "string" ? Math.floor((data.length * 3) / 4) : 0;
}

export function renderBlock(block: ContentBlock): string {
  switch (block.type) {
    case "text":
      return sanitize(String(block.text ?? ""));
    case "image":
    case "audio":
      return `[${block.type}: ${sanitizeLine(String(block.mimeType ?? "unknown type"))}, ${bytesOfBase64(block.data)} bytes]`;
    case "resource_link":
      return `[resource link: ${sanitizeLine(String(block.uri ?? ""))}${block.name ? ` (${sanitizeLine(String(block.name))})` : ""}]`;
    case "resource": {
      const resource = (block.resource ?? {}) as { uri?: unknown; text?: unknown; blob?: unknown; mimeType?: unknown };
      if (typeof resource.text === "string") return sanitize(resource.text);
      return `[resource: ${sanitizeLine(String(resource.uri ?? ""))}, ${bytesOfBase64(resource.blob)} bytes]`;
    }
    default:
      return `[${sanitizeLine(String(block.type))} content]`;
  }
}

/** The text a user reads on stdout for a result. */
export function renderResult(result: CallToolResult): string {
  const parts = (result.content ?? []).map(renderBlock);
  if (parts.length === 0 && result.structuredContent !== undefined) parts.push(sanitize(JSON.stringify(result.structuredContent, null, 2)));
  return parts.join("\n");
}
