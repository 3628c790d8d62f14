// A question a broker holds (V1 hands each over once: the broker keeps it, and every read of its task carries it, see
// questions.ts heldFor) goes to a command whole once; after that, each read and push of the task that still carries
// the same question carries only a stub of it ({key, method, sent: true}), which the command's side puts back from
// what it was sent. A question is as big as the server makes it (a 5 MB sampling request was sent whole, written
// and parsed on each side, on every read: 200 ms apart, for as long as a person took to answer). Either form may
// carry who holds the question, where another command does (holders.ts): a mark of the moment, put on what the
// command is given, never kept with the question.
//
// Both sides keep, per task, the questions of the last snapshot of it on the connection (the broker: as objects,
// by identity; the command: by key), and change them with each snapshot of the task, in the order the one socket
// carries them: a stub always names a question the other side holds.
import type { InputRequest, Snapshot } from "../protocol/wire.js";

/** A question the command was sent whole in the last snapshot of its task. */
interface Stub {
  key: string;
  method: string;
  sent: true;
}

const isStub = (request: InputRequest | Stub): request is Stub => (request as Stub).sent === true;

/**
 * The broker's side, one per command connected: what it was sent whole, by key, per task (the questions of the
 * task's last snapshot, and those handed over since) and without a task (handed over while a call was on its way).
 */
export class SentQuestions {
  private readonly last = new Map<string, Map<string, InputRequest>>();
  private readonly loose = new Map<string, InputRequest>();

  private has(taskId: string | null, request: InputRequest): boolean {
    const sent = (taskId === null ? undefined : this.last.get(taskId)?.get(request.key)) ?? this.loose.get(request.key);
    return sent === request;
  }

  /** The snapshot as this command is sent it now (stubs for the questions it has), recorded as sent. */
  snapshot(snapshot: Snapshot): Snapshot {
    const { taskId, inputRequests } = snapshot;
    if (inputRequests.length === 0) {
      if (this.last.size > 0) this.last.delete(taskId);
      return snapshot; // each read and push of every task comes here
    }
    let stubs = false;
    const sent = inputRequests.map((request) =>
      this.has(taskId, request) ? ((stubs = true), stub(request)) : request,
    );
    for (const request of inputRequests) this.loose.delete(request.key);
    this.last.set(taskId, new Map(inputRequests.map((request) => [request.key, request])));
    return stubs ? { ...snapshot, inputRequests: sent as InputRequest[] } : snapshot;
  }

  /** A question handed to the command (an `input` message): a stub where it has it, else whole (and recorded). */
  request(taskId: string | null, request: InputRequest): InputRequest {
    if (this.has(taskId, request)) return stub(request) as unknown as InputRequest;
    if (taskId === null) this.loose.set(request.key, request);
    else this.last.set(taskId, new Map(this.last.get(taskId)).set(request.key, request));
    return request;
  }
}

function stub(request: InputRequest): Stub {
  return { key: request.key, method: request.method, sent: true };
}

/** The command's side, as the broker's: the questions sent whole, to put the stubs back from. */
export class ReceivedQuestions {
  private readonly last = new Map<string, Map<string, InputRequest>>();
  private readonly loose = new Map<string, InputRequest>();

  private find(taskId: string | null, key: string): InputRequest | undefined {
    return (taskId === null ? undefined : this.last.get(taskId)?.get(key)) ?? this.loose.get(key);
  }

  /** The snapshot with its stubs put back; undefined where a stub names nothing sent (the broker broke the rule). */
  snapshot(snapshot: Snapshot): Snapshot | undefined {
    const { taskId, inputRequests } = snapshot;
    if (inputRequests.length === 0) {
      if (this.last.size > 0) this.last.delete(taskId);
      return snapshot;
    }
    let changed = false;
    const whole: InputRequest[] = [];
    const shown: InputRequest[] = [];
    for (const request of inputRequests as Array<InputRequest | Stub>) {
      // Who holds it (the broker's mark of the moment, on a stub or the whole) is no part of the question kept.
      const { heldBy, ...sent } = request as (InputRequest | Stub) & { heldBy?: InputRequest["heldBy"] };
      const found = isStub(request) ? this.find(taskId, request.key) : heldBy ? (sent as InputRequest) : request;
      if (!found) return undefined;
      if (isStub(request) || heldBy) changed = true;
      whole.push(found);
      shown.push(heldBy ? { ...found, heldBy } : found);
    }
    for (const request of whole) this.loose.delete(request.key);
    this.last.set(taskId, new Map(whole.map((request) => [request.key, request])));
    return changed ? { ...snapshot, inputRequests: shown } : snapshot;
  }

  /** A question handed over, put back where it is a stub (undefined where that names nothing sent). */
  request(taskId: string | null, request: InputRequest | Stub): InputRequest | undefined {
    if (isStub(request)) return this.find(taskId, request.key);
    if (taskId === null) this.loose.set(request.key, request);
    else this.last.set(taskId, new Map(this.last.get(taskId)).set(request.key, request));
    return request;
  }
}
