// `mcp-task server import <file>`: save the servers of a Claude Desktop / Cursor / VS Code config file.
import { readFile } from "node:fs/promises";
import type { Command } from "commander";
import type { Context } from "../../context.js";
import type { Leaf } from "../command.js";
import { UsageError } from "../../errors.js";
import { createPrinter } from "../../output/printer.js";
import { httpDescriptor, type ServerDescriptor } from "../../protocol/server.js";
import { checkName } from "./names.js";

export const serverImport: Leaf<{ file: string }, [string]> = {
  declare: (parent: Command) =>
    parent
      .command("import")
      .summary("import servers from a Claude Desktop / Cursor / VS Code config file")
      .argument("<file>"),
  parse: ([file]) => ({ file }),
  run: (options, ctx) => runImportServers(options, ctx),
};

export async function runImportServers(options: { file: string }, ctx: Context): Promise<number> {
  const imported = await importServers(options.file);
  for (const [name, descriptor] of imported) ctx.settings.saveServer(name, descriptor);
  if (!ctx.settings.defaultServer() && imported.length) ctx.settings.setDefaultServer(imported[0][0]);
  createPrinter(ctx.io, false).note(
    `imported ${imported.length} server(s): ${imported.map(([name]) => name).join(", ")}`,
  );
  return 0;
}

/** Reads `{"mcpServers": {...}}` (Claude Desktop, Cursor) or `{"servers": {...}}` (VS Code). */
export async function importServers(file: string): Promise<Array<[string, ServerDescriptor]>> {
  let data: { mcpServers?: unknown; servers?: unknown };
  try {
    data = JSON.parse(await readFile(file, "utf8"));
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const entries = (data?.mcpServers ?? data?.servers) as Record<string, Record<string, unknown>> | undefined;
  if (!entries || typeof entries !== "object") throw new UsageError(`${file} has no "mcpServers" or "servers" object`);
  const out: Array<[string, ServerDescriptor]> = [];
  for (const [name, entry] of Object.entries(entries)) {
    checkName(name);
    if (typeof entry?.url === "string") {
      out.push([name, httpDescriptor(entry.url, (entry.headers as Record<string, string>) ?? undefined)]);
    } else if (typeof entry?.command === "string") {
      const args = Array.isArray(entry.args) ? entry.args.map(String) : [];
      const env = entry.env && typeof entry.env === "object" ? (entry.env as Record<string, string>) : undefined;
      out.push([
        name,
        {
          transport: "stdio",
          command: entry.command,
          args,
          ...(env ? { env } : {}),
          ...(typeof entry.cwd === "string" ? { cwd: entry.cwd } : {}),
        },
      ]);
    } else {
      throw new UsageError(`server ${name} in ${file} has neither "command" nor "url"`);
    }
  }
  return out;
}
