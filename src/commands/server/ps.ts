// `mcp-task server ps`: the running brokers that keep stdio servers alive between commands.
import type { Command } from "commander";
import type { Context } from "../../context.js";
import type { Leaf } from "../command.js";
import { createPrinter } from "../../output/printer.js";
import { sanitizeLine } from "../../sanitize.js";
import { JSON_DOCUMENT, jsonFlag, jsonOption, withOptions } from "../options.js";

export const serverPs: Leaf<{ json: boolean }, []> = {
  examples: ["mcp-task server ps"],
  declare: (parent: Command) =>
    withOptions(
      parent.command("ps").summary("list the running brokers that keep stdio servers alive between commands"),
      jsonOption(JSON_DOCUMENT),
    ),
  parse: (_args, flags) => ({ json: jsonFlag(flags) }),
  run: (options, ctx) => runPs(options, ctx),
};

export async function runPs(options: { json: boolean }, ctx: Context): Promise<number> {
  const { listBrokers } = await import("../../broker/client.js");
  const brokers = await listBrokers(ctx.home);
  createPrinter(ctx.io, options.json).document(
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
}
