// A V1 question its broker has handed to another command (InputRequest.heldBy, src/broker/holders.ts): the engine
// shows it once, marked, asks nobody and answers nothing (no serviceInput, and no "nobody can answer" error where
// nobody here could); once a read carries it unmarked (that command left), it is this watch's as any question.
// The broker's marking is a process's (test/broker/question-holders.test.ts, test/tty/question-held-by-another.test.ts);
// here the engine alone, on the fake clock and a scripted wire, so that the reads it makes are exact.
import { expect, it } from "vitest";
import type { InputRequest, Snapshot } from "../../src/protocol/wire.js";
import { TaskEngine } from "../../src/tasks/engine.js";
import { preparedAnswers, type InputProvider } from "../../src/tasks/input.js";
import { FakeClock, fixedRandom } from "../helpers/fake-clock.js";
import { done, FakeWire, snap } from "../helpers/fake-wire.js";

const QUESTION: InputRequest = { key: "v1:0", method: "elicitation/create", params: { message: "Confirm held" } };
const HOLDER = { pid: 1234, command: "mcp-task watch t1" };
const asking = (heldBy?: typeof HOLDER) =>
  snap("t1", {
    status: "input_required",
    pollIntervalMs: 200,
    inputRequests: [heldBy ? { ...QUESTION, heldBy } : QUESTION],
  });

function setup(input?: InputProvider) {
  const clock = new FakeClock();
  const wire = new FakeWire(clock, { generation: "v1" });
  const engine = new TaskEngine(wire, clock, input, fixedRandom(0.5));
  const shown: InputRequest[][] = [];
  const watch = async () => {
    const seen: Snapshot[] = [];
    const run = (async () => {
      for await (const snapshot of engine.watch("t1", {
        push: false,
        answerInput: true,
        onInput: (_taskId, requests) => shown.push(requests),
      }))
        seen.push(snapshot);
    })();
    await clock.runUntil(run);
    return seen;
  };
  return { wire, watch, shown };
}

it("held elsewhere: shown once, marked; not answered until a read carries it unmarked, then answered here", async () => {
  const { wire, watch, shown } = setup(preparedAnswers({ input: { name: "Bo", count: 1 } }));
  wire.onGet("t1", asking(HOLDER), asking(HOLDER), asking(HOLDER), asking(), done("t1"));
  // Asked for the task's input once, on the read that carries it unmarked (t=600), never before.
  wire.onServiceInput("t1", []);
  const seen = await watch();
  expect(wire.times("getTask")).toEqual([0, 200, 400, 600, 800]); // fake-clock: each read at the pace asked
  expect(wire.times("serviceInput")).toEqual([600]); // fake-clock: only once its holder had left
  expect(shown).toEqual([[{ ...QUESTION, heldBy: HOLDER }]]);
  // Its holder leaving is a change the watch yields (a dashboard's row stops saying it is held elsewhere).
  expect(seen.map((s) => s.inputRequests[0]?.heldBy)).toEqual([HOLDER, undefined, undefined]);
  wire.verify();
});

it("held elsewhere where nobody here could answer: no error, the watch follows the task to its end", async () => {
  const { wire, watch, shown } = setup(preparedAnswers({}));
  wire.onGet("t1", asking(HOLDER), asking(HOLDER), done("t1"));
  const seen = await watch();
  expect(seen.map((s) => s.status)).toEqual(["input_required", "completed"]);
  expect(wire.times("serviceInput")).toEqual([]);
  expect(shown).toHaveLength(1);
  wire.verify();
});

it("shown before it was handed elsewhere: shown once more, with its mark", async () => {
  const { wire, watch, shown } = setup(preparedAnswers({}));
  // Unmarked first, where nobody here can answer: that is the "nobody can answer" error, as before.
  wire.onGet("t1", asking(), done("t1"));
  await expect(watch()).rejects.toThrow(/Confirm held/);
  expect(shown).toEqual([[QUESTION]]);

  const other = setup(preparedAnswers({ input: { name: "Bo", count: 1 } }));
  other.wire.onGet("t1", asking(), asking(HOLDER), asking(HOLDER), done("t1"));
  other.wire.onServiceInput("t1", []);
  await other.watch();
  expect(other.wire.times("serviceInput")).toEqual([0]); // fake-clock: asked on the unmarked read only
  expect(other.shown).toEqual([[QUESTION], [{ ...QUESTION, heldBy: HOLDER }]]);
  other.wire.verify();
});
