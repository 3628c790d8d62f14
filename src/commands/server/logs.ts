// `mcp-task server logs <name>`: what the brokers of a server wrote (their own lines and, for a stdio server, the
// server's stderr), running or gone: a crashed server's last words are here. Each broker's log, made safe.
// `--wire`: instead, each broker's trace of its server connection (broker/trace-file.ts), as readable lines, or with
// --json as its NDJSON events.
import type { Command } from "commander";
import { Option } from "commander";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import type { Context } from "../../context.js";
import { UsageError } from "../../errors.js";
import { MAX_BROKER_LOG_BYTES, MAX_BROKER_TRACE_BYTES } from "../../limits.js";
import { createPrinter } from "../../output/printer.js";
import { parseCommandLine, type ServerDescriptor } from "../../protocol/server.js";
import { typedStdio } from "../resolve-server.js";
import { readable, type TraceEvent } from "../../protocol/trace.js";
import { safeJson, sanitize, sanitizeLine } from "../../sanitize.js";
import { readOwnTail } from "../../store/safe-fs.js";
import type { Leaf } from "../command.js";
import { jsonFlag, jsonOption, withOptions } from "../options.js";

interface LogsOptions {
  name: string;
  json: boolean;
  wire: boolean;
}

export const serverLogs: Leaf<LogsOptions, [string]> = {
  examples: ["mcp-task server logs everything", "mcp-task server logs everything --wire"],
  declare: (parent: Command) =>
    withOptions(
      parent
        .command("logs")
        .summary("show what a server's brokers logged (a stdio server's stderr included), running or gone")
        .argument("<name>", "saved server name, or a stdio command line"),
      new Option("--wire", "each broker's trace of its server connection instead (its last 256 KiB or more)"),
      jsonOption("one JSON document: each broker's log (with --wire: the trace's NDJSON events)"),
    ),
  parse: ([name], flags) => ({ name, json: jsonFlag(flags), wire: flags.wire === true }),
  run: (options, ctx) => runLogs(options, ctx),
};

/** The files of a server's brokers ending in `suffix`: its broker (stdio) and its sessions' keepers (V1 over HTTP). */
async function brokerFiles(options: LogsOptions, ctx: Context, suffix: string): Promise<string[]> {
  const settings = await ctx.loadSettings();
  const saved = settings.server(options.name);
  // A command line: as typed in this folder, or as a handle saved before lines kept their folder.
  const descriptors: ServerDescriptor[] = saved
    ? [saved]
    : [typedStdio(options.name, ctx), { transport: "stdio", ...parseCommandLine(options.name) }];
  // What its brokers wrote (logs, traces) is shown redacted of the server's secrets, a trace kept from before too.
  for (const descriptor of descriptors) await ctx.secrets.learn(descriptor);
  const { brokerKey, brokerPaths } = await import("../../broker/paths.js");
  const keys = [...new Set(descriptors.map(brokerKey))];
  const dir = brokerPaths(ctx.home, keys[0]!).dir;
  // <key>.log and <key>-<session>.log; <key>.trace.1 (the older part) before <key>.trace.
  const files = readdirSync(dir)
    .filter(
      (file) => file.endsWith(suffix) && keys.some((key) => file.startsWith(`${key}.`) || file.startsWith(`${key}-`)),
    )
    .filter((file) => !file.slice(0, -suffix.length).includes("."))
    .sort();
  if (files.length === 0)
    throw new UsageError(
      `no broker has ${suffix === ".log" ? "logged" : "traced its connection"} for ${sanitizeLine(options.name)}`,
      "a broker runs a stdio server's tasks (and a V1 HTTP session's): see them with mcp-task server ps",
    );
  return files.map((file) => join(dir, file));
}

export async function runLogs(options: LogsOptions, ctx: Context): Promise<number> {
  if (options.wire) return runWire(options, ctx);
  const logs = (await brokerFiles(options, ctx, ".log")).map((file) => ({
    file,
    text: readOwnTail(file, MAX_BROKER_LOG_BYTES),
  }));
  createPrinter(ctx.io, options.json).document({ server: options.name, logs }, () =>
    logs.map(({ file, text }) => `==> ${sanitizeLine(file)} <==\n${sanitize(text).trimEnd()}`).join("\n"),
  );
  return 0;
}

/** The events of one trace file and the part before it (a line cut by the rotation, or not one of ours, is skipped). */
function traceEvents(file: string): TraceEvent[] {
  const events: TraceEvent[] = [];
  for (const path of [`${file}.1`, file]) {
    let text: string;
    try {
      text = readOwnTail(path, MAX_BROKER_TRACE_BYTES * 2);
    } catch {
      continue; // no older part
    }
    for (const line of text.split("\n")) {
      try {
        const event = JSON.parse(line) as TraceEvent;
        if (typeof event?.t === "string" && typeof event.dir === "string") events.push(event);
      } catch {
        /* not a whole event */
      }
    }
  }
  return events;
}

async function runWire(options: LogsOptions, ctx: Context): Promise<number> {
  const files = await brokerFiles(options, ctx, ".trace");
  for (const file of files) {
    const events = traceEvents(file);
    if (options.json) {
      for (const event of events) ctx.io.stdout.write(`${safeJson(event)}\n`);
    } else {
      ctx.io.stdout.write(`==> ${sanitizeLine(file)} <==\n`);
      for (const event of events) ctx.io.stdout.write(`${readable(event)}\n`);
    }
  }
  return 0;
}
