// `mcp-task server list`: the saved servers, the default one starred.
import type { Command } from "commander";
import type { Context } from "../../context.js";
import type { Leaf } from "../command.js";
import { createPrinter } from "../../output/printer.js";
import { sanitizeLine } from "../../sanitize.js";
import { describeServer } from "../../protocol/server.js";
import { JSON_DOCUMENT, jsonFlag, jsonOption, withOptions } from "../options.js";

export const serverList: Leaf<{ json: boolean }, []> = {
  examples: ["mcp-task server list", "mcp-task server list --json"],
  declare: (parent: Command) =>
    withOptions(parent.command("list").summary("list saved servers"), jsonOption(JSON_DOCUMENT)),
  parse: (_args, flags) => ({ json: jsonFlag(flags) }),
  run: (options, ctx) => runListServers(options, ctx),
};

export async function runListServers(options: { json: boolean }, ctx: Context): Promise<number> {
  const settings = await ctx.loadSettings();
  const servers = settings.servers();
  const current = settings.defaultServer();
  // A literal credential an older version saved (it took `--header "Authorization: Bearer …"`) is printed as its
  // reference, [secret]: what the process redacts from every write (src/secrets.ts).
  await ctx.secrets.learnSaved();
  createPrinter(ctx.io, options.json).document({ defaultServer: current ?? null, servers }, () =>
    Object.entries(servers)
      .map(([name, d]) => `${name === current ? "*" : " "} ${name}  ${d.transport}  ${sanitizeLine(describeServer(d))}`)
      .join("\n"),
  );
  return 0;
}
