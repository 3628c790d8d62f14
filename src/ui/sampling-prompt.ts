// The line prompt's sampling request (see prompt.ts): what the server asks, made display-safe, on stderr, and the
// reply a person types (one line; an empty one declines), sent as the model's reply.
import type { IO } from "../context.js";
import { sanitizeLine } from "../sanitize.js";
import type { InputRequest, InputResponse } from "../protocol/wire.js";
import { HUMAN_MODEL, samplingAnswer, samplingLines } from "../tasks/sampling.js";

export async function askSampling(io: IO, request: InputRequest, taskId: string | null): Promise<InputResponse> {
  const say = (text: string) => io.stderr.write(`${text}\n`);
  const { createInterface } = await import("node:readline/promises");
  const rl = createInterface({ input: io.stdin, output: io.stderr as NodeJS.WritableStream, terminal: false });
  try {
    const where = taskId ? ` (task ${sanitizeLine(taskId.slice(0, 8))})` : "";
    const [head, ...rest] = samplingLines(request);
    say(`\n? ${head}${where}`);
    for (const line of rest) say(`  ${line.replace(/\n/g, "\n  ")}`);
    const text = (await rl.question(`  your reply (as model "${HUMAN_MODEL}"; an empty line declines): `)).trim();
    return text ? samplingAnswer({ text, model: HUMAN_MODEL }) : { action: "decline" };
  } finally {
    rl.close();
  }
}
