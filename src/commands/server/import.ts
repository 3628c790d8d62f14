// `mcp-task server import <file>`: save the servers of another MCP client's file (Claude Desktop, Claude Code, VS Code,
// Cursor, Windsurf: store/client-config.ts reads them). A server that cannot be saved safely is named, and the
// command exits 2 once the others are saved.
import { isDeepStrictEqual } from "node:util";
import type { Command } from "commander";
import type { Context } from "../../context.js";
import type { Leaf } from "../command.js";
import { ExitCode, UsageError } from "../../errors.js";
import { createPrinter } from "../../output/printer.js";
import { describeServer } from "../../protocol/server.js";
import { sanitizeLine } from "../../sanitize.js";
import { MAX_CLIENT_CONFIG_BYTES, MAX_SETTINGS_BYTES } from "../../limits.js";
import { readClientConfig, type ImportedServer } from "../../store/client-config.js";
import { readNamedFile } from "../../store/named-files.js";
import { pastLimit, savedServerProblem, SettingsFullError, type SavedServer } from "../../store/settings.js";
import { checkName } from "./names.js";

export const serverImport: Leaf<{ file: string }, [string]> = {
  examples: ["mcp-task server import ~/.cursor/mcp.json"],
  declare: (parent: Command) =>
    parent
      .command("import")
      .summary("import servers from a Claude Desktop / Claude Code / VS Code / Cursor / Windsurf MCP file")
      .argument("<file>"),
  parse: ([file]) => ({ file }),
  run: (options, ctx) => runImportServers(options, ctx),
};

export async function runImportServers(options: { file: string }, ctx: Context): Promise<number> {
  // A regular file only (a FIFO waited for a writer for ever), of a bounded size.
  const text = readNamedFile(options.file, MAX_CLIENT_CONFIG_BYTES);
  const config = await readClientConfig(text, options.file, ctx.env);
  const printer = createPrinter(ctx.io, false);
  const settings = await ctx.loadSettings();
  const servers = settings.servers();
  // Names that become one once saved ("GitHub Copilot" and "GitHub-Copilot") are refused together, as a name given
  // twice is (client-config.ts): keeping either saves a server other than the one a reader may see.
  const claims = new Map<string, string[]>();
  for (const { name } of [...config.servers, ...config.refused]) {
    const saved = savedName(name);
    if (saved !== undefined) claims.set(saved, [...(claims.get(saved) ?? []), name]);
  }
  const fresh: SavedServer[] = [];
  const saved: Array<{ name: string; server: ImportedServer }> = [];
  for (const server of config.servers) {
    const name = savedName(server.name);
    const refuse = (reason: string) => config.refused.push({ name: server.name, reason });
    if (name === undefined) {
      refuse("not a valid server name (letters, digits, '.', '_' and '-')");
      continue;
    }
    const claimants = claims.get(name)!;
    if (claimants.length > 1) {
      refuse(
        `${claimants.map((c) => JSON.stringify(c)).join(" and ")} would ${claimants.length > 2 ? "all" : "both"} be saved as ${name}: which one is meant is not clear`,
      );
      continue;
    }
    const problem = savedServerProblem({ name, descriptor: server.descriptor });
    if (problem) {
      refuse(problem);
      continue;
    }
    const before = Object.hasOwn(servers, name) ? servers[name] : undefined;
    if (before && !isDeepStrictEqual(before, server.descriptor)) {
      // A file from elsewhere (a project's .vscode/mcp.json) never replaces a saved server in silence: its address
      // and headers would then get what the person gives that name (its ${env:} references, its sign-in).
      refuse(
        `a saved server is named ${name} (${describeServer(before)}); remove it first (mcp-task server remove ${name}) to replace it`,
      );
      continue;
    }
    if (!before) fresh.push({ name, descriptor: server.descriptor });
    saved.push({ name, server });
  }
  // One write for them all (and the default server, where none is set), or none at all.
  if (fresh.length > 0 || (saved.length > 0 && !settings.defaultServer())) {
    try {
      settings.saveServers(fresh, saved[0]?.name);
    } catch (error) {
      if (!(error instanceof SettingsFullError)) throw error;
      throw new UsageError(
        `nothing imported: the ${fresh.length} new server(s) of ${sanitizeLine(options.file)} would make ${error.path} ${pastLimit(error.bytes, MAX_SETTINGS_BYTES)} mcp-task reads it at`,
        "import fewer at a time (split the file), or remove saved servers you no longer use: mcp-task server remove <name>",
      );
    }
  }
  for (const { name, server } of saved) {
    if (name !== server.name) printer.note(`${sanitizeLine(server.name)} is saved as ${name}`);
    for (const note of server.notes) printer.note(`${name}: ${sanitizeLine(note)}`);
  }
  const names = saved.map((s) => s.name);
  printer.note(`imported ${names.length} server(s)${names.length ? `: ${names.join(", ")}` : ""}`);
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
