// The broker's holding of its server's questions: each goes to the command that asked for the task's input (or made
// the call); while no command is there, it waits here, so that a later `respond`, `watch` or dashboard can still
// answer it.
//
// A question is answered or withdrawn by the server, never dropped here: a command that cannot answer it (it
// answers with an error) leaves it waiting for the next one, and the task reads as input_required meanwhile (heldFor).
import type { Socket } from "node:net";
import type { Clock } from "../context.js";
import type { InputRequest, InputResponse, Snapshot, Wire } from "../protocol/wire.js";
import { HELD_CALL_QUESTION_MS } from "../limits.js";
import { decodeError, send, type WireError } from "./protocol.js";

/** A command connected to the broker, and the tasks whose changes it is sent. */
export interface Client {
  socket: Socket;
  watching: Set<string>;
  /** It hears the broker's wire trace (tapWire). */
  tapped?: boolean;
  /** The command traces its wire: the broker relays what concerns it (relay.ts). */
  traced?: boolean;
}

interface PendingInput {
  id: number;
  request: InputRequest;
  taskId: string | null;
  resolve(response: InputResponse): void;
  reject(error: Error): void;
  assigned?: Client;
  /** Commands that could not answer it (no --input, one that did not fit, Esc...): it is not handed to them again. */
  refused: Set<Client>;
  /** Asked while a call was on its way (taskId null): it belongs to the task that call creates. */
  during?: Promise<unknown>;
}

/** A command's answer to a question it was given: its result, or why it could not answer. */
export type Answer = { id: number; result: unknown } | { id: number; error: WireError };

export class Questions {
  private readonly pending: PendingInput[] = [];
  private nextInput = 1;
  /** The command that made the latest call: the questions of a call on its way are its. */
  caller: Client | undefined;
  /** The command that owns each task (made its call, or asked for its input last). */
  readonly owners = new Map<string, Client>();
  /** The calls on their way. */
  readonly calls = new Set<Promise<unknown>>();

  constructor(
    private readonly wire: Wire,
    private readonly clients: ReadonlySet<Client>,
    private readonly clock: Clock,
    private readonly log: (line: string) => void,
    /** The newest running task the broker holds (a question without its task's id belongs to it). */
    private readonly newestRunning: () => string | null,
  ) {}

  private assign(input: PendingInput): void {
    if (input.assigned && this.clients.has(input.assigned)) return;
    const target = input.taskId ? this.owners.get(input.taskId) : this.caller;
    input.assigned = target && this.clients.has(target) && !input.refused.has(target) ? target : undefined;
    if (input.assigned)
      send(input.assigned.socket, {
        id: -input.id,
        method: "input",
        params: { request: input.request, taskId: input.taskId },
      });
  }

  /** The wire's input handler: a question of the server, answered by a command now or later. */
  ask(request: InputRequest, taskId: string | null, signal?: AbortSignal): Promise<InputResponse> {
    return new Promise<InputResponse>((resolve, reject) => {
      // A question without its task's id (servers that elicit during a task without the related-task metadata)
      // belongs to the task a call on its way creates, else to the newest running task this broker holds.
      const during = taskId === null ? [...this.calls].at(-1) : undefined;
      const input: PendingInput = {
        id: this.nextInput++,
        request,
        taskId: taskId ?? (during ? null : this.newestRunning()),
        resolve,
        reject,
        refused: new Set(),
        during,
      };
      this.pending.push(input);
      signal?.addEventListener("abort", () => this.withdrawn(input, reject), { once: true });
      this.assign(input);
    });
  }

  /** The server withdrew a question (it gave up waiting: its own timeout). */
  private withdrawn(input: PendingInput, reject: (error: Error) => void): void {
    // Said once in the log; the task's next state is the server's to tell.
    const at = this.pending.indexOf(input);
    if (at >= 0) this.pending.splice(at, 1);
    if (input.assigned && this.clients.has(input.assigned))
      send(input.assigned.socket, {
        method: "withdrawn",
        params: { id: -input.id, taskId: input.taskId, request: input.request },
      });
    this.log(
      `mcp-task broker: the server withdrew a question${input.taskId ? ` of task ${input.taskId}` : ""} before it was answered (it stopped waiting for the answer)\n`,
    );
    reject(new Error("question withdrawn"));
  }

  /**
   * A task with a question held here waits for input, whatever the server's status says (it may not say so), and
   * its reads carry the questions held for it (V1 lists none of its own): `get`, `respond --template`, a watch's
   * `input` events and the dashboard see them without answering them. They stay held here.
   */
  heldFor(snapshot: Snapshot): Snapshot {
    if (snapshot.status !== "working" && snapshot.status !== "input_required") return snapshot;
    const listed = new Set(snapshot.inputRequests.map((request) => request.key));
    const held = this.pending
      .filter((input) => input.taskId === snapshot.taskId && !listed.has(input.request.key))
      .map((input) => input.request);
    if (held.length === 0) return snapshot;
    return { ...snapshot, status: "input_required", inputRequests: [...snapshot.inputRequests, ...held] };
  }

  /** A call made a task: questions asked while it was on its way are this task's. */
  madeTask(call: Promise<unknown>, taskId: string, client: Client): void {
    for (const input of this.pending) if (input.during === call) input.taskId = taskId;
    this.owners.set(taskId, client);
  }

  /** A call has its reply (a task or not). */
  callEnded(call: Promise<unknown>): void {
    this.calls.delete(call);
    for (const input of this.pending) if (input.during === call) input.during = undefined;
  }

  /** A command asks for a task's input: it owns the task, and may be given what it could not answer before. */
  askedBy(client: Client, taskId: string): void {
    this.owners.set(taskId, client);
    for (const input of this.pending) if (input.taskId === taskId) (input.refused.delete(client), this.assign(input));
  }

  /** A command's answer to a question it was given (`message.id` is the question's, negated). */
  answer(client: Client, message: Answer): void {
    const at = this.pending.findIndex((input) => input.id === -message.id);
    if (at < 0) return;
    const input = this.pending[at];
    if ("error" in message) return this.refused(client, input, message.error);
    this.pending.splice(at, 1);
    input.resolve(message.result as InputResponse);
  }

  private refused(client: Client, input: PendingInput, error: WireError): void {
    const refuse = () => {
      const still = this.pending.indexOf(input);
      if (still >= 0) this.pending.splice(still, 1);
      input.reject(decodeError(error));
    };
    // A server that lists its questions until they are answered (V2) is told at once: it asks again.
    if (!this.wire.handsQuestionsOnce) return refuse();
    // The command cannot answer (no --input, an answer that does not fit, Esc, --detach): the question stays
    // here for the next command that asks for the task's input; the server is not told anything.
    input.refused.add(client);
    input.assigned = undefined;
    const call = input.during;
    if (!call) return this.assign(input);
    // Asked while its call was on its way: kept once the call has made a task; a call that ends without one,
    // or whose reply the server holds back for this answer, is the server's to hear about.
    const settled = call.then(
      () => {},
      () => {},
    );
    void Promise.race([settled, this.clock.sleep(HELD_CALL_QUESTION_MS)]).then(() =>
      input.taskId === null ? refuse() : this.assign(input),
    );
  }

  /** A command went away: its tasks have no owner, and the questions it did not answer wait for the next one. */
  left(client: Client): void {
    if (this.caller === client) this.caller = undefined;
    for (const [taskId, owner] of this.owners) if (owner === client) this.owners.delete(taskId);
    for (const input of this.pending) if (input.assigned === client) input.assigned = undefined;
  }
}
