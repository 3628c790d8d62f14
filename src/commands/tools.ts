// `mcp-task tools`: the server's tools with their task support, and the generation it speaks.
import type { Command } from "commander";
import type { Context } from "../context.js";
import type { Leaf } from "./command.js";
import { createPrinter } from "../output/printer.js";
import { sanitizeLine } from "../sanitize.js";
import { resolveServer } from "./resolve-server.js";
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
  json: boolean;
}

export const tools: Leaf<ToolsOptions, []> = {
  declare: (parent: Command) =>
    withOptions(
      parent.command("tools").summary("list a server's tools, their task support and the server's generation"),
      ...serverOptions(),
      jsonOption(JSON_DOCUMENT),
    ),
  parse: (_args, flags) => ({ ...serverFlags(flags), json: jsonFlag(flags) }),
  run: (options, ctx) => runTools(options, ctx),
};

export async function runTools(options: ToolsOptions, ctx: Context): Promise<number> {
  const server = await resolveServer(options, ctx);
  const wire = await ctx.connect(server.descriptor, server.name);
  try {
    const tools = await wire.listTools();
    createPrinter(ctx.io, options.json).document(
      { server: server.name, generation: wire.generation, protocolVersion: wire.protocolVersion, tools },
      () => {
        const head = `${sanitizeLine(server.name)}: ${wire.generation.toUpperCase()} (protocol ${sanitizeLine(wire.protocolVersion)})`;
        const width = Math.max(4, ...tools.map((t) => t.name.length));
        const rows = tools.map(
          (t) =>
            `  ${sanitizeLine(t.name).padEnd(width)}  ${taskLabel(t.taskSupport).padEnd(12)}  ${sanitizeLine(t.description ?? "").slice(0, 80)}`,
        );
        return [head, ...rows].join("\n");
      },
    );
    return 0;
  } finally {
    await wire.close();
  }
}

function taskLabel(support: string): string {
  return support === "server" ? "server-decides" : support === "forbidden" ? "no task" : `task ${support}`;
}
