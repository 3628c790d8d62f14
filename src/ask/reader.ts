// A line reader on the command's stdin, prompting on stderr, for one question of a person (./line-prompt.ts,
// ./url-prompt.ts, ./sampling-prompt.ts). readline is loaded when a question comes, not by every command that might
// ask one. Aborting `signal` (the question was withdrawn) closes it: the question being read rejects.
import type { Interface } from "node:readline/promises";
import type { IO } from "../context.js";
import { sanitizeLine } from "../sanitize.js";

export async function lineReader(io: IO, signal?: AbortSignal): Promise<Interface> {
  const { createInterface } = await import("node:readline/promises");
  const rl = createInterface({ input: io.stdin, output: io.stderr as NodeJS.WritableStream, terminal: false });
  if (signal?.aborted) rl.close();
  else signal?.addEventListener("abort", () => rl.close(), { once: true });
  return rl;
}

/** The task a question belongs to, as its header names it. */
export const taskWhere = (taskId: string | null) => (taskId ? ` (task ${sanitizeLine(taskId.slice(0, 8))})` : "");
