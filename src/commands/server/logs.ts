// `mcp-task server logs <name>`: what the brokers of a server wrote (their own lines and, for a stdio server, the
// server's stderr), running or gone: a crashed server's last words are here. Each broker's log, made safe.
import type { Command } from "commander";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import type { Context } from "../../context.js";
import { UsageError } from "../../errors.js";
import { MAX_BROKER_LOG_BYTES } from "../../limits.js";
import { createPrinter } from "../../output/printer.js";
import { parseCommandLine, type ServerDescriptor } from "../../protocol/server.js";
import { sanitize, sanitizeLine } from "../../sanitize.js";
import { readOwnTail } from "../../store/safe-fs.js";
import type { Leaf } from "../command.js";
import { jsonFlag, jsonOption, withOptions } from "../options.js";

export const serverLogs: Leaf<{ name: string; json: boolean }, [string]> = {
  declare: (parent: Command) =>
    withOptions(
      parent
        .command("logs")
        .summary("show what a server's brokers logged (a stdio server's stderr included), running or gone")
        .argument("<name>", "saved server name, or a stdio command line"),
      jsonOption("one JSON document: each broker's log"),
    ),
  parse: ([name], flags) => ({ name, json: jsonFlag(flags) }),
  run: (options, ctx) => runLogs(options, ctx),
};

export async function runLogs(options: { name: string; json: boolean }, ctx: Context): Promise<number> {
  const settings = await ctx.loadSettings();
  const descriptor: ServerDescriptor = settings.server(options.name) ?? {
    transport: "stdio",
    ...parseCommandLine(options.name),
  };
  const { brokerKey, brokerPaths } = await import("../../broker/paths.js");
  const key = brokerKey(descriptor);
  const dir = brokerPaths(ctx.home, key).dir;
  // The server's broker (stdio) and its sessions' keepers (V1 over HTTP): <key>.log and <key>-<session>.log.
  const logs = readdirSync(dir)
    .filter((file) => file.endsWith(".log") && (file === `${key}.log` || file.startsWith(`${key}-`)))
    .sort()
    .map((file) => ({ file: join(dir, file), text: readOwnTail(join(dir, file), MAX_BROKER_LOG_BYTES) }));
  if (logs.length === 0)
    throw new UsageError(
      `no broker has logged for ${sanitizeLine(options.name)}`,
      "a broker runs a stdio server's tasks (and a V1 HTTP session's): see them with mcp-task server ps",
    );
  createPrinter(ctx.io, options.json).document({ server: options.name, logs }, () =>
    logs.map(({ file, text }) => `==> ${sanitizeLine(file)} <==\n${sanitize(text).trimEnd()}`).join("\n"),
  );
  return 0;
}
