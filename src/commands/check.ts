// `mcp-task check`: is this task server right? The checks of src/tasks/check.ts against a server, as lines, one
// JSON document, or a JUnit file for CI (`--junit FILE`); a failed or warned check names the spec section it enforces.
// Exit 1 when a check fails or no task was created (nothing was checked); warnings and skips pass. A --tool the
// server does not list, or --args that do not fit it, is a usage error (exit 2). With --junit, a check that cannot
// run (the server unreachable: exit 4) still writes a report.
import { Option, type Command } from "commander";
import type { Context } from "../context.js";
import { ExitCode, UsageError, describeError } from "../errors.js";
import { junitReport } from "../output/junit.js";
import { createPrinter } from "../output/printer.js";
import { sanitizeLine } from "../sanitize.js";
import { writeNamedFile } from "../store/named-files.js";
import { checkServer, taskCreated, type CheckResult } from "../tasks/check.js";
import { TaskEngine } from "../tasks/engine.js";
import { checkedTool, toolsCommand } from "../tasks/tool-check.js";
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
  examples: [
    "mcp-task check -s http://127.0.0.1:3000/mcp",
    'mcp-task check --stdio "node server.js" --junit check.xml',
  ],
  declare: (parent: Command) =>
    withOptions(
      parent
        .command("check")
        .summary("check a task server: tasks created, read, followed, ended, cancelled, unknown ids refused"),
      ...serverOptions(),
      new Option(
        "--tool <name>",
        "the tool to run as a task (default: task tools whose required arguments the schema can fill, in turn)",
      ),
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
  let serverName = options.stdio ?? options.server ?? "server";
  try {
    const args = options.args ? await readJsonArg(options.args, "--args", ctx) : undefined;
    const server = await resolveServer(options, ctx);
    serverName = server.name;
    const wire = await ctx.connect(server.descriptor, server.name);
    let results: CheckResult[];
    try {
      const engine = new TaskEngine(wire, ctx.clock, undefined, ctx.random);
      if (options.tool !== undefined) await namedTool(engine, options, server, args);
      const run = { tool: options.tool, args, timeoutMs: options.timeoutMs, clock: ctx.clock, signal: ctx.interrupt };
      results = await checkServer(engine, run);
    } finally {
      await wire.close();
    }
    return report(
      options,
      ctx,
      { name: server.name, generation: wire.capabilities.generation, protocol: wire.capabilities.protocolVersion },
      results,
    );
  } catch (error) {
    // A check that could not run still leaves a report for CI to read: one errored case naming the cause.
    if (options.junit && !(error instanceof ReportNotWritten)) {
      const { code, message } = describeError(error);
      writeJunit(options.junit, junitReport(serverName, [], { kind: "error", name: "check", message, type: code }));
    }
    throw error;
  }
}

/**
 * The tool --tool names, checked before any check runs: one the server does not list, one that never runs as a task
 * or arguments that do not fit its inputSchema are the user's to fix (exit 2, as `call` refuses them), not a
 * failed check of the server.
 */
async function namedTool(
  engine: TaskEngine,
  options: CheckOptions,
  server: { name: string; option: string },
  args: Record<string, unknown> | undefined,
): Promise<void> {
  const named = { name: sanitizeLine(server.name), option: server.option };
  const { tool } = await checkedTool(engine, named, options.tool!, args ?? {}, () => {});
  if (tool.taskSupport === "forbidden")
    throw new UsageError(
      `${sanitizeLine(tool.name)} does not run as a task`,
      `see the task tools with: ${toolsCommand(server.option)}`,
    );
}

/** Thrown when the JUnit file cannot be written: no second attempt at it. */
class ReportNotWritten extends UsageError {}

/** The report goes only to a regular file (a FIFO waited for a reader for ever): src/store/named-files.ts. */
function writeJunit(file: string, xml: string): void {
  writeNamedFile(file, xml, (why) => new ReportNotWritten(`cannot write ${sanitizeLine(file)}: ${why}`));
}

const NOTHING_CHECKED = "nothing was checked: no task was created";
const NAME_A_TOOL = "name a tool that runs as a task with: --tool NAME --args JSON";

function report(
  options: CheckOptions,
  ctx: Context,
  server: { name: string; generation: string; protocol: string },
  results: CheckResult[],
): number {
  const created = taskCreated(results);
  const nothing = created ? undefined : { kind: "failure" as const, name: "nothing-checked", message: NOTHING_CHECKED };
  if (options.junit) writeJunit(options.junit, junitReport(server.name, results, nothing));
  const failed = results.filter((r) => r.status === "fail").length;
  createPrinter(ctx.io, options.json).document(
    { server: server.name, generation: server.generation, protocolVersion: server.protocol, created, checks: results },
    () =>
      [
        `${sanitizeLine(server.name)}: ${server.generation.toUpperCase()} (protocol ${sanitizeLine(server.protocol)})`,
        ...results.map(
          (r) =>
            `  ${MARK[r.status]}  ${r.title}: ${sanitizeLine(r.detail)}` +
            (r.spec && (r.status === "fail" || r.status === "warn") ? `\n        spec: ${r.spec}` : ""),
        ),
        failed
          ? `${failed} of ${results.length} checks failed`
          : created
            ? `no check failed (${results.length} checks)`
            : "",
        ...(created ? [] : [`${NOTHING_CHECKED}; ${NAME_A_TOOL}`]),
      ]
        .filter(Boolean)
        .join("\n"),
  );
  return failed || !created ? ExitCode.failed : ExitCode.ok;
}
