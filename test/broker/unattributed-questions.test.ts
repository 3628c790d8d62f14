// Whose a question is that a V1 server asks without naming its task (the broker's Questions), as the calls it came
// beside get their replies. The attribution alone, with stand-in sockets: a real server cannot be made to interleave
// two calls' replies with a question at will (test/interop/v1-questions-never-lost.test.ts walks the real flows).
import { expect, it } from "vitest";
import type { Client } from "../../src/broker/attached.js";
import { Questions } from "../../src/broker/questions.js";
import { MAX_UNCLAIMED_QUESTIONS } from "../../src/limits.js";
import type { InputRequest } from "../../src/protocol/wire.js";

type Sent = { method?: string; params?: { request: InputRequest; taskId: string | null } };

function command(): Client & { sent: Sent[] } {
  const sent: Sent[] = [];
  const socket = { write: (line: string) => (sent.push(JSON.parse(line)), true), destroyed: false, writable: true };
  return { socket: socket as never, watching: new Set(), sent };
}

function broker(running: () => string[] = () => []) {
  const a = command();
  const b = command();
  const clock = { now: () => 0, sleep: () => new Promise<void>(() => {}) };
  const questions = new Questions(
    { capabilities: { handsQuestionsOnce: true } } as never,
    new Set([a, b]),
    clock as never,
    () => {},
    running,
  );
  const ask = (signal?: AbortSignal) => {
    const asked = questions.ask(
      { key: "k1", method: "elicitation/create", params: { message: "which?" } },
      null,
      signal,
    );
    asked.catch(() => {});
    return asked;
  };
  const call = (by: Client) => {
    const made = new Promise(() => {});
    questions.calls.set(made, by);
    return made;
  };
  return { a, b, questions, ask, call };
}

const inputs = (client: { sent: Sent[] }) => client.sent.filter((m) => m.method === "input");

it("with one call left on its way, an unattributed question goes to that call's command, not the latest caller's", () => {
  let running: string[] = [];
  const { a, b, questions, ask, call } = broker(() => running);
  call(a); // a slow call on its way
  const fromB = call(b);
  questions.madeTask(fromB, "TB", b);
  questions.callEnded(fromB);
  running = ["TB"];
  void ask();
  expect(inputs(b)).toHaveLength(0);
  expect(inputs(a)).toHaveLength(1);
  expect(inputs(a)[0].params!.request.unattributed).toBe(true);
});

it("two calls on their way: the question waits; once one ends without a task, the other's command is handed it", () => {
  const { a, b, questions, ask, call } = broker();
  call(a);
  const fromB = call(b);
  void ask();
  expect(inputs(a).length + inputs(b).length).toBe(0);
  questions.callEnded(fromB);
  expect(inputs(a)).toHaveLength(1);
  expect(inputs(b)).toHaveLength(0);
});

/** Whether a question's promise has settled, and how (after the microtasks queued so far). */
async function settled(asked: Promise<unknown>): Promise<"pending" | "answered" | string> {
  const state = await Promise.race([
    asked.then(
      () => "answered",
      (error: Error) => error.message,
    ),
    new Promise<string>((resolve) => setImmediate(() => resolve("pending"))),
  ]);
  return state;
}

it("once the calls have ended, the one task that could have asked it has it (unmarked); with none, it is left unanswered", async () => {
  const { a, b, questions, ask, call } = broker();
  const fromA = call(a);
  const fromB = call(b);
  const asked = ask();
  questions.madeTask(fromA, "TA", a);
  questions.callEnded(fromA);
  expect(inputs(b)).toHaveLength(1); // the one call left on its way is b's
  questions.callEnded(fromB);
  expect(questions.heldFor({ taskId: "TA", status: "working", inputRequests: [] }).inputRequests).toHaveLength(1);
  // b keeps it while it is there; gone without an answer, the task's next reader is handed it as the task's.
  questions.left(b);
  questions.askedBy(a, "TA");
  const handed = inputs(a).at(-1)!;
  expect(handed.params).toMatchObject({ taskId: "TA" });
  expect(handed.params!.request.unattributed).toBeUndefined();

  const other = broker();
  const one = other.call(other.a);
  const two = other.call(other.b);
  const nobodys = other.ask();
  other.questions.callEnded(one);
  other.questions.callEnded(two);
  // Nobody's here: no command is handed it, and the server is not answered (it may be another session's).
  expect(await settled(nobodys)).toBe("pending");
  expect(inputs(other.a).length + inputs(other.b).length).toBe(1); // handed to the last call on its way, no more
  expect(other.questions.heldFor({ taskId: "TA", status: "working", inputRequests: [] }).inputRequests).toEqual([]);
  void asked;
});

// A server may send one question to every session and take the first answer (mcp-framework's HTTP Stream): a
// session with nothing running that refused it would answer it for the session whose task asked it.
it("a question outside any task or call is left unanswered until withdrawn; past MAX_UNCLAIMED_QUESTIONS, refused", async () => {
  const { a, b, ask } = broker();
  const withdraw = new AbortController();
  const first = ask(withdraw.signal);
  const rest = Array.from({ length: MAX_UNCLAIMED_QUESTIONS - 1 }, () => ask());
  for (const asked of [first, ...rest]) expect(await settled(asked)).toBe("pending");
  expect(inputs(a).length + inputs(b).length).toBe(0);
  expect(await settled(ask())).toMatch(
    new RegExp(`outside any task or call, and ${MAX_UNCLAIMED_QUESTIONS} questions .* wait unanswered already`),
  );
  // Withdrawn by the server: its place is free again.
  withdraw.abort();
  expect(await settled(first)).toBe("question withdrawn");
  expect(await settled(ask())).toBe("pending");
  expect(await settled(ask())).toMatch(/wait unanswered already/);
});
