// The one queue of questions for a person (src/ask/queue.ts) as the line prompt asks it (src/ask/line-prompt.ts):
// questions that arrive together are asked one at a time in the order asked, none lost; one withdrawn while it is
// being asked is said so and the next is asked. In-process: the prompt's stdin and stderr are streams here.
import { PassThrough } from "node:stream";
import { expect, it } from "vitest";
import type { IO } from "../../src/context.js";
import { linePrompt } from "../../src/ask/line-prompt.js";
import { InterruptedError } from "../../src/errors.js";
import type { InputRequest, InputResponse } from "../../src/protocol/wire.js";
import { until } from "../helpers/until.js";

function promptIO() {
  const stdin = new PassThrough();
  const out = { stderr: "" };
  const io: IO = {
    stdout: { write: () => true },
    stderr: { write: (s: string | Uint8Array) => (out.stderr += String(s)) },
    stdin,
    stdinIsTTY: false,
    stdoutIsTTY: false,
    stderrIsTTY: false,
    color: false,
    interactive: true,
  };
  return { io, stdin, out };
}

const question = (key: string, field: string): InputRequest => ({
  key,
  method: "elicitation/create",
  params: {
    message: `tell me your ${field}`,
    requestedSchema: { type: "object", properties: { [field]: { type: "string" } }, required: [field] },
  },
});

it("questions that come together are asked one at a time, in order, and each gets its own answer", async () => {
  const { io, stdin, out } = promptIO();
  const provider = linePrompt(io);
  const answers: Promise<InputResponse>[] = [
    provider.answer(question("q1", "name"), "task-one", undefined),
    provider.answer(question("q2", "city"), "task-two", undefined),
  ];
  // Only the first is on screen until it is answered.
  await until(() => out.stderr.includes("[A/d/c] "), { what: "the first question" });
  expect(out.stderr).toContain("tell me your name");
  expect(out.stderr).not.toContain("tell me your city");
  stdin.write("a\n");
  await until(() => out.stderr.includes("› name"), { what: "the name field" });
  stdin.write("Ada\n");
  await expect(answers[0]).resolves.toEqual({ action: "accept", content: { name: "Ada" } });
  await until(() => out.stderr.includes("tell me your city"), { what: "the second question" });
  expect(out.stderr).toContain("(task task-two)");
  await until(() => out.stderr.split("[A/d/c] ").length === 3, { what: "the second prompt" });
  stdin.write("d\n");
  await expect(answers[1]).resolves.toEqual({ action: "decline" });
});

it("a question withdrawn while it is asked is said so, its reading stops, and the next one is asked", async () => {
  const { io, stdin, out } = promptIO();
  const provider = linePrompt(io);
  const moved = new AbortController();
  const first = provider.answer(question("q1", "name"), "task-one", moved.signal);
  const second = provider.answer(question("q2", "city"), "task-two", undefined);
  await until(() => out.stderr.includes("[A/d/c] "), { what: "the first question" });
  moved.abort();
  await expect(first).rejects.toThrow("question withdrawn");
  await until(() => out.stderr.includes("tell me your city"), { what: "the second question" });
  expect(out.stderr).toContain("a question was withdrawn: the task moved on");
  await until(() => out.stderr.split("[A/d/c] ").length === 3, { what: "the second prompt" });
  // What is typed now answers the second question, not the withdrawn one.
  stdin.write("c\n");
  await expect(second).resolves.toEqual({ action: "cancel" });
});

it("Ctrl-C while a question is asked stops it without saying the task moved on (it did not)", async () => {
  const { io, out } = promptIO();
  const provider = linePrompt(io);
  const stop = new AbortController();
  const asked = provider.answer(question("q1", "name"), "task-one", stop.signal);
  await until(() => out.stderr.includes("[A/d/c] "), { what: "the question" });
  stop.abort(new InterruptedError("interrupted"));
  await expect(asked).rejects.toThrow("question withdrawn");
  expect(out.stderr).not.toContain("withdrawn");
});
