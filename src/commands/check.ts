// `mcp-task check`: is this task server right? The checks of src/tasks/check.ts against a server, as lines, one
// JSON document, or a JUnit file for CI (`--junit FILE`); a failed or warned check names the spec section it enforces.
// Exit 1 when a check fails; warnings and skips pass.
import { writeFileSync } from "node:fs";
import { Option, type Command } from "commander";
import type { Context } from "../context.js";
import { ExitCode, UsageError } from "../errors.js";
import { junitReport } from "../output/junit.js";
import { createPrinter } from "../output/printer.js";
import { sanitizeLine } from "../sanitize.js";
import { checkServer, type CheckResult } from "../tasks/check.js";
import { TaskEngine } from "../tasks/engine.js";
import { jsonObjectArg, readJsonArg, type JsonObjectArg } from "./args.js";
import type { Leaf } from "./command.js";
import {
  JSON_DOCUMENT,
  jsonFlag,
  jsonOption,
  serverFlags,
  serverOptions,
  timeoutFlag,
  withOptions,
  type ServerFlags,
} from "./options.js";
import { resolveServer } from "./resolve-server.js";

export interface CheckOptions extends ServerFlags {
  tool?: string;
  args?: JsonObjectArg;
  timeoutMs: number;
  junit?: string;
  json: boolean;
}

/** How long a checked task may take to end, unless --timeout says. */
const CHECK_TIMEOUT_MS = 60_000;

const MARK: Record<CheckResult["status"], string> = { pass: "ok  ", fail: "FAIL", warn: "warn", skip: "skip" };

export const check: Leaf<CheckOptions, []> = {
  declare: (parent: Command) =>
    withOptions(
      parent
        .command("check")
        .summary("check a task server: tasks created, read, followed, ended, cancelled, unknown ids refused"),
      ...serverOptions(),
      new Option("--tool <name>", "the tool to run as a task (default: the first task tool that needs no arguments)"),
      new Option("--args <json>", "its arguments: a JSON object, @file or - for stdin"),
      new Option("--timeout <duration>", "how long a task may take to end (default 60s)"),
      new Option("--junit <file>", "also write the checks as a JUnit XML report"),
      jsonOption(JSON_DOCUMENT),
    ),
  parse: (_args, flags) => ({
    ...serverFlags(flags),
    tool: flags.tool as string | undefined,
    args: flags.args !== undefined ? jsonObjectArg(flags.args as string, "--args") : undefined,
    timeoutMs: timeoutFlag(flags) ?? CHECK_TIMEOUT_MS,
    junit: flags.junit as string | undefined,
    json: jsonFlag(flags),
  }),
  run: (options, ctx) => runCheck(options, ctx),
};

export async function runCheck(options: CheckOptions, ctx: Context): Promise<number> {
  const args = options.args ? await readJsonArg(options.args, "--args", ctx) : undefined;
  const server = await resolveServer(options, ctx);
  const wire = await ctx.connect(server.descriptor, server.name);
  let results: CheckResult[];
  try {
    results = await checkServer(new TaskEngine(wire, ctx.clock), {
      tool: options.tool,
      args,
      timeoutMs: options.timeoutMs,
      clock: ctx.clock,
      signal: ctx.interrupt,
    });
  } finally {
    await wire.close();
  }
  if (options.junit) {
    try {
      writeFileSync(options.junit, junitReport(server.name, results));
    } catch (error) {
      throw new UsageError(
        `cannot write ${sanitizeLine(options.junit)}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      );
    }
  }
  const failed = results.filter((r) => r.status === "fail").length;
  createPrinter(ctx.io, options.json).document(
    { server: server.name, generation: wire.generation, protocolVersion: wire.protocolVersion, checks: results },
    () =>
      [
        `${sanitizeLine(server.name)}: ${wire.generation.toUpperCase()} (protocol ${sanitizeLine(wire.protocolVersion)})`,
        ...results.map(
          (r) =>
            `  ${MARK[r.status]}  ${r.title}: ${sanitizeLine(r.detail)}` +
            (r.spec && (r.status === "fail" || r.status === "warn") ? `\n        spec: ${r.spec}` : ""),
        ),
        failed ? `${failed} of ${results.length} checks failed` : `no check failed (${results.length} checks)`,
      ].join("\n"),
  );
  return failed ? ExitCode.failed : ExitCode.ok;
}
