// How a waiting command shows progress and where its answers come from: the live Ink view on a terminal, status
// lines with answers from the flags elsewhere, a line prompt when a person is there but stdout is not a terminal.
import type { Context } from "../context.js";
import { MAX_LOG_LINES } from "../limits.js";
import { createPrinter, type Printer } from "../output/printer.js";
import { atLeast, type LogLevel } from "../protocol/logging.js";
import type { Wire } from "../protocol/wire.js";
import { preparedAnswers, type InputProvider } from "../tasks/input.js";
import { HUMAN_MODEL, type SamplingReply } from "../tasks/sampling.js";
import { linePrompt } from "../ask/line-prompt.js";
import { withUrlOpening } from "../ask/url-open.js";
import { readJsonArg, readTextArg } from "./args.js";
import type { AnswerFlags } from "./options.js";

/**
 * How a waiting command shows progress and gets answers: on a terminal (and not --json, no answers given, no trace on
 * stderr) the live Ink view with its input form; else status lines with answers from the flags, or a line prompt
 * when a person is there but stdout is not a terminal. URL-mode pages are opened with a person's yes, or for a host
 * named ahead (../ask/url-open.ts).
 */
export async function presentation(
  ctx: Context,
  options: Answers & { json: boolean },
): Promise<{ printer: Printer; provider: InputProvider; close(): void }> {
  // A trace on stderr would draw through the live view: status lines then.
  if (ctx.io.terminal && !options.json && !givenAhead(options) && ctx.trace !== "-") {
    const live = (await import("../ui/live.js")).liveFollow(ctx, ctx.io.terminal);
    const say = (text: string) => live.printer.note(text);
    return { ...live, provider: withUrlOpening(ctx, live.provider, { hosts: options.openUrl, person: true, say }) };
  }
  return { printer: createPrinter(ctx.io, options.json), provider: inputProvider(ctx, options), close: () => {} };
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
  let shown = 0;
  wire.on("log", (log) => {
    if (!atLeast(log.level, threshold) || shown > MAX_LOG_LINES) return;
    if (++shown > MAX_LOG_LINES)
      printer.note(`the server sends more than ${MAX_LOG_LINES} log messages; the rest are not shown`);
    else printer.log(taskId(), log, new Date(ctx.clock.now()));
  });
  // Not being able to choose the level is no reason to fail the command: the levels are filtered here anyway.
  if (options.logLevel) await wire.setLogLevel?.(options.logLevel).catch(() => false);
}

/** The level from which a command shows the server's log messages in text when no --log-level is given. */
export const DEFAULT_LOG_LEVEL: LogLevel = "warning";

/** The answers the flags give: `--input`'s object, `--decline`, the sampling reply, the hosts of `--open-url`. */
export interface Answers {
  input?: Record<string, unknown>;
  decline: boolean;
  sampling?: SamplingReply;
  openUrl?: readonly string[];
}

const givenAhead = (answers: Answers) =>
  answers.input !== undefined || answers.decline || answers.sampling !== undefined;

/** Where answers come from: --input / --decline / --sampling-reply, else a person at a terminal, else nowhere (exit 6). */
export function inputProvider(ctx: Context, answers: Answers): InputProvider {
  const person = !givenAhead(answers) && ctx.io.interactive;
  const inner = person ? linePrompt(ctx.io) : preparedAnswers(answers);
  const say = (text: string) => void ctx.io.stderr.write(`mcp-task: ${text}\n`);
  return withUrlOpening(ctx, inner, { hosts: answers.openUrl, person, decline: answers.decline, say });
}

/** True when this command can answer a sampling request itself: a reply given ahead, or a person to ask. */
export function servesSampling(ctx: Context, answers: Answers): boolean {
  return answers.sampling !== undefined || (!givenAhead(answers) && ctx.io.interactive);
}

/** The answers the flags give, `--input`'s object and the sampling reply read (from a file or stdin where named). */
export async function readAnswers(flags: AnswerFlags, ctx: Context): Promise<Answers> {
  return {
    input: flags.input !== undefined ? await readJsonArg(flags.input, "--input", ctx) : undefined,
    decline: flags.decline,
    openUrl: flags.openUrl,
    ...(flags.samplingReply !== undefined && {
      sampling: {
        text: await readTextArg(flags.samplingReply, "--sampling-reply", ctx),
        model: flags.samplingModel ?? HUMAN_MODEL,
      },
    }),
  };
}
