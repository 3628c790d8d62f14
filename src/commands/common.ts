// Parsing shared by the verbs: which server, tool arguments, JSON options, durations.
import { readFile } from "node:fs/promises";
import type { Context } from "../context.js";
import { InterruptedError, ServerError, StillRunningError, UsageError } from "../errors.js";
import { MAX_STDIN_BYTES } from "../limits.js";
import { httpDescriptor, parseCommandLine, type ServerDescriptor } from "../protocol/server.js";
import type { Wire } from "../protocol/wire.js";
import { createPrinter, type Printer } from "../output/printer.js";
import { TaskEngine } from "../tasks/engine.js";
import { preparedAnswers, withdrawnNote, type InputProvider } from "../tasks/input.js";
import { saveMoves, type TrackedTask } from "../tasks/tracker.js";
import { linePrompt } from "../ui/prompt.js";
import { shellWord } from "../output/sanitize.js";
import { formatDuration, parseDuration } from "../duration.js";
export { formatDuration, parseDuration };
export { followSettings } from "../tasks/run.js";
import { setOwn } from "../data.js";

export interface ServerOptions {
  server?: string;
  stdio?: string;
}

/** A saved task as named on the command line: an id or prefix, and the server when one id is saved for several. */
export interface TaskRef {
  id: string;
  server?: string;
}

/** The option of every command that takes a task id (`-s` names a server as `list` shows it, not a new one). */
export const PICK_SERVER = [
  "-s, --server <name>",
  "the task's server, as list shows it (when one id is saved for more than one)",
] as const;

export interface ResolvedServer {
  name: string;
  descriptor: ServerDescriptor;
}

/** `--stdio`, `-s <name|url>`, else the default server, else MCP_TASK_SERVER. */
export async function resolveServer(options: ServerOptions, ctx: Context): Promise<ResolvedServer> {
  if (options.stdio !== undefined) {
    if (options.server !== undefined) throw new UsageError("give either --server or --stdio, not both");
    const { command, args } = parseCommandLine(options.stdio);
    return { name: [command, ...args].join(" "), descriptor: { transport: "stdio", command, args } };
  }
  const settings = await ctx.loadSettings();
  const wanted = options.server ?? settings.defaultServer() ?? ctx.env.MCP_TASK_SERVER;
  if (!wanted) {
    throw new UsageError(
      "no server given",
      'pass -s <name|url> or --stdio "<command>", or set a default with: mcp-task server use <name>',
    );
  }
  if (/^https?:\/\//i.test(wanted)) return { name: wanted, descriptor: httpDescriptor(wanted) };
  const saved = settings.server(wanted);
  if (!saved) {
    const known = Object.keys(settings.servers());
    throw new UsageError(
      `unknown server: ${wanted}`,
      known.length ? `known servers: ${known.join(", ")}` : "add one with: mcp-task server add <name> --url <url>",
    );
  }
  return { name: wanted, descriptor: saved };
}

/** Reads `<json>`, `@file` or `-` (stdin) into a JSON object. */
export async function readJsonObject(value: string, what: string, ctx: Context): Promise<Record<string, unknown>> {
  let text = value;
  if (value === "-") text = await readAll(ctx.io.stdin, `${what} -`);
  else if (value.startsWith("@")) {
    try {
      text = await readFile(value.slice(1), "utf8");
    } catch (error) {
      throw new UsageError(
        `cannot read ${what} from ${value.slice(1)}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      );
    }
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new UsageError(
      `${what} is not valid JSON: ${(error as Error).message}`,
      `example: ${what === "--input" ? `--input '{"name":"Ada"}'` : `--args '{"n":3}'`}`,
    );
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed))
    throw new UsageError(`${what} must be a JSON object`);
  return parsed as Record<string, unknown>;
}

/** All of `stream` as text; past `limit` bytes (MAX_STDIN_BYTES) a usage error, without reading the rest. */
export async function readAll(stream: NodeJS.ReadableStream, what = "stdin", limit = MAX_STDIN_BYTES): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
    size += buffer.length;
    if (size > limit) {
      (stream as { destroy?: () => void }).destroy?.();
      throw new UsageError(
        `${what}: stdin is larger than ${Math.round(limit / 1024 / 1024)} MiB; mcp-task reads at most that much from stdin`,
      );
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks, size).toString("utf8");
}

/** `key=value` pairs; a value that parses as JSON is taken as JSON, else as a string. */
export function parsePairs(pairs: string[]): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  for (const pair of pairs) {
    const at = pair.indexOf("=");
    if (at <= 0)
      throw new UsageError(`not a key=value argument: ${pair}`, "write arguments as key=value, e.g. topic=python n=3");
    const raw = pair.slice(at + 1);
    let value: unknown = raw;
    try {
      value = JSON.parse(raw);
    } catch {
      /* a plain string */
    }
    setOwn(args, pair.slice(0, at), value); // `__proto__=1` is an argument like any other
  }
  return args;
}

export function parseMilliseconds(value: string, what: string): number {
  if (!/^\d+$/.test(value))
    throw new UsageError(`${what}: not a whole number of milliseconds: ${value}`, `example: ${what} 60000`);
  return Number(value);
}

/** Stop signals for a waiting command: Ctrl-C (exit 130) and --timeout (exit 7), both leaving the task running. */
export function waitSignal(ctx: Context, timeoutMs: number | undefined): { signal: AbortSignal; dispose: () => void } {
  const stop = new AbortController();
  const onInterrupt = () => stop.abort(new InterruptedError("interrupted"));
  ctx.interrupt.addEventListener("abort", onInterrupt, { once: true });
  if (ctx.interrupt.aborted) onInterrupt();
  const timer = new AbortController();
  if (timeoutMs !== undefined) {
    void ctx.clock.sleep(timeoutMs, timer.signal).then(() => {
      if (!timer.signal.aborted)
        stop.abort(new StillRunningError(`stopped waiting after ${formatDuration(timeoutMs)}`));
    });
  }
  return {
    signal: stop.signal,
    dispose: () => {
      timer.abort();
      ctx.interrupt.removeEventListener("abort", onInterrupt);
    },
  };
}

/** Stopping to wait never stops the task: say how to pick it up again. */
export function withResumeHint(error: unknown, taskId: string | null): unknown {
  if (taskId && error instanceof ServerError && error.taskId === null) {
    // The server failed (or misbehaved) after the task was created: the error names it, and the handle is saved.
    error.taskId = taskId;
    error.hint ??= `the task is saved; follow it again with: mcp-task watch ${shellWord(taskId)}`;
    return error;
  }
  if (!taskId || !(error instanceof StillRunningError || error instanceof InterruptedError)) return error;
  const message = `${error.message}; task ${taskId} keeps running`;
  const hint = `resume with: mcp-task watch ${shellWord(taskId)}`;
  return error instanceof StillRunningError
    ? new StillRunningError(message, hint, taskId)
    : new InterruptedError(message, hint, taskId);
}

/**
 * How a waiting command shows progress and gets answers: on a terminal (and not --json, no answers given) the
 * live Ink view with its input form; else status lines with answers from the flags, or a line prompt when a
 * person is there but stdout is not a terminal.
 */
export async function presentation(
  ctx: Context,
  options: { json: boolean; input?: Record<string, unknown>; decline: boolean },
): Promise<{ printer: Printer; provider: InputProvider; close(): void }> {
  if (ctx.io.terminal && !options.json && options.input === undefined && !options.decline) {
    return (await import("../ui/live.js")).liveFollow(ctx, ctx.io.terminal);
  }
  return {
    printer: createPrinter(ctx.io, options.json),
    provider: inputProvider(ctx, options.input, options.decline),
    close: () => {},
  };
}

/** Where answers come from: --input / --decline, else a person at a terminal, else nowhere (exit 6). */
export function inputProvider(
  ctx: Context,
  input: Record<string, unknown> | undefined,
  decline: boolean,
): InputProvider {
  if (input === undefined && !decline && ctx.io.interactive) return linePrompt(ctx.io);
  return preparedAnswers({ input, decline });
}

/**
 * Reconnects to an opened task's server (its V1 session, where it has one). `note` hears, in a line for the user,
 * when the task is found in a new session (the server forgot the old one) and the handle moves to it.
 */
export async function reconnect(
  tracked: TrackedTask,
  ctx: Context,
  input: InputProvider,
  note?: (text: string) => void,
): Promise<{ wire: Wire; engine: TaskEngine }> {
  const { server, resume } = tracked.handle;
  let wire: Wire;
  try {
    wire = await ctx.connect(server.descriptor, server.name, { resume });
  } catch (error) {
    // A stdio task whose broker (and so its server) is gone, and whose outcome the broker did not write, is lost:
    // record it on the handle. (A broker writes the outcome of every task it held before it leaves.)
    if (server.descriptor.transport === "stdio" && error instanceof ServerError && !tracked.handle.outcome)
      await tracked.markGone(error.message).catch(() => {});
    throw error;
  }
  saveMoves(wire, (taskId) => (taskId === tracked.taskId ? tracked : undefined), note);
  wire.onQuestionWithdrawn = (_taskId, request) => note?.(withdrawnNote(request));
  return { wire, engine: new TaskEngine(wire, ctx.clock, input) };
}

/** The shared flags of the commands that wait for an answer. */
export async function answerFlags(
  flags: Record<string, unknown>,
  ctx: Context,
): Promise<{ input?: Record<string, unknown>; decline: boolean }> {
  if (flags.input !== undefined && flags.decline) throw new UsageError("give either --input or --decline, not both");
  return {
    input: flags.input !== undefined ? await readJsonObject(flags.input as string, "--input", ctx) : undefined,
    decline: Boolean(flags.decline),
  };
}
