// Turning tool results into terminal text: text content as is, structured content as pretty JSON, binary and
// linked content as a one-line summary (type, size, uri). All server text passes through sanitize(); --json
// carries the result untouched.
import { isDeepStrictEqual } from "node:util";
import type { CallToolResult, ContentBlock } from "../protocol/wire.js";
import { sanitize, sanitizeLine } from "../sanitize.js";

function bytesOfBase64(data: unknown): number {
  if (typeof data !== "string") return 0;
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.floor((data.length * 3) / 4) - padding;
}

function size(bytes: number): string {
  return bytes < 1024
    ? `${bytes} bytes`
    : bytes < 1024 * 1024
      ? `${(bytes / 1024).toFixed(1)} KiB`
      : `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

const field = (value: unknown) => sanitizeLine(String(value));

export function renderBlock(block: ContentBlock): string {
  switch (block.type) {
    case "text":
      return sanitize(String(block.text ?? ""));
    case "image":
    case "audio":
      return `[${block.type}: ${field(block.mimeType ?? "unknown type")}, ${size(bytesOfBase64(block.data))}]`;
    case "resource_link": {
      const details = [
        block.name ? field(block.name) : "",
        block.mimeType ? field(block.mimeType) : "",
        typeof block.size === "number" ? size(block.size) : "",
      ];
      const extra = details.filter(Boolean).join(", ");
      return `[resource link: ${field(block.uri ?? "")}${extra ? ` (${extra})` : ""}]`;
    }
    case "resource": {
      const resource = (block.resource ?? {}) as { uri?: unknown; text?: unknown; blob?: unknown; mimeType?: unknown };
      const mime = resource.mimeType ? `, ${field(resource.mimeType)}` : "";
      if (typeof resource.text === "string")
        return `[resource: ${field(resource.uri ?? "")}${mime}]\n${sanitize(resource.text)}`;
      return `[resource: ${field(resource.uri ?? "")}${mime}, ${size(bytesOfBase64(resource.blob))}]`;
    }
    default:
      return `[${field(block.type)} content]`;
  }
}

function parsesTo(text: string, value: unknown): boolean {
  try {
    return isDeepStrictEqual(JSON.parse(text), value);
  } catch {
    return false;
  }
}

/** The text a user reads on stdout for a result. Structured content is shown once, pretty-printed. */
export function renderResult(result: CallToolResult): string {
  const structured = result.structuredContent;
  const pretty = structured === undefined ? undefined : sanitize(JSON.stringify(structured, null, 2));
  let shown = false;
  const parts = (result.content ?? []).map((block) => {
    // A text block that only repeats the structured content (the spec's advice for old clients) is shown pretty.
    if (
      pretty !== undefined &&
      block.type === "text" &&
      typeof block.text === "string" &&
      parsesTo(block.text, structured)
    ) {
      shown = true;
      return pretty;
    }
    return renderBlock(block);
  });
  if (pretty !== undefined && !shown) parts.push(pretty);
  return parts.join("\n");
}
