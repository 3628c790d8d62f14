// Argument parsing shared by the verbs: JSON objects (inline, @file or - for stdin), key=value pairs, stdin with a
// cap, whole milliseconds. Parsing is pure; only reading a file or stdin waits for the command to run.
import type { Context } from "../context.js";
import { UsageError } from "../errors.js";
import { MAX_STDIN_BYTES } from "../limits.js";
import { readNamedFile } from "../store/named-files.js";
import { setOwn } from "../data.js";

/** A JSON object named on the command line: given inline (parsed already), or read from a file or stdin on run. */
export type JsonObjectArg = { value: Record<string, unknown> } | { file: string } | { stdin: true };

/** `<json>`, `@file` or `-` (stdin): inline JSON is parsed and checked now, the others when read. */
export function jsonObjectArg(value: string, what: string): JsonObjectArg {
  if (value === "-") return { stdin: true };
  if (value.startsWith("@")) return { file: value.slice(1) };
  return { value: parseJsonObject(value, what) };
}

/** Reads a `JsonObjectArg` into its JSON object. */
export async function readJsonArg(arg: JsonObjectArg, what: string, ctx: Context): Promise<Record<string, unknown>> {
  if ("value" in arg) return arg.value;
  if ("stdin" in arg)
    return parseJsonObject(await readAll(ctx.io.stdin, `${what} -`, MAX_STDIN_BYTES, ctx.interrupt), what);
  return parseJsonObject(readNamedFile(arg.file, MAX_STDIN_BYTES, { stdin: true, what }), what);
}

/** A text named on the command line: itself, `@file` or `-` (stdin), read whole but for one final line break. */
export async function readTextArg(value: string, what: string, ctx: Context): Promise<string> {
  const chomp = (text: string) => text.replace(/\r?\n$/, "");
  if (value === "-") return chomp(await readAll(ctx.io.stdin, `${what} -`, MAX_STDIN_BYTES, ctx.interrupt));
  if (!value.startsWith("@")) return value;
  return chomp(readNamedFile(value.slice(1), MAX_STDIN_BYTES, { stdin: true, what }));
}

function parseJsonObject(text: string, what: string): Record<string, unknown> {
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

/**
 * All of `stream` as text; past `limit` bytes (MAX_STDIN_BYTES) a usage error, without reading the rest. `signal`
 * (the command's Ctrl-C and SIGTERM) stops the read: a stdin that never ends is not waited on once it fires.
 */
export async function readAll(
  stream: NodeJS.ReadableStream,
  what = "stdin",
  limit = MAX_STDIN_BYTES,
  signal?: AbortSignal,
): Promise<string> {
  const destroy = (reason?: unknown) => (stream as { destroy?: (error?: Error) => void }).destroy?.(reason as Error);
  signal?.throwIfAborted();
  const stop = () => destroy(signal!.reason);
  signal?.addEventListener("abort", stop, { once: true });
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream) {
      const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
      size += buffer.length;
      if (size > limit) {
        destroy();
        throw new UsageError(
          `${what}: stdin is larger than ${Math.round(limit / 1024 / 1024)} MiB; mcp-task reads at most that much from stdin`,
        );
      }
      chunks.push(buffer);
    }
  } finally {
    signal?.removeEventListener("abort", stop);
  }
  return Buffer.concat(chunks, size).toString("utf8");
}

/**
 * `key=value` pairs; a value that parses as JSON is taken as JSON, else as a string (the tool's inputSchema may read
 * it otherwise once known: `pairTexts` keeps each as typed, for src/tasks/tool-check.ts's typedArgs).
 */
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

/** Each `key=value` pair's value as typed (pairs checked by parsePairs). */
export function pairTexts(pairs: string[]): Record<string, string> {
  const texts: Record<string, string> = {};
  for (const pair of pairs) setOwn(texts, pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1));
  return texts;
}

/** A TCP port, 0 (any free one) to 65535. */
export function parsePort(value: string, what: string): number {
  if (!/^\d{1,5}$/.test(value) || Number(value) > 65535)
    throw new UsageError(`${what}: not a port number (0 to 65535): ${value}`, `example: ${what} 3000`);
  return Number(value);
}
