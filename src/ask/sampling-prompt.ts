// The line prompt's sampling request (see line-prompt.ts): what the server asks, made display-safe, on stderr, and the
// reply a person types (one line; an empty one declines where the request can be declined, else asks again), sent as
// the model's reply.
import type { IO } from "../context.js";
import type { InputRequest, InputResponse } from "../protocol/wire.js";
import { HUMAN_MODEL, samplingAnswer, samplingLines } from "../tasks/sampling.js";
import { quotedLines } from "./quote.js";
import { lineReader, taskWhere } from "./reader.js";

export async function askSampling(
  io: IO,
  request: InputRequest,
  taskId: string | null,
  signal?: AbortSignal,
): Promise<InputResponse> {
  const say = (text: string) => io.stderr.write(`${text}\n`);
  const rl = await lineReader(io, signal);
  try {
    const where = taskWhere(taskId);
    const [head, ...rest] = samplingLines(request);
    say(`\n? ${head}${where}`);
    // What the server sent, quoted line by line (./quote.ts): a message cannot pass for mcp-task's own lines.
    for (const line of rest.flatMap((entry) => quotedLines(entry))) say(line);
    // A 2026-07-28 request cannot be declined (InputRequest.declinable): an empty line asks again.
    const declinable = request.declinable !== false;
    const ask = `  your reply (as model "${HUMAN_MODEL}"${declinable ? "; an empty line declines" : ""}): `;
    for (;;) {
      const text = (await rl.question(ask)).trim();
      if (text) return samplingAnswer({ text, model: HUMAN_MODEL });
      if (declinable) return { action: "decline" };
      say("  this request cannot be declined: write a reply (Ctrl-C to leave it for later)");
    }
  } finally {
    rl.close();
  }
}
