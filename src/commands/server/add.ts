// `mcp-task server add <name> (--url <url> | --stdio <command line>)`: save a server under a name.
import { isDeepStrictEqual } from "node:util";
import { Option, type Command } from "commander";
import type { Context } from "../../context.js";
import type { Leaf } from "../command.js";
import { UsageError } from "../../errors.js";
import { createPrinter } from "../../output/printer.js";
import {
  describeServer,
  httpDescriptor,
  parseCommandLine,
  parseEnvPairs,
  parseHeaders,
  type ServerDescriptor,
} from "../../protocol/server.js";
import { sanitizeLine, shellValue } from "../../sanitize.js";
import { isLiteralSecret, schemeOf } from "../../secret-names.js";
import type { OAuthClientSettings } from "../../store/settings.js";
import { collect, withOptions, type Flags } from "../options.js";
import { checkName } from "./names.js";

export interface AddServerOptions {
  name: string;
  descriptor: ServerDescriptor;
  /** A pre-registered OAuth client (src/auth signs in with it), if given. */
  client?: OAuthClientSettings;
  /** Replace a server saved under the name with another (without it, that is refused). */
  force?: true;
}

export const serverAdd: Leaf<AddServerOptions, [string]> = {
  examples: [
    'mcp-task server add everything --stdio "npx -y @modelcontextprotocol/server-everything"',
    "mcp-task server add remote --url https://mcp.example.com/mcp --header 'Authorization: Bearer ${env:MCP_TOKEN}'",
  ],
  declare: (parent: Command) =>
    withOptions(
      parent.command("add").summary("save a server under a name").argument("<name>"),
      new Option("--url <url>", "Streamable HTTP endpoint"),
      new Option("--header <Name: value>", "HTTP header (repeatable); values may use ${env:NAME}").argParser(collect),
      new Option("--stdio <command line>", "command that runs a stdio server"),
      new Option(
        "--env <KEY=VALUE>",
        "environment for the stdio server (repeatable); values may use ${env:NAME}",
      ).argParser(collect),
      new Option("--cwd <dir>", "working directory of the stdio server"),
      new Option("--client-id <id>", "OAuth client registered for mcp-task with the server's authorization server"),
      new Option("--client-secret <ref>", "its secret, as an environment reference: '${env:NAME}'"),
      new Option(
        "--client-metadata-url <url>",
        "https URL of mcp-task's client ID metadata document (its client id where supported)",
      ),
      new Option("--scope <scopes>", "OAuth scopes to ask for (space-separated)"),
      new Option("--grant <grant>", "authorization-code (a person signs in; default) or client-credentials (CI)"),
      new Option("--force", "replace the server already saved under that name"),
    ),
  parse: ([name], flags) => {
    const client = clientSettings(flags as ClientFlags);
    return {
      name: checkName(name),
      descriptor: descriptorOf(flags),
      ...(client ? { client } : {}),
      ...(flags.force ? { force: true as const } : {}),
    };
  },
  run: (options, ctx) => runAddServer(options, ctx),
};

function descriptorOf(flags: Flags): ServerDescriptor {
  const { url, header, stdio, env, cwd } = flags as {
    url?: string;
    header?: string[];
    stdio?: string;
    env?: string[];
    cwd?: string;
  };
  if ((url === undefined) === (stdio === undefined)) throw new UsageError("give exactly one of --url or --stdio");
  if (url !== undefined) {
    if (env || cwd) throw new UsageError("--env and --cwd go with --stdio");
    const headers = parseHeaders(header ?? []);
    for (const [name, value] of Object.entries(headers))
      if (isLiteralSecret(name, value))
        throw new UsageError(
          `the header ${sanitizeLine(name)} holds a literal secret, which mcp-task does not store`,
          `export it and give its reference: --header ${shellValue(`${name}: ${schemeOf(value)}\${env:NAME}`)}`,
        );
    if (URL.canParse(url) && new URL(url).password)
      throw new UsageError(
        "the URL holds a password, which mcp-task does not store",
        "send it in a header instead: --header 'Authorization: Basic ${env:NAME}'",
      );
    return httpDescriptor(url, headers);
  }
  if (header) throw new UsageError("--header goes with --url");
  const { command, args } = parseCommandLine(stdio!);
  const environment = parseEnvPairs(env ?? []);
  for (const [key, value] of Object.entries(environment))
    if (isLiteralSecret(key, value))
      throw new UsageError(
        `--env ${sanitizeLine(key)} holds a literal secret, which mcp-task does not store`,
        `export it and give its reference: --env ${shellValue(`${key}=\${env:${/^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? key : "NAME"}}`)}`,
      );
  return {
    transport: "stdio",
    command,
    args,
    ...(Object.keys(environment).length ? { env: environment } : {}),
    ...(cwd ? { cwd } : {}),
  };
}

interface ClientFlags {
  url?: string;
  clientId?: string;
  clientSecret?: string;
  scope?: string;
  grant?: string;
  clientMetadataUrl?: string;
}

/** The pre-registered OAuth client of `server add`, or undefined when none is given. */
function clientSettings(flags: ClientFlags): OAuthClientSettings | undefined {
  const document = metadataUrl(flags);
  if (flags.clientId === undefined) {
    if (flags.clientSecret !== undefined || flags.grant !== undefined)
      throw new UsageError("--client-secret and --grant go with --client-id");
    if (flags.scope === undefined && document === undefined) return undefined;
    return { ...(flags.scope !== undefined ? { scope: flags.scope } : {}), ...document };
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
    ...document,
  };
}

/** --client-metadata-url: an https URL with a path (the SDK's rule for a URL-based client id). */
function metadataUrl(flags: ClientFlags): { clientMetadataUrl: string } | undefined {
  if (flags.clientMetadataUrl === undefined) return undefined;
  if (flags.url === undefined) throw new UsageError("--client-metadata-url goes with --url");
  let url: URL | undefined;
  try {
    url = new URL(flags.clientMetadataUrl);
  } catch {
    url = undefined;
  }
  if (url?.protocol !== "https:" || url.pathname === "/")
    throw new UsageError(
      `--client-metadata-url must be an https URL with a path: ${sanitizeLine(flags.clientMetadataUrl)}`,
      "for example --client-metadata-url https://example.com/mcp-task/client.json",
    );
  return { clientMetadataUrl: flags.clientMetadataUrl };
}

export async function runAddServer(options: AddServerOptions, ctx: Context): Promise<number> {
  const settings = await ctx.loadSettings();
  const printer = createPrinter(ctx.io, false);
  // Another server under the name is replaced only when asked (the same one again, a script run twice, is not).
  const saved = settings.server(options.name);
  const same =
    saved !== undefined &&
    isDeepStrictEqual(saved, options.descriptor) &&
    isDeepStrictEqual(settings.client(options.name), options.client);
  if (saved !== undefined && !same && !options.force)
    throw new UsageError(
      `a server named ${options.name} is saved already (${sanitizeLine(describeServer(saved))}); add --force to replace it`,
    );
  if (options.descriptor.transport === "http") {
    // A sign-in left for this URL by a server no longer saved (removed, or its name moved to another URL) is not
    // this server's: it signs in anew. One the person made for the URL itself (`login <url>`) is kept.
    const { forgetUnusedSignIn } = await import("../../auth/forget.js");
    const { forgot, adopted } = await forgetUnusedSignIn(ctx.home, settings.servers(), options.descriptor.url, {
      adoptByUrl: true,
    });
    if (forgot)
      printer.note(`forgot a sign-in left for ${sanitizeLine(options.descriptor.url)} by a server no longer saved`);
    if (adopted)
      printer.note(`${options.name} keeps the sign-in made for ${sanitizeLine(options.descriptor.url)} by its URL`);
  }
  // One write: the server, its OAuth client (or none) and the default; nothing if settings could not be read back.
  settings.saveServers([{ name: options.name, descriptor: options.descriptor, client: options.client }], options.name);
  printer.note(`saved server ${options.name}: ${describeServer(options.descriptor)}`);
  return 0;
}
