// `mcp-task server add|list|remove|use|import`: the saved servers.
import { readFile } from "node:fs/promises";
import type { Command } from "commander";
import type { Context } from "../context.js";
import type { Run } from "./run.js";
import type { OAuthClientSettings } from "../store/settings.js";
import { UsageError } from "../errors.js";
import { createPrinter } from "../output/printer.js";
import { sanitizeLine } from "../output/sanitize.js";
import {
  describeServer,
  httpDescriptor,
  parseCommandLine,
  parseEnvPairs,
  parseHeaders,
  type ServerDescriptor,
} from "../protocol/server.js";

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

function checkName(name: string): string {
  if (!NAME.test(name))
    throw new UsageError(
      `not a valid server name: ${sanitizeLine(name)}`,
      "use letters, digits, '.', '_' and '-' (at most 64)",
    );
  return name;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

interface AddFlags {
  url?: string;
  header?: string[];
  stdio?: string;
  env?: string[];
  cwd?: string;
  clientId?: string;
  clientSecret?: string;
  scope?: string;
  grant?: string;
}

/** The pre-registered OAuth client of `server add` (src/auth signs in with it), or undefined when none is given. */
function clientSettings(flags: AddFlags): OAuthClientSettings | undefined {
  if (flags.clientId === undefined) {
    if (flags.clientSecret !== undefined || flags.grant !== undefined)
      throw new UsageError("--client-secret and --grant go with --client-id");
    return flags.scope === undefined ? undefined : { scope: flags.scope };
  }
  if (flags.url === undefined) throw new UsageError("--client-id goes with --url");
  if (flags.clientSecret !== undefined && !/^\$\{env:[A-Za-z_][A-Za-z0-9_]*\}$/.test(flags.clientSecret))
    throw new UsageError(
      "--client-secret takes an environment reference, never the secret itself",
      "export the secret and pass --client-secret '${env:NAME}'",
    );
  if (flags.grant !== undefined && flags.grant !== "authorization-code" && flags.grant !== "client-credentials")
    throw new UsageError(
      `unknown --grant: ${sanitizeLine(flags.grant)}`,
      "use authorization-code or client-credentials",
    );
  if (flags.grant === "client-credentials" && flags.clientSecret === undefined)
    throw new UsageError("--grant client-credentials needs --client-secret '${env:NAME}'");
  return {
    clientId: flags.clientId,
    ...(flags.clientSecret !== undefined ? { clientSecret: flags.clientSecret } : {}),
    ...(flags.scope !== undefined ? { scope: flags.scope } : {}),
    ...(flags.grant === "client-credentials" ? { grant: "client_credentials" as const } : {}),
  };
}

export function registerServer(program: Command, ctx: Context, run: Run): void {
  const server = program
    .command("server")
    .summary("save, list and choose servers")
    .description("Save, list and choose MCP servers.")
    .addHelpText(
      "after",
      '\nExample:\n  mcp-task server add everything --stdio "npx -y @modelcontextprotocol/server-everything"',
    );
  server
    .command("add")
    .summary("save a server under a name")
    .argument("<name>")
    .option("--url <url>", "Streamable HTTP endpoint")
    .option("--header <Name: value>", "HTTP header (repeatable); values may use ${env:NAME}", collect)
    .option("--stdio <command line>", "command that runs a stdio server")
    .option("--env <KEY=VALUE>", "environment for the stdio server (repeatable); values may use ${env:NAME}", collect)
    .option("--cwd <dir>", "working directory of the stdio server")
    .option("--client-id <id>", "OAuth client registered for mcp-task with the server's authorization server")
    .option("--client-secret <ref>", "its secret, as an environment reference: '${env:NAME}'")
    .option("--scope <scopes>", "OAuth scopes to ask for (space-separated)")
    .option("--grant <grant>", "authorization-code (a person signs in; default) or client-credentials (CI)")
    .action((name: string, flags: AddFlags) =>
      run(async () => {
        checkName(name);
        if ((flags.url === undefined) === (flags.stdio === undefined))
          throw new UsageError("give exactly one of --url or --stdio");
        let descriptor: ServerDescriptor;
        if (flags.url !== undefined) {
          if (flags.env || flags.cwd) throw new UsageError("--env and --cwd go with --stdio");
          descriptor = httpDescriptor(flags.url, parseHeaders(flags.header ?? []));
        } else {
          if (flags.header) throw new UsageError("--header goes with --url");
          const { command, args } = parseCommandLine(flags.stdio!);
          const env = parseEnvPairs(flags.env ?? []);
          descriptor = {
            transport: "stdio",
            command,
            args,
            ...(Object.keys(env).length ? { env } : {}),
            ...(flags.cwd ? { cwd: flags.cwd } : {}),
          };
        }
        const client = clientSettings(flags);
        ctx.settings.saveServer(name, descriptor);
        ctx.settings.saveClient(name, client);
        if (!ctx.settings.defaultServer()) ctx.settings.setDefaultServer(name);
        createPrinter(ctx.io, false).note(`saved server ${name}: ${describeServer(descriptor)}`);
        return 0;
      }),
    );
  server
    .command("list")
    .summary("list saved servers")
    .option("--json", "one JSON document")
    .action((flags: { json?: boolean }) =>
      run(async () => {
        const servers = ctx.settings.servers();
        const current = ctx.settings.defaultServer();
        createPrinter(ctx.io, Boolean(flags.json)).document({ defaultServer: current ?? null, servers }, () =>
          Object.entries(servers)
            .map(
              ([name, d]) =>
                `${name === current ? "*" : " "} ${name}  ${d.transport}  ${sanitizeLine(describeServer(d))}`,
            )
            .join("\n"),
        );
        return 0;
      }),
    );
  server
    .command("remove")
    .summary("forget a saved server")
    .argument("<name>")
    .action((name: string) =>
      run(async () => {
        if (!ctx.settings.removeServer(name))
          throw new UsageError(`unknown server: ${sanitizeLine(name)}`, "see them with: mcp-task server list");
        return 0;
      }),
    );
  server
    .command("use")
    .summary("make a saved server the default")
    .argument("<name>")
    .action((name: string) =>
      run(async () => {
        if (!ctx.settings.server(name))
          throw new UsageError(`unknown server: ${sanitizeLine(name)}`, "see them with: mcp-task server list");
        ctx.settings.setDefaultServer(name);
        return 0;
      }),
    );
  server
    .command("ps")
    .summary("list the running brokers that keep stdio servers alive between commands")
    .option("--json", "one JSON document")
    .action((flags: { json?: boolean }) =>
      run(async () => {
        const { listBrokers } = await import("../broker/client.js");
        const brokers = await listBrokers(ctx.home);
        createPrinter(ctx.io, Boolean(flags.json)).document(
          brokers.map(({ descriptor: _d, ...b }) => b),
          () =>
            brokers.length === 0
              ? "no brokers running"
              : brokers
                  .map(
                    (b) =>
                      `${sanitizeLine(b.name).padEnd(24)} pid ${String(b.pid).padEnd(8)} server pid ${String(b.serverPid ?? "?").padEnd(8)} ${b.responding ? `up ${Math.round((b.uptimeMs ?? 0) / 1000)}s, ${b.live} live task(s), ${b.clients} client(s)` : "not responding"}`,
                  )
                  .join("\n"),
        );
        return 0;
      }),
    );
  server
    .command("stop")
    .summary("stop a server's broker (and so the stdio server; its running tasks end)")
    .argument("<name>", "saved server name, or the command line shown by server ps")
    .action((name: string) =>
      run(async () => {
        const { listBrokers, stopBroker } = await import("../broker/client.js");
        const matches = (await listBrokers(ctx.home)).filter((b) => b.name === name);
        if (matches.length === 0)
          throw new UsageError(`no broker runs for ${sanitizeLine(name)}`, "see them with: mcp-task server ps");
        for (const broker of matches) await stopBroker(ctx.home, broker.key);
        createPrinter(ctx.io, false).note(`stopped ${matches.length} broker(s) of ${name}`);
        return 0;
      }),
    );
  server
    .command("import")
    .summary("import servers from a Claude Desktop / Cursor / VS Code config file")
    .argument("<file>")
    .action((file: string) =>
      run(async () => {
        const imported = await importServers(file);
        for (const [name, descriptor] of imported) ctx.settings.saveServer(name, descriptor);
        if (!ctx.settings.defaultServer() && imported.length) ctx.settings.setDefaultServer(imported[0][0]);
        createPrinter(ctx.io, false).note(
          `imported ${imported.length} server(s): ${imported.map(([name]) => name).join(", ")}`,
        );
        return 0;
      }),
    );
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
