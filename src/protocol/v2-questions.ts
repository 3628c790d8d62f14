// V2's questions: a task's open input requests (listed on its reads) answered by the wire's input handler, to be sent
// back in one tasks/update (v2.ts), and each answer in the shape the server takes, for a task's question and for a
// call's request-level one alike.
import { InputRequiredError, ServerError } from "../errors.js";
import { setOwn } from "../data.js";
import { sanitizeLine } from "../sanitize.js";
import type { WireHub } from "./wire-events.js";
import {
  openRequests,
  type InputHandler,
  type InputRequest,
  type InputResponse,
  type ServiceInputOptions,
  type Snapshot,
} from "./wire.js";
import type { UncertainDelivery } from "./wire.js";

/** The wire's input handler; a wire asked a question with none set is a programming error. */
export function handlerOf(hub: WireHub): InputHandler {
  const handler = hub.input;
  if (!handler) throw new ServerError("internal: no input handler set");
  return handler;
}

/**
 * The answers to the task's questions not answered yet: `inputResponses` to send, and what was answered (undefined:
 * nothing to send). Every question that can be answered is; one that cannot (the handler refuses it: no answer fits)
 * does not hold back the others. The refusal reaches the engine through its handler; it is thrown here only when
 * nothing at all could be answered.
 */
export async function answerOpen(
  hub: WireHub,
  snapshot: Snapshot,
  options: ServiceInputOptions,
): Promise<{ inputResponses: Record<string, unknown>; answers: UncertainDelivery["answers"] } | undefined> {
  const open = openRequests(snapshot.inputRequests, options.answered);
  if (open.length === 0) return undefined;
  const inputResponses: Record<string, unknown> = {};
  const answers: UncertainDelivery["answers"] = [];
  let refused: unknown;
  for (const request of open) {
    let response: InputResponse;
    try {
      response = await handlerOf(hub)(request, snapshot.taskId, options.signal);
    } catch (error) {
      if (options.signal?.aborted) throw error;
      refused ??= error;
      continue;
    }
    setOwn(inputResponses, request.key, wireResponse(request, response, snapshot.taskId)); // a key may be `__proto__`
    answers.push({ request, response });
  }
  if (answers.length === 0 && refused) throw refused;
  return answers.length === 0 ? undefined : { inputResponses, answers };
}

/** An answer as the server takes it. */
export function wireResponse(
  request: InputRequest,
  response: InputResponse,
  taskId: string | null,
): Record<string, unknown> {
  if (request.method !== "elicitation/create" && response.action !== "accept") {
    // V2 has no way to decline a sampling or roots request: the task cannot go on without a reply.
    throw new InputRequiredError(
      `the server asks for ${sanitizeLine(request.method)}, which cannot be declined on the 2026-07-28 protocol`,
      undefined,
      taskId,
    );
  }
  // A sampling reply is the CreateMessageResult itself (src/tasks/sampling.ts).
  if (request.method === "sampling/createMessage") return (response as { content: Record<string, unknown> }).content;
  return response.action === "accept" ? { action: "accept", content: response.content } : { action: response.action };
}
