// The option sets several commands share, declared once: which server, which saved task's server, the answers to a
// task's questions, how long to wait, JSON output. Each set comes with the function that reads it from commander's
// parsed values (pure; a bad value is a UsageError). A command applies a set with `withOptions`.
import { LOG_LEVELS, isLogLevel, type LogLevel } from "../protocol/logging.js";
import { Argument, Option, type Command } from "commander";
import { UsageError } from "../errors.js";
import { parseDuration } from "../duration.js";
import { jsonObjectArg, type JsonObjectArg } from "./args.js";

/** commander's parsed option values, as a command's parse function receives them. */
export type Flags = Record<string, unknown>;

/** Adds `options` to `command`, in order (the order `--help` shows them in). */
export function withOptions(command: Command, ...options: Option[]): Command {
  for (const option of options) command.addOption(option);
  return command;
}

/** A repeatable option's values, in the order given. */
export const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

// --- which server: a saved name, an http(s) URL, or a stdio command line ---

export interface ServerFlags {
  server?: string;
  stdio?: string;
}

export const serverOption = (description = "saved server name or http(s) URL"): Option =>
  new Option("-s, --server <name|url>", description);

/** `-s <name|url>` and `--stdio <command line>`; `stdio` says what the stdio server is run for. */
export const serverOptions = (stdio = "run a stdio server"): Option[] => [
  serverOption(),
  new Option("--stdio <command line>", stdio),
];

export function serverFlags(flags: Flags): ServerFlags {
  return { server: flags.server as string | undefined, stdio: flags.stdio as string | undefined };
}

/** The option of every command that takes a task id (`-s` names a server as `list` shows it, not a new one). */
const PICK_SERVER = [
  "-s, --server <name>",
  "the task's server, as list shows it (when one id is saved for more than one)",
] as const;

export const pickServer = (): Option => new Option(...PICK_SERVER);

/** The `<id>` argument of every command that takes one saved task. */
export const taskIdArgument = (): Argument => new Argument("<id>", "task id or unique prefix (at least 4 characters)");

/** A saved task as named on the command line: an id or prefix, and the server when one id is saved for several. */
export interface TaskRef {
  id: string;
  server?: string;
}

export const taskRef = (id: string, flags: Flags): TaskRef => ({ id, server: flags.server as string | undefined });

// --- the answers to a task's questions ---

export interface AnswerFlags {
  input?: JsonObjectArg;
  decline: boolean;
  /** `--sampling-reply`: the text (or `@file`, `-` for stdin) that answers sampling requests. */
  samplingReply?: string;
  samplingModel?: string;
  /** --open-url: hosts whose URL-mode elicitation pages may be opened without asking. */
  openUrl: string[];
}

/** `--input`, `--decline` and the sampling reply; `respond` words the first two for the one request it answers. */
export const answerOptions = (
  input = "answer input requests with this object",
  decline = "decline input requests",
): Option[] => [
  new Option("--input <json|@file|->", input),
  new Option("--decline", decline),
  new Option("--sampling-reply <text|@file|->", "answer sampling requests (a model's reply) with this text"),
  new Option("--sampling-model <name>", 'the model a sampling reply names (default "human")'),
  new Option("--open-url <host>", "consent ahead to open the server's web pages on this host (repeatable)").argParser(
    collect,
  ),
];

export function answerFlags(flags: Flags): AnswerFlags {
  if (flags.input !== undefined && flags.decline) throw new UsageError("give either --input or --decline, not both");
  if (flags.input === "-" && flags.samplingReply === "-")
    throw new UsageError("--input - and --sampling-reply - would both read stdin: give one of them as @file");
  if (flags.samplingModel !== undefined && flags.samplingReply === undefined)
    throw new UsageError("--sampling-model names the model of a --sampling-reply: give both");
  return {
    input: flags.input !== undefined ? jsonObjectArg(flags.input as string, "--input") : undefined,
    decline: Boolean(flags.decline),
    ...(flags.samplingReply !== undefined && { samplingReply: flags.samplingReply as string }),
    ...(flags.samplingModel !== undefined && { samplingModel: flags.samplingModel as string }),
    openUrl: (flags.openUrl as string[] | undefined) ?? [],
  };
}

// --- how long to wait ---

export const timeoutOption = (description = "stop waiting after this long (the task keeps running); exit 7"): Option =>
  new Option("--timeout <duration>", description);

export function timeoutFlag(flags: Flags): number | undefined {
  return flags.timeout !== undefined ? parseDuration(flags.timeout as string, "--timeout") : undefined;
}

// --- the server's log messages ---

/** `--log-level`: shown from this level up, and asked of the server (`logging/setLevel`) where it logs. */
export const logLevelOption = (): Option =>
  new Option(
    "--log-level <level>",
    "show the server's log messages from this level up (default in text: warning), and ask the server for them",
  ).choices(LOG_LEVELS);

export const logLevelFlag = (flags: Flags): LogLevel | undefined =>
  isLogLevel(flags.logLevel) ? flags.logLevel : undefined;

// --- JSON output ---

/** What `--json` prints, as each command's help says it. */
export const JSON_EVENTS = "NDJSON events on stdout";
export const JSON_DOCUMENT = "one JSON document";

export const jsonOption = (description: string): Option => new Option("--json", description);

export const jsonFlag = (flags: Flags): boolean => Boolean(flags.json);
