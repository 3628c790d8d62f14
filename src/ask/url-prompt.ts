// The line prompt's URL-mode question: the page's host and address shown plainly (../tasks/url-elicitation.ts),
// and consent asked; the opening itself is done by whoever wraps the prompt (./url-open.ts), only after a yes.
import type { IO } from "../context.js";
import type { InputRequest, InputResponse } from "../protocol/wire.js";
import { urlQuestion } from "../tasks/url-elicitation.js";
import { quotedLines } from "./quote.js";
import { lineReader, taskWhere } from "./reader.js";

export async function askUrl(
  io: IO,
  request: InputRequest,
  taskId: string | null,
  signal?: AbortSignal,
): Promise<InputResponse> {
  const say = (text: string) => io.stderr.write(`${text}\n`);
  const where = taskWhere(taskId);
  const { head, message, facts } = urlQuestion(request);
  say(`\n? ${head}${where}`);
  // The server's message quoted (./quote.ts); the host and address on lines of mcp-task's.
  if (message) for (const line of quotedLines(message)) say(line);
  for (const line of facts) say(`  ${line}`);
  const rl = await lineReader(io, signal);
  try {
    const choice = (await rl.question("  open it in the browser? yes, no (decline) or cancel [y/N/c] ")).trim();
    if (/^(y|yes)$/i.test(choice)) return { action: "accept", content: {} };
    return /^c/i.test(choice) ? { action: "cancel" } : { action: "decline" };
  } catch {
    if (signal?.aborted) throw signal.reason;
    return { action: "cancel" }; // stdin closed: nobody said yes
  } finally {
    rl.close();
  }
}
