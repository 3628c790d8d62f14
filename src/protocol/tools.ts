// tools/list, read the same way for both generations: raw (the SDK's own parse walks every schema recursively, and
// on a resumed V1 session it refuses without the initialize it did not see), at most 100 pages, each tool's schemas
// measured (schema-bounds.ts) before anything walks them; then each tool in its generation's shape.
import { ToolV2Schema } from "@modelcontextprotocol/ext-tasks/core/v2";
import { ProtocolViolation } from "../errors.js";
import { parseOrThrow } from "./parse.js";
import { checkToolSchemas } from "./schema-bounds.js";
import type { ToolInfo } from "./wire.js";

/** Every page of tools/list, each tool read by `read` (undefined: skipped). */
export async function listToolPages(
  request: (params: Record<string, unknown>) => Promise<Record<string, unknown>>,
  read: (raw: unknown) => ToolInfo | undefined,
): Promise<ToolInfo[]> {
  const tools: ToolInfo[] = [];
  for (let cursor: string | undefined, page = 0; page < 100; page++) {
    const reply = await request(cursor ? { cursor } : {});
    if (!Array.isArray(reply.tools))
      throw new ProtocolViolation("the server sent a tools/list result without a tools array");
    for (const raw of reply.tools as unknown[]) {
      const tool = read(raw);
      if (tool) tools.push(tool);
    }
    if (typeof reply.nextCursor !== "string" || !(cursor = reply.nextCursor)) break;
  }
  return tools;
}

/** A V1 tool: one without a name is skipped; `execution.taskSupport` says whether it may run as a task. */
export function toolFromV1(raw: unknown): ToolInfo | undefined {
  const tool = raw as Record<string, unknown>;
  if (typeof tool?.name !== "string") return undefined;
  checkToolSchemas(tool); // before anything walks them (schema-bounds.ts)
  const support = (tool.execution as { taskSupport?: string } | undefined)?.taskSupport;
  return {
    name: tool.name,
    title: typeof tool.title === "string" ? tool.title : undefined,
    description: typeof tool.description === "string" ? tool.description : undefined,
    inputSchema: (tool.inputSchema as Record<string, unknown>) ?? { type: "object" },
    outputSchema: tool.outputSchema as Record<string, unknown> | undefined,
    taskSupport: support === "optional" || support === "required" ? support : "forbidden",
  };
}

/** A V2 tool, parsed with the spec's schema once measured; the server alone decides whether a call is a task. */
export function toolFromV2(raw: unknown): ToolInfo {
  checkToolSchemas(raw);
  const tool = parseOrThrow(ToolV2Schema, raw, "tool in tools/list") as {
    name: string;
    title?: string;
    description?: string;
    inputSchema: unknown;
    outputSchema?: unknown;
  };
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema as Record<string, unknown>,
    outputSchema: tool.outputSchema as Record<string, unknown> | undefined,
    taskSupport: "server",
  };
}
