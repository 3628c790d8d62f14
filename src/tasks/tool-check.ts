// Before a call: the server's tool by name, and the arguments checked against its inputSchema.
import { UsageError } from "../errors.js";
import { excludedTool } from "../protocol/param-headers.js";
import type { ToolInfo } from "../protocol/wire.js";
import type { TaskEngine } from "./engine.js";
import { shellWord } from "../sanitize.js";

/**
 * `mcp-task tools` for the server as it was given (`option`: `--stdio '<line>'`, `-s <name>`, or "" for the
 * default server), and one tool's schema when `tool` is given (last: shellWord may put `--` before it).
 */
export function toolsCommand(option: string, tool?: string): string {
  return ["mcp-task tools", option, tool === undefined ? "" : shellWord(tool)].filter(Boolean).join(" ");
}

/**
 * The tool `name` of the server behind `engine`, with `args` checked against its inputSchema (a UsageError when it
 * is missing or they do not fit). `seen` hears every tool's task support (cached, so that the next call knows).
 */
export async function checkedTool(
  engine: TaskEngine,
  server: { name: string; option: string },
  name: string,
  args: Record<string, unknown>,
  seen: (taskSupport: Record<string, ToolInfo["taskSupport"]>) => void,
): Promise<ToolInfo> {
  const tools = await engine.listTools();
  seen(Object.fromEntries(tools.map((t) => [t.name, t.taskSupport])));
  const tool = tools.find((t) => t.name === name);
  const excluded = tool ? undefined : engine.toolExclusion(name);
  if (excluded) throw excludedTool(name, excluded);
  if (!tool)
    throw new UsageError(
      `${server.name} has no tool named ${name}`,
      `list the tools with: ${toolsCommand(server.option)}`,
    );
  const problem = await engine.argumentsProblem(tool.inputSchema, args, `tool ${name}'s inputSchema`);
  if (problem)
    throw new UsageError(
      `the arguments do not fit ${name}'s inputSchema: ${problem}`,
      `see the schema with: ${toolsCommand(server.option, name)}`,
    );
  return tool;
}
