// The broker's holding of its server's questions: each goes to the command that asked for the task's input (or made
// the call); while no command is there, it waits here, so that a later `respond`, `watch` or dashboard can still
// answer it.
//
// A question is answered or withdrawn by the server, never dropped here: a command that cannot answer it (it
// answers with an error) leaves it waiting for the next one, and the task reads as input_required meanwhile (heldFor).
//
// Whose question it is: the task its related-task metadata names. A server that asks without it (server.elicitInput
// during a task, as many SDK-based servers do) does not say; the question is the task's only where nothing else
// could have asked it: the one task of this connection running and no call on its way, or the one call on its way
// and no task running. Anything else is a guess, and a guess gives one task's answer to another task's question:
// such a question is held unattributed instead, shown on the reads of every task that could have asked it, marked
// (InputRequest.unattributed) so that the person answering knows the server did not say, and handed to the first
// command that asks for one of those tasks' input. A task waits on one question at a time, so at most one of the
// unattributed questions it could have asked is its own: each task is shown, and handed, one of them at a time
// (the one waiting longest), never several for one answer.
//
// A question none of this connection's tasks or calls could have asked is nobody's here, and is left unanswered,
// never refused (unclaimed): a refusal is an answer, and a server may send one question to each of its sessions and
// take the first answer (mcp-framework's HTTP Stream does: its tool's elicitation goes to every session's stream). A
// session with nothing running that refused it at once answered it for the session whose task asked it, before that
// task's command could. It waits until the server withdraws it (past MAX_UNCLAIMED_QUESTIONS, the next is refused).
import type { Clock } from "../context.js";
import type { InputRequest, InputResponse, Snapshot, Wire } from "../protocol/wire.js";
import { HELD_CALL_QUESTION_MS, MAX_UNCLAIMED_QUESTIONS } from "../limits.js";
import { decodeError, send, type WireError } from "./protocol.js";
import type { Client } from "./attached.js";

export interface PendingInput {
  id: number;
  request: InputRequest;
  taskId: string | null;
  resolve(response: InputResponse): void;
  reject(error: Error): void;
  assigned?: Client;
  /** The task it was handed to `assigned` as (an unattributed question goes as the task the command asked for). */
  handedAs?: string | null;
  /** Commands that could not answer it (no --input, one that did not fit, Esc...): it is not handed to them again. */
  refused: Set<Client>;
  /** Asked while a call was on its way, and nothing else could have asked it: it belongs to the task that call creates. */
  during?: Promise<unknown>;
  /** Refused by its call's command while that call was on its way: what becomes of it once the call has ended. */
  afterCall?: () => void;
  /**
   * Unattributed (taskId null): the tasks that could have asked it, those running when it came and those the calls
   * then on their way created (`calls`, until each has its reply).
   */
  candidates?: Set<string>;
  calls?: Set<Promise<unknown>>;
  /** Nobody's here: left unanswered until the server withdraws it (unclaimed). */
  unclaimed?: boolean;
}

/** A command's answer to a question it was given: its result, or why it could not answer. */
export type Answer = { id: number; result: unknown } | { id: number; error: WireError };

export class Questions {
  /** The questions held, oldest first (holders.ts marks those handed to a command on what the others are sent). */
  readonly pending: PendingInput[] = [];
  private nextInput = 1;
  /** The questions left unanswered as nobody's here (unclaimed), until the server withdraws them. */
  private unclaimedCount = 0;
  /** The command that owns each task (made its call, or asked for its input last). */
  readonly owners = new Map<string, Client>();
  /** The calls on their way, and the command that made each: the questions of a call on its way are its. */
  readonly calls = new Map<Promise<unknown>, Client>();

  constructor(
    private readonly wire: Wire,
    private readonly clients: ReadonlySet<Client>,
    private readonly clock: Clock,
    private readonly log: (line: string) => void,
    /** The running tasks the broker holds: those that could have asked a question without its task's id. */
    private readonly running: () => string[],
    /** How long a question its call's command could not answer is kept for the call (HELD_CALL_QUESTION_MS). */
    private readonly heldCallQuestionMs = HELD_CALL_QUESTION_MS,
  ) {}

  /**
   * Gives a question to the command that should answer it, unless one has it: a task's question to the task's
   * owner, one asked while its call was on its way to that call's command. An unattributed one is given to no command
   * on its own: it goes to one that read it on a task that could have asked it, and asks for that task's input
   * (askedBy).
   */
  private assign(input: PendingInput): void {
    if (input.assigned && this.clients.has(input.assigned)) return;
    if (input.candidates) {
      // With one call on its way, its command is there and may be the one asked (a server that asks before it
      // answers the call waits for that answer: handed to nobody, the call would wait as long): it is handed the
      // question, marked unattributed, as a command that reads a candidate task is.
      const [call, more] = input.calls ?? [];
      if (call && !more) this.handTo(input, this.calls.get(call), null);
      else input.assigned = undefined;
      return;
    }
    const target = input.taskId ? this.owners.get(input.taskId) : input.during && this.calls.get(input.during);
    this.handTo(input, target, input.taskId);
  }

  /**
   * A call an unattributed question came beside has its reply: with one call left on its way, the question goes to
   * its command; with none, the question is the one task that could have asked it (nothing else could have), or, with
   * no task that could have, nobody's here (unclaimed).
   */
  private narrowed(input: PendingInput): void {
    if (input.calls!.size > 0) return this.assign(input);
    if (input.candidates!.size > 1) return;
    const [taskId] = input.candidates!;
    if (taskId === undefined) return this.unclaimed(input, "outside its tasks, and the calls it came beside ended");
    const { unattributed: _known, ...request } = input.request;
    // A command that has it already (the last call's) keeps it; else the task's owner is handed it.
    Object.assign(input, { taskId, request, candidates: undefined, calls: undefined });
    this.assign(input);
  }

  private handTo(input: PendingInput, target: Client | undefined, taskId: string | null): void {
    input.assigned = target && this.clients.has(target) && !input.refused.has(target) ? target : undefined;
    if (!input.assigned) return;
    input.handedAs = taskId;
    const request = input.assigned.sentQuestions?.request(taskId, input.request) ?? input.request;
    send(input.assigned.socket, { id: -input.id, method: "input", params: { request, taskId } });
  }

  /** The unattributed question task `taskId` is shown and handed: the one waiting longest that it could have asked. */
  private unattributedFor(taskId: string): PendingInput | undefined {
    return this.pending.find((input) => input.candidates?.has(taskId));
  }

  /**
   * A question none of this connection's tasks or calls could have asked: no command here is handed it, and the
   * server is not answered (see the top of this file) until it withdraws the question; past MAX_UNCLAIMED_QUESTIONS
   * such questions at once, it is refused.
   */
  private unclaimed(input: PendingInput, where: string): void {
    const at = this.pending.indexOf(input);
    if (at >= 0) this.pending.splice(at, 1);
    input.assigned = undefined;
    if (this.unclaimedCount >= MAX_UNCLAIMED_QUESTIONS) {
      const why = `${MAX_UNCLAIMED_QUESTIONS} questions no task here asked wait unanswered already (MAX_UNCLAIMED_QUESTIONS)`;
      this.log(`mcp-task broker: the server asked a question ${where}; it was refused: ${why}\n`);
      return input.reject(new Error(`the server asked a question ${where}, and ${why}`));
    }
    this.unclaimedCount++;
    input.unclaimed = true;
    this.log(
      `mcp-task broker: the server asked a question ${where}; it is left unanswered (another session may be the one asked)\n`,
    );
  }

  /** The wire's input handler: a question of the server, answered by a command now or later. */
  ask(request: InputRequest, taskId: string | null, signal?: AbortSignal): Promise<InputResponse> {
    return new Promise<InputResponse>((resolve, reject) => {
      // Without its task's id: whose it is only where nothing else could have asked it (see the top of this file).
      const running = taskId === null ? this.running() : [];
      const calls = taskId === null ? [...this.calls.keys()] : [];
      const unattributed = running.length + calls.length > 1;
      const input: PendingInput = {
        id: this.nextInput++,
        request: unattributed ? { ...request, unattributed: true } : request,
        taskId: taskId ?? (unattributed || calls.length ? null : (running[0] ?? null)),
        resolve,
        reject,
        refused: new Set(),
        during: unattributed ? undefined : calls[0],
        ...(unattributed && { candidates: new Set(running), calls: new Set(calls) }),
      };
      signal?.addEventListener("abort", () => this.withdrawn(input, reject), { once: true });
      // Asked outside any task or call of this connection: no command here could be handed it.
      if (taskId === null && running.length + calls.length === 0)
        return this.unclaimed(input, "outside any task or call");
      this.pending.push(input);
      this.assign(input);
    });
  }

  /** The server withdrew a question (it gave up waiting: its own timeout). */
  private withdrawn(input: PendingInput, reject: (error: Error) => void): void {
    // Said once in the log; the task's next state is the server's to tell.
    const at = this.pending.indexOf(input);
    if (at >= 0) this.pending.splice(at, 1);
    if (input.unclaimed) (this.unclaimedCount--, (input.unclaimed = false));
    if (input.assigned && this.clients.has(input.assigned))
      send(input.assigned.socket, {
        method: "withdrawn",
        params: { id: -input.id, taskId: input.handedAs ?? input.taskId, request: input.request },
      });
    this.log(
      `mcp-task broker: the server withdrew a question${input.taskId ? ` of task ${input.taskId}` : ""} before it was answered (it stopped waiting for the answer)\n`,
    );
    reject(new Error("question withdrawn"));
  }

  /** The tasks whose questions are held here (those a task's own metadata, or narrowing, made its). */
  heldTasks(): string[] {
    return [...new Set(this.pending.flatMap((input) => (input.taskId === null ? [] : [input.taskId])))];
  }

  /**
   * A task with a question held here waits for input, whatever the server's status says (it may not say so), and
   * its reads carry the questions held for it (V1 lists none of its own): `get`, `respond --template`, a watch's
   * `input` events and the dashboard see them without answering them. They stay held here. An unattributed question
   * the task could have asked is among them, marked (one at a time: see the top of this file).
   */
  heldFor(snapshot: Snapshot): Snapshot {
    if (this.pending.length === 0) return snapshot; // each read and push of every task comes here
    if (snapshot.status !== "working" && snapshot.status !== "input_required") return snapshot;
    const listed = new Set(snapshot.inputRequests.map((request) => request.key));
    const unattributed = this.unattributedFor(snapshot.taskId);
    const held = this.pending
      .filter((input) => input.taskId === snapshot.taskId || input === unattributed)
      .filter((input) => !listed.has(input.request.key))
      .map((input) => input.request);
    if (held.length === 0) return snapshot;
    return { ...snapshot, status: "input_required", inputRequests: [...snapshot.inputRequests, ...held] };
  }

  /** A call made a task: questions asked while it was on its way are this task's. */
  madeTask(call: Promise<unknown>, taskId: string, client: Client): void {
    this.owners.set(taskId, client);
    for (const input of [...this.pending]) {
      if (input.during === call) input.taskId = taskId;
      if (input.calls?.delete(call)) {
        input.candidates!.add(taskId);
        this.narrowed(input);
      }
    }
  }

  /** A call has its reply (a task or not). */
  callEnded(call: Promise<unknown>): void {
    this.calls.delete(call);
    for (const input of [...this.pending]) {
      if (input.during === call) {
        input.during = undefined;
        input.afterCall?.();
      }
      if (input.calls?.delete(call)) this.narrowed(input);
    }
  }

  /**
   * A command asks for a task's input: it owns the task, and may be given what it could not answer before, and the
   * unattributed question the task's reads show, as the task's.
   */
  askedBy(client: Client, taskId: string): void {
    this.owners.set(taskId, client);
    for (const input of this.pending) if (input.taskId === taskId) (input.refused.delete(client), this.assign(input));
    const unattributed = this.unattributedFor(taskId);
    if (unattributed && !(unattributed.assigned && this.clients.has(unattributed.assigned))) {
      unattributed.refused.delete(client);
      this.handTo(unattributed, client, taskId);
    }
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
    if (!this.wire.capabilities.handsQuestionsOnce) return refuse();
    // The command cannot answer (no --input, an answer that does not fit, Esc, --detach): the question stays
    // here for the next command that asks for the task's input; the server is not told anything.
    input.refused.add(client);
    input.assigned = undefined;
    if (!input.during) return this.assign(input);
    // Asked while its call was on its way: kept once the call has made a task; a call whose reply the server holds
    // back for this answer is the server's to hear about (refused, so the call gets its reply); a call that ended
    // without a task leaves it nobody's here (unclaimed: it may be another session's). Decided when the broker has
    // handled the reply (callEnded, after madeTask), not when the call's promise settles: that comes first, and a
    // question decided then would be taken as nobody's for a task made a moment later.
    let decided = false;
    input.afterCall = () => {
      if (decided) return;
      decided = true;
      input.afterCall = undefined;
      if (input.taskId !== null) this.assign(input);
      else if (input.during) refuse();
      else this.unclaimed(input, "during a call that ended without a task, and its command could not answer it");
    };
    void this.clock.sleep(this.heldCallQuestionMs).then(() => input.afterCall?.());
  }

  /** A command went away: its tasks have no owner, and the questions it did not answer wait for the next one. */
  left(client: Client): void {
    for (const [taskId, owner] of this.owners) if (owner === client) this.owners.delete(taskId);
    for (const input of this.pending) if (input.assigned === client) input.assigned = undefined;
  }
}
