// How a waiting command shows progress and where its answers come from: the live Ink view on a terminal, status
// lines with answers from the flags elsewhere, a line prompt when a person is there but stdout is not a terminal.
import type { Context } from "../context.js";
import { createPrinter, type Printer } from "../output/printer.js";
import { atLeast, type LogLevel } from "../protocol/logging.js";
import type { Wire } from "../protocol/wire.js";
import { preparedAnswers, type InputProvider } from "../tasks/input.js";
import { linePrompt } from "../ui/prompt.js";
import { readJsonArg } from "./args.js";
import type { AnswerFlags } from "./options.js";

/**
 * How a waiting command shows progress and gets answers: on a terminal (and not --json, no answers given, no trace on
 * stderr) the
 * live Ink view with its input form; else status lines with answers from the flags, or a line prompt when a
 * person is there but stdout is not a terminal.
 */
export async function presentation(
  ctx: Context,
  options: { json: boolean; input?: Record<string, unknown>; decline: boolean },
): Promise<{ printer: Printer; provider: InputProvider; close(): void }> {
  // A trace on stderr would draw through the live view: status lines then.
  if (ctx.io.terminal && !options.json && options.input === undefined && !options.decline && ctx.trace !== "-") {
    return (await import("../ui/live.js")).liveFollow(ctx, ctx.io.terminal);
  }
  return {
    printer: createPrinter(ctx.io, options.json),
    provider: inputProvider(ctx, options.input, options.decline),
    close: () => {},
  };
}

/**
 * The server's log messages while a command follows a task: in text those at or above `logLevel` (default
 * warning), as NDJSON every one (or those at or above the level given). With a level given, the server is asked
 * to send from that level up (`logging/setLevel`, where it declares logging).
 */
export async function showLogs(
  ctx: Context,
  wire: Wire,
  printer: Printer,
  options: { json: boolean; logLevel?: LogLevel },
  taskId: () => string | null,
): Promise<void> {
  const threshold = options.logLevel ?? (options.json ? "debug" : DEFAULT_LOG_LEVEL);
  wire.onLog = (log) => {
    if (atLeast(log.level, threshold)) printer.log(taskId(), log, new Date(ctx.clock.now()));
  };
  // Not being able to choose the level is no reason to fail the command: the levels are filtered here anyway.
  if (options.logLevel) await wire.setLogLevel?.(options.logLevel).catch(() => false);
}

/** The level from which a command shows the server's log messages in text when no --log-level is given. */
export const DEFAULT_LOG_LEVEL: LogLevel = "warning";

/** Where answers come from: --input / --decline, else a person at a terminal, else nowhere (exit 6). */
export function inputProvider(
  ctx: Context,
  input: Record<string, unknown> | undefined,
  decline: boolean,
): InputProvider {
  if (input === undefined && !decline && ctx.io.interactive) return linePrompt(ctx.io);
  return preparedAnswers({ input, decline });
}

/** The answers the flags give, `--input`'s object read (from its file or stdin, where it names one). */
export async function readAnswers(
  flags: AnswerFlags,
  ctx: Context,
): Promise<{ input?: Record<string, unknown>; decline: boolean }> {
  return {
    input: flags.input !== undefined ? await readJsonArg(flags.input, "--input", ctx) : undefined,
    decline: flags.decline,
  };
}
