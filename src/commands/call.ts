// `mcp-task call <tool> [key=value]...`: start a tool call (as a task where the server allows), save its handle
// at once, and follow it to its end (or hand back the id with --detach).
import type { Command } from "commander";
import type { Context } from "../context.js";
import type { Run } from "./run.js";
import { UsageError } from "../errors.js";
import { createPrinter } from "../output/printer.js";
import { sanitizeLine } from "../output/sanitize.js";
import { descriptorKey } from "../protocol/server.js";
import { TaskEngine } from "../tasks/engine.js";
import { exitCodeOf, followTask, printerHooks } from "../tasks/run.js";
import { saveMoves } from "../tasks/tracker.js";
import { schemaProblem } from "../tasks/schema.js";
import { noAnswers, withdrawnNote } from "../tasks/input.js";
import {
  answerFlags,
  inputProvider,
  parseDuration,
  parseMilliseconds,
  parsePairs,
  presentation,
  readJsonObject,
  resolveServer,
  waitSignal,
  withResumeHint,
  type ServerOptions,
  followSettings,
} from "./common.js";

export interface CallOptions extends ServerOptions {
  tool: string;
  args: Record<string, unknown>;
  ttlMs?: number;
  task: "auto" | "never";
  detach: boolean;
  input?: Record<string, unknown>;
  decline: boolean;
  timeoutMs?: number;
  json: boolean;
}

export function registerCall(program: Command, ctx: Context, run: Run): void {
  program
    .command("call")
    .summary("call a tool, as a task where the server allows, and wait for its result")
    .description("Call a tool, as a task where the server allows, and wait for its result.")
    .addHelpText(
      "after",
      '\nExample:\n  mcp-task call simulate-research-query topic=python ambiguous=true --input \'{"interpretation":"snake"}\'',
    )
    .argument("<tool>", "tool name")
    .argument("[args...]", "arguments as key=value (values parsed as JSON when they parse)")
    .option("-s, --server <name|url>", "saved server name or http(s) URL")
    .option("--stdio <command line>", "run a stdio server for this call")
    .option("--args <json|@file|->", "arguments as a JSON object (key=value pairs override)")
    .option("--detach", "print the task id and return at once; follow it later with watch")
    .option("--ttl <ms>", "ask the server to keep the task this long")
    .option("--no-task", "make a plain call, never a task")
    .option("--input <json|@file|->", "answer input requests with this object")
    .option("--decline", "decline input requests")
    .option("--timeout <duration>", "stop waiting after this long (the task keeps running); exit 7")
    .option("--json", "NDJSON events on stdout")
    .action((tool: string, pairs: string[], flags: Record<string, unknown>) =>
      run(async () => {
        const answers = await answerFlags(flags, ctx);
        const options: CallOptions = {
          tool,
          server: flags.server as string | undefined,
          stdio: flags.stdio as string | undefined,
          args: {
            ...(flags.args ? await readJsonObject(flags.args as string, "--args", ctx) : {}),
            ...parsePairs(pairs),
          },
          ttlMs: flags.ttl !== undefined ? parseMilliseconds(flags.ttl as string, "--ttl") : undefined,
          task: flags.task === false ? "never" : "auto",
          detach: Boolean(flags.detach),
          ...answers,
          timeoutMs: flags.timeout !== undefined ? parseDuration(flags.timeout as string, "--timeout") : undefined,
          json: Boolean(flags.json),
        };
        return runCall(options, ctx);
      }),
    );
}

export async function runCall(options: CallOptions, ctx: Context): Promise<number> {
  const server = await resolveServer(options, ctx);
  // A call that may become a task runs, on stdio, through the server's broker: the task outlives this command
  // (--detach, Ctrl-C, --timeout). A call that cannot (--no-task, or a tool the server listed as never running
  // as a task) talks to the server directly, which is much cheaper.
  const key = descriptorKey(server.descriptor);
  const settings = await ctx.loadSettings();
  const known = settings.taskSupport(key)?.[options.tool];
  const wire = await ctx.connect(server.descriptor, server.name, {
    outlive: options.task !== "never" && known !== "forbidden",
  });
  const wait = waitSignal(ctx, options.timeoutMs);
  let taskId: string | null = null;
  // --detach never answers a task's question: it stays for a later respond, watch or the dashboard.
  const { printer, provider, close } = options.detach
    ? {
        printer: createPrinter(ctx.io, options.json),
        provider: noAnswers(inputProvider(ctx, options.input, options.decline)),
        close: () => {},
      }
    : await presentation(ctx, options);
  wire.onQuestionWithdrawn = (_taskId, request) => printer.note(withdrawnNote(request));
  try {
    const engine = new TaskEngine(wire, ctx.clock, provider);
    const tools = await engine.listTools();
    settings.saveTaskSupport(key, Object.fromEntries(tools.map((t) => [t.name, t.taskSupport])));
    const tool = tools.find((t) => t.name === options.tool);
    if (!tool)
      throw new UsageError(`${server.name} has no tool named ${options.tool}`, "list the tools with: mcp-task tools");
    const problem = await schemaProblem(tool.inputSchema, options.args, `tool ${options.tool}'s inputSchema`);
    if (problem)
      throw new UsageError(
        `the arguments do not fit ${options.tool}'s inputSchema: ${problem}`,
        "see the schema with: mcp-task tools",
      );
    const started = await engine.call(options.tool, options.args, {
      task: options.task,
      ttlMs: options.ttlMs,
      signal: wait.signal,
    });
    if (started.kind === "result") {
      printer.result(started.outcome);
      return exitCodeOf(started.outcome);
    }
    const first = started.snapshot;
    taskId = first.taskId;
    // The handle first: whatever fails next, the task can be found again.
    const tracked = await ctx.tracker.start(server, wire, options.tool, options.args, first);
    saveMoves(
      wire,
      (id) => (id === tracked.taskId ? tracked : undefined),
      (text) => printer.note(text),
    );
    printer.task({
      taskId,
      server: server.name,
      tool: options.tool,
      generation: wire.generation,
      status: first.status,
      ttlMs: first.ttlMs,
      pollIntervalMs: first.pollIntervalMs,
    });
    if (options.detach) {
      if (!options.json) ctx.io.stdout.write(`${sanitizeLine(taskId)}\n`); // as shown everywhere; `watch` finds it by this too
      return 0;
    }
    const { outcome } = await followTask(engine, tracked, first, {
      clock: ctx.clock,
      signal: wait.signal,
      settings: followSettings(ctx),
      hooks: printerHooks(printer, ctx.clock),
    });
    return exitCodeOf(outcome!);
  } catch (error) {
    throw withResumeHint(error, taskId);
  } finally {
    close();
    wait.dispose();
    await wire.close();
  }
}
