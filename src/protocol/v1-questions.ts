// V1's questions: the server asks them as ordinary `elicitation/create` (or `sampling/createMessage`) requests on
// the stream of a task's open `tasks/result` round. They reach the wire's input handler tagged with their task (the
// related-task metadata); a form past the bounds is refused before the SDK parses it; an answer whose round ended
// first, or whose send failed, is reported as in doubt (the `uncertainDelivery` event).
import type { Client } from "@modelcontextprotocol/client";
import { RpcError, ServerError } from "../errors.js";
import { toServerError } from "./failures.js";
import type { RawChannel } from "./rpc.js";
import { formOverLimit, overLimitStandIn } from "./schema-bounds.js";
import type { InputRequest, InputResponse } from "./wire.js";
import type { WireHub } from "./wire-events.js";

const RELATED_TASK = "io.modelcontextprotocol/related-task";

export class V1Questions {
  /**
   * Per task: the open tasks/result round its questions come with; `cut` once it ended without the task's outcome;
   * `hold`: its questions are left unanswered (`check` opens one to see whether the server waits, and answers nothing).
   */
  private readonly rounds = new Map<string, { cut: boolean; hold: boolean }>();
  /** Answers to a task's questions handed to the SDK and not yet sent, by the server's request id. */
  private readonly answering = new Map<unknown, { taskId: string; request: InputRequest; response: InputResponse }>();

  /** `hub`: the wire's, who answers the questions, and who hears of a doubtful or withdrawn one. */
  constructor(private readonly hub: WireHub) {}

  /** A new tasks/result round of a task: its questions come with it; the caller sets `cut` when it ends early. */
  openRound(taskId: string, hold = false): { cut: boolean } {
    const round = { cut: false, hold };
    this.rounds.set(taskId, round);
    return round;
  }

  /** Takes a connection's questions (the first one, and each after a renewed session). */
  attach(client: Client, rpc: RawChannel): void {
    // A question whose form is past the bounds never reaches the SDK (its parse of a form of 400,000 fields cost 8
    // CPU-seconds; one 20,000 levels deep it refused on its own, unseen): it goes to the input handler like any
    // other question (the engine refuses it: exit 4, naming the bound), and is answered from here when the handler
    // answers; a question kept unanswered (by a broker, for a later command) stays unanswered.
    rpc.screenRequest = (method, params, id) => {
      const over = method === "elicitation/create" ? formOverLimit(params.requestedSchema) : undefined;
      if (!over) return undefined;
      // The form itself does not travel further (a broker could not even write it to its socket): a small stand-in
      // that says why it was refused does, and the engine refuses it with that reason.
      this.ask(method, { ...params, requestedSchema: overLimitStandIn(over) }, id).then(
        (result) => rpc.reply(id, { result }),
        () => rpc.reply(id, { error: { code: -32602, message: `mcp-task will not show or fill this form: ${over}` } }),
      );
      return "held";
    };
    // The request's signal aborts when the server withdraws its question (notifications/cancelled: it gave up waiting).
    client.setRequestHandler(
      "elicitation/create",
      async (request, ctx) =>
        this.ask(request.method, request.params as Record<string, unknown>, ctx.mcpReq.id, ctx.mcpReq.signal) as never,
    );
    try {
      client.setRequestHandler(
        "sampling/createMessage",
        async (request, ctx) =>
          this.ask(
            request.method,
            request.params as Record<string, unknown>,
            ctx.mcpReq.id,
            ctx.mcpReq.signal,
          ) as never,
      );
    } catch {
      // The SDK sets no sampling handler on a client that did not declare sampling (connect.ts: declared only where
      // a reply can be given); such a client answers a sampling request "method not found", as the spec has it.
    }
    client.setNotificationHandler("notifications/elicitation/complete", (notification) => {
      const id = (notification.params as { elicitationId?: unknown }).elicitationId;
      if (typeof id === "string") this.hub.emit("elicitationComplete", id);
    });
    this.watchAnswers(client);
  }

  /**
   * The SDK sends our answer as the response to the server's elicitation request, and only logs a failed send.
   * Such an answer may not have reached the server: tell the `uncertainDelivery` subscribers (a server that did not
   * take it asks again on its next tasks/result).
   */
  private watchAnswers(client: Client): void {
    const transport = client.transport;
    if (!transport) return;
    const send = transport.send.bind(transport);
    transport.send = (message, options) => {
      const id = (message as { id?: unknown }).id;
      const answer = "method" in message ? undefined : this.answering.get(id);
      if (!answer) return send(message, options);
      this.answering.delete(id);
      return send(message, options).catch((error: unknown) => {
        this.hub.emit("uncertainDelivery", {
          taskId: answer.taskId,
          answers: [{ request: answer.request, response: answer.response }],
          stableKeys: false,
          error: toServerError(error, "sending the answer"),
        });
        throw error;
      });
    };
  }

  /** Routes a server-to-client request to the input handler, tagged with its task when it has one. */
  private async ask(
    method: string,
    params: Record<string, unknown>,
    id: unknown,
    signal?: AbortSignal,
  ): Promise<Record<string, unknown>> {
    const meta = (params._meta ?? {}) as Record<string, { taskId?: unknown } | undefined>;
    const taskId = typeof meta[RELATED_TASK]?.taskId === "string" ? (meta[RELATED_TASK]!.taskId as string) : null;
    const input: InputRequest = { key: `v1:${String(id ?? Math.random())}`, method, params };
    const handler = this.hub.input;
    if (!handler) throw new RpcError("mcp-task has no answer for this request", -32603);
    const round = taskId !== null ? this.rounds.get(taskId) : undefined;
    if (round?.hold) return held(signal);
    signal?.addEventListener("abort", () => this.hub.emit("questionWithdrawn", taskId, input), { once: true });
    const response = await handler(input, taskId, signal);
    // A declined sampling request is an error reply (the spec's -1, "User rejected sampling request"); an accepted
    // one's content is the CreateMessageResult (src/tasks/sampling.ts).
    // (The SDK replies with a thrown error's numeric `code`: RpcError's `code` is our string one.)
    if (method === "sampling/createMessage" && response.action !== "accept")
      throw Object.assign(new Error("User rejected sampling request"), { code: -1 });
    if (taskId !== null && round?.cut) {
      // The round the question came with ended before the answer was ready: the server that asked may be gone (a
      // restarted one does not know this request), so the answer is in doubt. It is sent all the same.
      const error = new ServerError(
        "the tasks/result stream that brought the question ended before the answer was sent",
      );
      this.hub.emit("uncertainDelivery", { taskId, answers: [{ request: input, response }], stableKeys: false, error });
    } else if (taskId !== null && id !== undefined) this.answering.set(id, { taskId, request: input, response });
    if (method === "sampling/createMessage") return (response as { content: Record<string, unknown> }).content;
    return response.action === "accept" ? { action: "accept", content: response.content } : { action: response.action };
  }
}

/** A question left unanswered: pending until the server withdraws it (or the connection goes). */
function held(signal?: AbortSignal): Promise<never> {
  return new Promise((_, reject) => signal?.addEventListener("abort", () => reject(signal.reason), { once: true }));
}
