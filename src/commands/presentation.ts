// How a waiting command shows progress and where its answers come from: the live Ink view on a terminal, status
// lines with answers from the flags elsewhere, a line prompt when a person is there but stdout is not a terminal.
import type { Context } from "../context.js";
import { createPrinter, type Printer } from "../output/printer.js";
import { preparedAnswers, type InputProvider } from "../tasks/input.js";
import { linePrompt } from "../ui/prompt.js";
import { withUrlOpening } from "../ui/url-open.js";
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
  options: { json: boolean; input?: Record<string, unknown>; decline: boolean; openUrl?: string[] },
): Promise<{ printer: Printer; provider: InputProvider; close(): void }> {
  // A trace on stderr would draw through the live view: status lines then.
  if (ctx.io.terminal && !options.json && options.input === undefined && !options.decline && ctx.trace !== "-") {
    const live = (await import("../ui/live.js")).liveFollow(ctx, ctx.io.terminal);
    const say = (text: string) => live.printer.note(text);
    return { ...live, provider: withUrlOpening(ctx, live.provider, { hosts: options.openUrl, person: true, say }) };
  }
  return {
    printer: createPrinter(ctx.io, options.json),
    provider: inputProvider(ctx, options.input, options.decline, options.openUrl),
    close: () => {},
  };
}

/** Where answers come from: --input / --decline, else a person at a terminal, else nowhere (exit 6). */
export function inputProvider(
  ctx: Context,
  input: Record<string, unknown> | undefined,
  decline: boolean,
  openUrl: readonly string[] = [],
): InputProvider {
  const person = input === undefined && !decline && ctx.io.interactive;
  const inner = person ? linePrompt(ctx.io) : preparedAnswers({ input, decline });
  // URL-mode elicitation: opened with a person's yes, or for a host named ahead (../ui/url-open.ts).
  const say = (text: string) => void ctx.io.stderr.write(`mcp-task: ${text}\n`);
  return withUrlOpening(ctx, inner, { hosts: openUrl, person, decline, say });
}

/** The answers the flags give, `--input`'s object read (from its file or stdin, where it names one). */
export async function readAnswers(
  flags: AnswerFlags,
  ctx: Context,
): Promise<{ input?: Record<string, unknown>; decline: boolean; openUrl: string[] }> {
  return {
    input: flags.input !== undefined ? await readJsonArg(flags.input, "--input", ctx) : undefined,
    decline: flags.decline,
    openUrl: flags.openUrl,
  };
}
