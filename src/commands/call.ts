// `mcp-task call <tool> [key=value]...`: start a tool call (as a task where the server allows) and follow it to
// its end, answering input from --input / --decline.
import type { Command } from "commander";
import type { Context } from "../context.js";
import { InterruptedError, StillRunningError, UsageError } from "../errors.js";
import { createPrinter } from "../output/printer.js";
import { preparedAnswers } from "../tasks/input.js";
import { linePrompt } from "../ui/prompt.js";
import { exitCodeOf, followTask } from "../tasks/run.js";
import { TaskEngine } from "../tasks/engine.js";
import { schemaProblem } from "../tasks/schema.js";
import { parseDuration, parseMilliseconds, parsePairs, readJsonObject, resolveServer, type ServerOptions } from "./common.js";

export interface CallOptions extends ServerOptions {
  tool: string;
  args: Record<string, unknown>;
  ttlMs?: number;
  task: "auto" | "never";
  input?: Record<string, unknown>;
  decline: boolean;
  timeoutMs?: number;
  json: boolean;
}

export function registerCall(program: Command, ctx: Context, run: (job: Promise<number>) => Promise<void>): void {
  program
    .command("call")
    .summary("call a tool, as a task where the server allows, and wait for its result")
    .description("Call a tool, as a task where the server allows, and wait for its result.")
    .addHelpText("after", "\nExample:\n  mcp-task call simulate-research-query topic=python ambiguous=true --input '{\"interpretation\":\"snake\"}'")
    .argument("<tool>", "tool name")
    .argument("[args...]", "arguments as key=value (values parsed as JSON when they parse)")
    .option("-s, --server <name|url>", "saved server name or http(s) URL")
    .option("--stdio <command line>", "run a stdio server for this call")
    .option("--args <json|@file|->", "arguments as a JSON object (key=value pairs override)")
    .option("--ttl <ms>", "ask the server to keep the task this long")
    .option("--no-task", "make a plain call, never a task")
    .option("--input <json|@file|->", "answer input requests with this object")
    .option("--decline", "decline input requests")
    .option("--timeout <duration>", "stop waiting after this long (the task keeps running); exit 7")
    .option("--json", "NDJSON events on stdout")
    .action((tool: string, pairs: string[], flags: Record<string, unknown>) =>
      run(
        (async () => {
          if (flags.input !== undefined && flags.decline) throw new UsageError("give either --input or --decline, not both");
          const options: CallOptions = {
            tool,
            server: flags.server as string | undefined,
            stdio: flags.stdio as string | undefined,
            args: { ...(flags.args ? await readJsonObject(flags.args as string, "--args", ctx) : {}), ...parsePairs(pairs) },
            ttlMs: flags.ttl !== undefined ? parseMilliseconds(flags.ttl as string, "--ttl") : undefined,
            task: flags.task === false ? "never" : "auto",
            input: flags.input !== undefined ? await readJsonObject(flags.input as string, "--input", ctx) : undefined,
            decline: Boolean(flags.decline),
            timeoutMs: flags.timeout !== undefined ? parseDuration(flags.timeout as string, "--timeout") : undefined,
            json: Boolean(flags.json),
          };
          return runCall(options, ctx);
        })(),
      ),
    );
}

export async function runCall(options: CallOptions, ctx: Context): Promise<number> {
  const printer = createPrinter(ctx.io, options.json);
  const server = resolveServer(options, ctx);
  const wire = await ctx.connect(server.descriptor, server.name);
  const stop = new AbortController();
  const onInterrupt = () => stop.abort(new InterruptedError("interrupted"));
  ctx.interrupt.addEventListener("abort", onInterrupt, { once: true });
  if (ctx.interrupt.aborted) onInterrupt();
  let taskId: string | null = null;
  const timer = options.timeoutMs !== undefined ? new AbortController() : undefined;
  if (timer) {
    void ctx.clock.sleep(options.timeoutMs!, timer.signal).then(() => {
      if (!timer.signal.aborted) stop.abort(new StillRunningError(`stopped waiting after ${options.timeoutMs} ms`));
    });
  }
  try {
    const given = options.input !== undefined || options.decline;
    // A person at a terminal is asked; anywhere else only answers given ahead of time count (exit 6 otherwise).
    const answers = !given && ctx.io.interactive ? linePrompt(ctx.io) : preparedAnswers({ input: options.input, decline: options.decline });
    const engine = new TaskEngine(wire, ctx.clock, answers);
    const tool = await engine.tool(options.tool);
    if (!tool) throw new UsageError(`${server.name} has no tool named ${options.tool}`, "list the tools with: mcp-task tools");
    const problem = schemaProblem(tool.inputSchema, options.args);
    if (problem) throw new UsageError(`the arguments do not fit ${options.tool}'s inputSchema: ${problem}`, "see the schema with: mcp-task tools");
    const started = await engine.call(options.tool, options.args, { task: options.task, ttlMs: options.ttlMs, signal: stop.signal });
    if (started.kind === "result") {
      printer.result(started.outcome);
      return exitCodeOf(started.outcome);
    }
    taskId = started.snapshot.taskId;
    const snapshot = started.snapshot;
    printer.task({
      taskId,
      server: server.name,
      tool: options.tool,
      generation: wire.generation,
      status: snapshot.status,
      ttlMs: snapshot.ttlMs,
      pollIntervalMs: snapshot.pollIntervalMs,
    });
    const outcome = await followTask(engine, snapshot, { tool: options.tool, printer, clock: ctx.clock, signal: stop.signal });
    return exitCodeOf(outcome);
  } catch (error) {
    throw withResumeHint(error, taskId, server.descriptor.transport === "stdio");
  } finally {
    timer?.abort();
    ctx.interrupt.removeEventListener("abort", onInterrupt);
    await wire.close();
  }
}

/** Stopping to wait never stops the task: say how to pick it up again. */
function withResumeHint(error: unknown, taskId: string | null, stdio: boolean): unknown {
  if (!taskId || !(error instanceof StillRunningError || error instanceof InterruptedError)) return error;
  const message = `${error.message}; task ${taskId} keeps running`;
  const hint = stdio
    ? "a stdio server stops with mcp-task, so this task cannot be resumed from another process yet"
    : `resume with: mcp-task watch ${taskId}`;
  return error instanceof StillRunningError ? new StillRunningError(message, hint, taskId) : new InterruptedError(message, hint, taskId);
}
