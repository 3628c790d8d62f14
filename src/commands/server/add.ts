// `mcp-task server add <name> (--url <url> | --stdio <command line>)`: save a server under a name.
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
import { collect, withOptions, type Flags } from "../options.js";
import { checkName } from "./names.js";

export interface AddServerOptions {
  name: string;
  descriptor: ServerDescriptor;
}

export const serverAdd: Leaf<AddServerOptions, [string]> = {
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
    ),
  parse: ([name], flags) => ({ name: checkName(name), descriptor: descriptorOf(flags) }),
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
    return httpDescriptor(url, parseHeaders(header ?? []));
  }
  if (header) throw new UsageError("--header goes with --url");
  const { command, args } = parseCommandLine(stdio!);
  const environment = parseEnvPairs(env ?? []);
  return {
    transport: "stdio",
    command,
    args,
    ...(Object.keys(environment).length ? { env: environment } : {}),
    ...(cwd ? { cwd } : {}),
  };
}

export async function runAddServer(options: AddServerOptions, ctx: Context): Promise<number> {
  const settings = await ctx.loadSettings();
  settings.saveServer(options.name, options.descriptor);
  if (!settings.defaultServer()) settings.setDefaultServer(options.name);
  createPrinter(ctx.io, false).note(`saved server ${options.name}: ${describeServer(options.descriptor)}`);
  return 0;
}
