// Who holds a question, as a broker tells the other commands following its task (src/broker/holders.ts): a held
// question handed to one command attached is marked, on what every other command is sent, with who that command said
// it is as it attached (hello.ts holderOf); never on what it is sent itself, and no more once it has left (the
// question then goes to the next command that asks for the task's input). With stand-in sockets, as
// unattributed-questions.test.ts: test/tty/question-held-by-another.test.ts walks it with real processes.
import { expect, it } from "vitest";
import type { Client } from "../../src/broker/attached.js";
import { holderOf } from "../../src/broker/hello.js";
import { holdersOf, sentTo } from "../../src/broker/holders.js";
import { Questions } from "../../src/broker/questions.js";
import { ReceivedQuestions, SentQuestions } from "../../src/broker/sent-questions.js";
import { MAX_HOLDER_COMMAND_CHARS } from "../../src/limits.js";
import type { InputRequest, InputResponse, Snapshot } from "../../src/protocol/wire.js";

type Sent = { id?: number; method?: string; params?: { request: InputRequest; taskId: string | null } };

function command(said: Record<string, unknown> = {}): Client & { sent: Sent[] } {
  const sent: Sent[] = [];
  const socket = { write: (line: string) => (sent.push(JSON.parse(line)), true), destroyed: false, writable: true };
  return { socket: socket as never, watching: new Set(), sent, who: holderOf(said) };
}

const QUESTION: InputRequest = { key: "v1:0", method: "elicitation/create", params: { message: "Confirm held" } };
const working: Snapshot = { taskId: "T1", status: "working", inputRequests: [] };
const ACCEPT: InputResponse = { action: "accept", content: { name: "Bo", count: 1 } };

function broker(...commands: Client[]) {
  const clients = new Set(commands);
  const clock = { now: () => 0, sleep: () => new Promise<void>(() => {}) };
  const questions = new Questions(
    { capabilities: { handsQuestionsOnce: true } } as never,
    clients,
    clock as never,
    () => {},
    () => ["T1"],
  );
  const holders = holdersOf(questions.pending, clients);
  /** The task's read as `client` is sent it (the broker's held question on it, marked where another holds it). */
  const readBy = (client: Client) => sentTo(client, questions.heldFor(working), holders);
  return { clients, questions, readBy };
}

const inputs = (client: { sent: Sent[] }) => client.sent.filter((m) => m.method === "input");

it("a question handed to one command is marked, on what another is sent, with who it said it is; not on its own", async () => {
  const watch = command({ pid: 1234, command: "mcp-task watch ab12cd34" });
  const dashboard = command({ pid: 5678, command: "mcp-task dashboard" });
  const { clients, questions, readBy } = broker(watch, dashboard);
  const asked = questions.ask(QUESTION, "T1");

  // Held, handed to nobody yet: nobody's mark.
  expect(readBy(dashboard).inputRequests).toEqual([QUESTION]);
  questions.askedBy(watch, "T1");
  expect(inputs(watch)).toHaveLength(1);
  expect(readBy(dashboard)).toMatchObject({
    status: "input_required",
    inputRequests: [{ key: "v1:0", heldBy: { pid: 1234, command: "mcp-task watch ab12cd34" } }],
  });
  expect(readBy(watch).inputRequests[0].heldBy).toBeUndefined();
  // The dashboard asking for the task's input takes nothing from the command that has it.
  questions.askedBy(dashboard, "T1");
  expect(inputs(dashboard)).toHaveLength(0);
  expect(readBy(dashboard).inputRequests[0].heldBy).toEqual({ pid: 1234, command: "mcp-task watch ab12cd34" });

  // The watch leaves without answering: the question is unmarked, and the next to ask is handed it.
  clients.delete(watch);
  questions.left(watch);
  expect(readBy(dashboard).inputRequests[0].heldBy).toBeUndefined();
  questions.askedBy(dashboard, "T1");
  expect(inputs(dashboard)).toHaveLength(1);
  const id = inputs(dashboard)[0] as { id: number };
  questions.answer(dashboard, { id: id.id, result: ACCEPT });
  await expect(asked).resolves.toEqual(ACCEPT);
  expect(readBy(dashboard)).toEqual(working);
});

it("a command of an older build, which said nothing of itself, holds a question marked with nothing known", () => {
  const older = command();
  const other = command({ pid: 99, command: "mcp-task watch T1" });
  const { questions, readBy } = broker(older, other);
  void questions.ask(QUESTION, "T1");
  questions.askedBy(older, "T1");
  expect(readBy(other).inputRequests[0].heldBy).toEqual({});
});

it("through the stubs: the mark rides on a stub and on the whole, is put back with the question, and never kept", () => {
  const watch = command({ pid: 1234, command: "mcp-task watch T1" });
  const second = command({ pid: 4321, command: "mcp-task watch T1" });
  second.sentQuestions = new SentQuestions();
  const received = new ReceivedQuestions();
  const { clients, questions, readBy } = broker(watch, second);
  void questions.ask(QUESTION, "T1");
  questions.askedBy(watch, "T1");
  const held = { pid: 1234, command: "mcp-task watch T1" };

  const first = readBy(second); // whole, marked
  expect(first.inputRequests).toEqual([{ ...QUESTION, heldBy: held }]);
  expect(received.snapshot(first)!.inputRequests).toEqual([{ ...QUESTION, heldBy: held }]);
  const again = readBy(second); // a stub, marked
  expect(again.inputRequests).toEqual([{ key: "v1:0", method: "elicitation/create", sent: true, heldBy: held }]);
  expect(received.snapshot(again)!.inputRequests).toEqual([{ ...QUESTION, heldBy: held }]);

  // Its holder gone: a stub without the mark, put back without it (the mark was never kept with the question).
  clients.delete(watch);
  questions.left(watch);
  const after = readBy(second);
  expect(after.inputRequests).toEqual([{ key: "v1:0", method: "elicitation/create", sent: true }]);
  expect(received.snapshot(after)!.inputRequests).toEqual([QUESTION]);
});

it("who a command says it is: a pid that is one, a command line cut; anything else unknown", () => {
  expect(holderOf({ pid: 1234, command: "mcp-task watch ab12" })).toEqual({
    pid: 1234,
    command: "mcp-task watch ab12",
  });
  const long = holderOf({ pid: 1, command: `mcp-task watch ${"x".repeat(500)}` });
  expect(long.command).toHaveLength(MAX_HOLDER_COMMAND_CHARS);
  for (const pid of ["1234", -1, 0, 1.5, Number.MAX_VALUE, null]) expect(holderOf({ pid })).toEqual({});
  for (const said of [{ command: 42 }, { command: "" }, { command: { toString: "x" } }, {}])
    expect(holderOf(said)).toEqual({});
});
