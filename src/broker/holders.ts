// Who holds a question: a question the broker holds goes to one command attached (questions.ts); another command
// following the same task (a second `watch`, the dashboard while a `watch` asks at a terminal) is sent it marked with
// who that command said it is (InputRequest.heldBy, from its hello: hello.ts holderOf), so that it neither asks a
// person nor answers it, and says where it is asked. Once that command leaves without an answer, the next read
// carries the question unmarked, and the command that asks for the task's input is handed it.
import type { Snapshot } from "../protocol/wire.js";
import type { Client } from "./attached.js";
import type { PendingInput } from "./questions.js";

/** Marks, on what `client` is sent, each held question handed to another command attached (`clients`). */
export type Holders = (client: Client, snapshot: Snapshot) => Snapshot;

/** The Holders of a broker's held questions (Questions.pending) and the commands attached to it. */
export function holdersOf(pending: readonly PendingInput[], clients: ReadonlySet<Client>): Holders {
  return (client, snapshot) => {
    if (pending.length === 0 || snapshot.inputRequests.length === 0) return snapshot; // every read and push comes here
    const { taskId } = snapshot;
    let marked = false;
    const requests = snapshot.inputRequests.map((request) => {
      // By key (a stub is a copy): the one held for this task, or the unattributed one it is shown.
      const held = pending.find(
        (input) => input.request.key === request.key && (input.taskId === taskId || input.candidates?.has(taskId)),
      );
      const holder = held?.assigned;
      if (!holder || holder === client || !clients.has(holder)) return request;
      marked = true;
      return { ...request, heldBy: { ...holder.who } };
    });
    return marked ? { ...snapshot, inputRequests: requests } : snapshot;
  };
}

/** A snapshot as `client` is sent it: the held questions it has as stubs (sent-questions.ts), then those another
 *  command holds marked (here: by key, after the stubs: a marked copy is not the question stubs are kept by). */
export function sentTo(client: Client, snapshot: Snapshot, holders?: Holders): Snapshot {
  const sent = client.sentQuestions ? client.sentQuestions.snapshot(snapshot) : snapshot;
  return holders ? holders(client, sent) : sent;
}
