// `mcp-task server import <file>`: save the servers of another MCP client's file (Claude Desktop, Claude Code, VS Code,
// Cursor, Windsurf: store/client-config.ts reads them). A server that cannot be saved safely is named, and the
// command exits 2 once the others are saved.
import { readFile } from "node:fs/promises";
import { isDeepStrictEqual } from "node:util";
import type { Command } from "commander";
import type { Context } from "../../context.js";
import type { Leaf } from "../command.js";
import { ExitCode, UsageError } from "../../errors.js";
import { createPrinter } from "../../output/printer.js";
import { describeServer } from "../../protocol/server.js";
import { sanitizeLine } from "../../sanitize.js";
import { readClientConfig } from "../../store/client-config.js";
import { checkName } from "./names.js";

export const serverImport: Leaf<{ file: string }, [string]> = {
  declare: (parent: Command) =>
    parent
      .command("import")
      .summary("import servers from a Claude Desktop / Claude Code / VS Code / Cursor / Windsurf MCP file")
      .argument("<file>"),
  parse: ([file]) => ({ file }),
  run: (options, ctx) => runImportServers(options, ctx),
};

export async function runImportServers(options: { file: string }, ctx: Context): Promise<number> {
  let text: string;
  try {
    text = await readFile(options.file, "utf8");
  } catch (error) {
    throw new UsageError(
      `cannot read ${sanitizeLine(options.file)}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  const config = await readClientConfig(text, options.file, ctx.env);
  const printer = createPrinter(ctx.io, false);
  const settings = await ctx.loadSettings();
  const saved: string[] = [];
  for (const server of config.servers) {
    const name = savedName(server.name);
    if (name === undefined) {
      config.refused.push({ name: server.name, reason: "not a valid server name (letters, digits, '.', '_' and '-')" });
      continue;
    }
    const before = Object.hasOwn(settings.servers(), name) ? settings.servers()[name] : undefined;
    if (before && !isDeepStrictEqual(before, server.descriptor)) {
      // A file from elsewhere (a project's .vscode/mcp.json) never replaces a saved server in silence: its address
      // and headers would then get what the person gives that name (its ${env:} references, its sign-in).
      config.refused.push({
        name: server.name,
        reason: `a saved server is named ${name} (${describeServer(before)}); remove it first (mcp-task server remove ${name}) to replace it`,
      });
      continue;
    }
    if (!before) settings.saveServer(name, server.descriptor);
    saved.push(name);
    if (name !== server.name) printer.note(`${sanitizeLine(server.name)} is saved as ${name}`);
    for (const note of server.notes) printer.note(`${name}: ${sanitizeLine(note)}`);
  }
  if (!settings.defaultServer() && saved.length) settings.setDefaultServer(saved[0]!);
  printer.note(`imported ${saved.length} server(s)${saved.length ? `: ${saved.join(", ")}` : ""}`);
  for (const { name, reason } of config.refused)
    printer.note(`not imported: ${sanitizeLine(name)}: ${sanitizeLine(reason)}`);
  if (config.refused.length === 0) return ExitCode.ok;
  throw new UsageError(
    `${config.refused.length} server(s) of ${sanitizeLine(options.file)} not imported (see above)`,
    "fix them in the file and import it again, or add them with: mcp-task server add",
  );
}

/** The name a server is saved under: its own, with spaces as '-' ("GitHub Copilot": GitHub-Copilot); else none. */
function savedName(name: string): string | undefined {
  try {
    return checkName(name.trim().replace(/\s+/g, "-"));
  } catch {
    return undefined;
  }
}
