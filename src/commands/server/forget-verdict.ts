// `mcp-task server forget-verdict`: forget which generation a server was found to speak (its cached verdict), so that
// the next command asks the server again. Verdicts are checked on their own (connect.ts: a discover result's ttlMs, a
// day for a legacy one, and once on a request that says the server changed); this is the way to do it at once.
import type { Command } from "commander";
import type { Context } from "../../context.js";
import type { Leaf } from "../command.js";
import { createPrinter } from "../../output/printer.js";
import { descriptorKey } from "../../protocol/server.js";
import { sanitizeLine } from "../../sanitize.js";
import { resolveServer } from "../resolve-server.js";
import { serverFlags, serverOptions, withOptions, type ServerFlags } from "../options.js";

export const serverForgetVerdict: Leaf<ServerFlags, []> = {
  examples: ["mcp-task server forget-verdict -s everything"],
  declare: (parent: Command) =>
    withOptions(
      parent
        .command("forget-verdict")
        .summary("forget which generation a server speaks; the next command asks it again")
        .description(
          "Forget which MCP generation (2025-11-25 or 2026-07-28) a server was found to speak, so that the next " +
            "command negotiates afresh. A saved server given no -s or --stdio: the default server.",
        ),
      ...serverOptions("a stdio server, by its command line (run in this folder)"),
    ),
  parse: (_args, flags) => serverFlags(flags),
  run: (options, ctx) => runForgetVerdict(options, ctx),
};

export async function runForgetVerdict(options: ServerFlags, ctx: Context): Promise<number> {
  const server = await resolveServer(options, ctx);
  const settings = await ctx.loadSettings();
  const forgot = settings.forgetVerdict(descriptorKey(server.descriptor));
  createPrinter(ctx.io, false).note(
    forgot
      ? `forgot the generation of ${sanitizeLine(server.name)}; the next command asks the server again`
      : `no generation was kept for ${sanitizeLine(server.name)}; the next command asks the server`,
  );
  return 0;
}
