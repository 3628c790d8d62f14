// `mcp-task tools`: the server's tools with their task support, and the generation it speaks.
import type { Command } from "commander";
import type { Context } from "../context.js";
import type { Run } from "./run.js";
import { createPrinter } from "../output/printer.js";
import { sanitizeLine } from "../output/sanitize.js";
import { resolveServer } from "./common.js";

export function registerTools(program: Command, ctx: Context, run: Run): void {
  program
    .command("tools")
    .summary("list a server's tools, their task support and the server's generation")
    .option("-s, --server <name|url>", "saved server name or http(s) URL")
    .option("--stdio <command line>", "run a stdio server")
    .option("--json", "one JSON document")
    .action((flags: { server?: string; stdio?: string; json?: boolean }) =>
      run(async () => {
        const server = await resolveServer(flags, ctx);
        const wire = await ctx.connect(server.descriptor, server.name);
        try {
          const tools = await wire.listTools();
          createPrinter(ctx.io, Boolean(flags.json)).document(
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
      }),
    );
}

function taskLabel(support: string): string {
  return support === "server" ? "server-decides" : support === "forbidden" ? "no task" : `task ${support}`;
}
