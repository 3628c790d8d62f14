// `mcp-task tools`: the server's tools with their task support, and the generation it speaks.
import type { Command } from "commander";
import type { Context } from "../context.js";
import type { Leaf } from "./command.js";
import { createPrinter } from "../output/printer.js";
import { safeJson, sanitizeLine } from "../sanitize.js";
import { UsageError } from "../errors.js";
import type { ToolInfo } from "../protocol/wire.js";
import { resolveServer, type ResolvedServer } from "./resolve-server.js";
import { closest, didYouMean, toolsCommand } from "../tasks/tool-check.js";
import {
  JSON_DOCUMENT,
  jsonFlag,
  jsonOption,
  serverFlags,
  serverOptions,
  withOptions,
  type ServerFlags,
} from "./options.js";

export interface ToolsOptions extends ServerFlags {
  /** One tool: its input and output schemas and task support. */
  name?: string;
  json: boolean;
}

export const tools: Leaf<ToolsOptions, [string | undefined]> = {
  examples: ["mcp-task tools -s everything", "mcp-task tools simulate-research-query -s everything --json"],
  declare: (parent: Command) =>
    withOptions(
      parent
        .command("tools")
        .summary("list a server's tools, their task support and the server's generation")
        .argument("[name]", "one tool: its input and output schemas and task support"),
      ...serverOptions(),
      jsonOption(JSON_DOCUMENT),
    ),
  parse: ([name], flags) => ({ ...serverFlags(flags), ...(name !== undefined ? { name } : {}), json: jsonFlag(flags) }),
  run: (options, ctx) => runTools(options, ctx),
};

export async function runTools(options: ToolsOptions, ctx: Context): Promise<number> {
  const server = await resolveServer(options, ctx);
  const wire = await ctx.connect(server.descriptor, server.name);
  try {
    const tools = await wire.listTools();
    if (options.name !== undefined) return showTool(options.name, tools, server, ctx, options.json);
    const { generation, protocolVersion } = wire.capabilities;
    createPrinter(ctx.io, options.json).document({ server: server.name, generation, protocolVersion, tools }, () => {
      const head = `${sanitizeLine(server.name)}: ${generation.toUpperCase()} (protocol ${sanitizeLine(protocolVersion)})`;
      // Names as shown, cut at TOOL_NAME_COLUMN: the column is as wide as the longest of those (a server's one
      // 200,000-character name padded every row to it: 400 MB of output), found without spreading 300,000 names
      // into one call's arguments.
      const names = tools.map((t) => cutName(sanitizeLine(t.name)));
      const width = names.reduce((most, name) => Math.max(most, name.length), 4);
      const rows = tools.map(
        (t, i) =>
          `  ${names[i]!.padEnd(width)}  ${taskLabel(t.taskSupport).padEnd(12)}  ${sanitizeLine(t.description ?? "").slice(0, 80)}`,
      );
      return [head, ...rows].join("\n");
    });
    return 0;
  } finally {
    await wire.close();
  }
}

const TOOL_NAME_COLUMN = 60;
const cutName = (name: string) => (name.length > TOOL_NAME_COLUMN ? `${name.slice(0, TOOL_NAME_COLUMN - 1)}…` : name);

function taskLabel(support: string): string {
  return support === "server" ? "server-decides" : support === "forbidden" ? "no task" : `task ${support}`;
}

/** One tool as a document: its schemas exactly as the server sent them (text: indented JSON, made safe). */
function showTool(name: string, tools: ToolInfo[], server: ResolvedServer, ctx: Context, json: boolean): number {
  const tool = tools.find((t) => t.name === name);
  if (!tool)
    throw new UsageError(
      `${sanitizeLine(server.name)} has no tool named ${sanitizeLine(name)}${didYouMean(
        closest(
          name,
          tools.map((t) => t.name),
        ),
      )}`,
      `see its tools with: ${toolsCommand(server.option)}`,
    );
  createPrinter(ctx.io, json).document(tool, () =>
    [
      `${sanitizeLine(tool.name)}${tool.title ? ` (${sanitizeLine(tool.title)})` : ""}: ${taskLabel(tool.taskSupport)}`,
      ...(tool.description ? [`  ${sanitizeLine(tool.description)}`] : []),
      "input schema:",
      indent(safeJson(tool.inputSchema, 2)),
      ...(tool.outputSchema ? ["output schema:", indent(safeJson(tool.outputSchema, 2))] : []),
    ].join("\n"),
  );
  return 0;
}

const indent = (text: string) => text.replace(/^/gm, "  ");
