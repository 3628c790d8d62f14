// A 2025-11-25 ("V1") task's questions are shown to scripts and people as V2's are: an `input` event (and the text
// `asks:` line) whenever a question is handed to the command, answered, declined or refused (exit 6 after the
// event); `get` and `respond --template` show the question its broker (stdio) or the session's keeper (HTTP) holds,
// without answering it. Against the server on the official SDK's v1 line (test/servers/sdk-v1-server.ts), over
// stdio and Streamable HTTP; each later step is a new command, run in-process (the question is held by a broker or
// the session's keeper, a process either way).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { events, tempHome } from "../helpers/cli.js";
import { runInProcess } from "../helpers/context.js";
import { sdkV1Transports } from "../helpers/servers.js";
import { until } from "../helpers/until.js";

const FORM = {
  type: "object",
  properties: { name: { type: "string", title: "Name" }, count: { type: "integer", title: "Count", minimum: 1 } },
  required: ["name", "count"],
};

const { transports } = sdkV1Transports();

type Event = Record<string, unknown> & { type: string };

/** The answer the SDK server put in its result: {"item", "action", "content"}. */
async function answerIn(home: string, taskId: string): Promise<Record<string, unknown>> {
  const result = await runInProcess(["result", taskId, "--json"], { home });
  expect(result.code, result.stderr).toBe(0);
  const last = events(result.stdout).at(-1) as { result: { content: Array<{ text: string }> } };
  return JSON.parse(last.result.content[0].text) as Record<string, unknown>;
}

describe.each(transports)("V1 questions shown, over $name", ({ server }) => {
  it("call --json without an answer: an input event with the form, then exit 6; get and respond --template show it; respond --input @file completes", async () => {
    const home = tempHome();
    const call = await runInProcess(["call", "confirm", "item=shown", ...server(), "--json"], { home });
    expect(call.code, call.stderr).toBe(6);
    const out = events(call.stdout) as Event[];
    const taskId = String(out[0].taskId);
    const input = out.find((event) => event.type === "input");
    expect(input, call.stdout).toMatchObject({
      taskId,
      key: expect.stringMatching(/^v1:/),
      request: { method: "elicitation/create", params: { message: "Confirm shown", requestedSchema: FORM } },
    });
    expect(out.filter((event) => event.type === "input")).toHaveLength(1);
    // The event comes before the refusal.
    expect(out.findIndex((event) => event.type === "input")).toBeLessThan(
      out.findIndex((event) => event.type === "error"),
    );
    expect(out.at(-1)).toMatchObject({ type: "error", exitCode: 6, code: "input_required" });

    // A later watch with no answer (a new process): the held question once, then exit 6; it stays held.
    const watched = await runInProcess(["watch", taskId, "--json"], { home });
    expect(watched.code, watched.stderr).toBe(6);
    const again = (events(watched.stdout) as Event[]).filter((event) => event.type === "input");
    expect(again).toEqual([input]);

    const got = await runInProcess(["get", taskId], { home });
    expect(got.code, got.stderr).toBe(0);
    expect(got.stdout).toMatch(new RegExp(`asks \\(${String(input!.key)}\\): Confirm shown`));
    const gotJson = JSON.parse((await runInProcess(["get", taskId, "--json"], { home })).stdout) as Record<
      string,
      unknown
    >;
    expect(gotJson.inputRequests).toEqual([
      { key: input!.key, method: "elicitation/create", message: "Confirm shown" },
    ]);

    const template = await runInProcess(["respond", "--template", taskId], { home });
    expect(template.code, template.stderr).toBe(0);
    expect(JSON.parse(template.stdout)).toEqual({ name: "", count: 0 });
    expect(template.stderr).toMatch(/question: Confirm shown/);
    expect(template.stderr).toMatch(/name: string, required/);
    expect(template.stderr).toMatch(/count: integer, required/);
    // Reading the template answered nothing: the question is still there for the next one.
    expect((await runInProcess(["respond", "--template", taskId], { home })).code).toBe(0);

    const file = join(home, "answer.json");
    writeFileSync(file, JSON.stringify({ ...JSON.parse(template.stdout), name: "Ann", count: 3 }));
    const responded = await runInProcess(["respond", taskId, "--input", `@${file}`], { home });
    expect(responded.code, responded.stderr).toBe(0);
    expect(await answerIn(home, taskId)).toEqual({
      item: "shown",
      action: "accept",
      content: { name: "Ann", count: 3 },
    });
  });

  it("call with --input: the input event (and the text asks: line), then the answer completes the task", async () => {
    const home = tempHome();
    const call = await runInProcess(
      ["call", "confirm", "item=given", ...server(), "--input", '{"name":"Bo","count":1}', "--json"],
      {
        home,
      },
    );
    expect(call.code, call.stderr).toBe(0);
    const inputs = (events(call.stdout) as Event[]).filter((event) => event.type === "input");
    expect(inputs).toHaveLength(1);
    expect(inputs[0]).toMatchObject({ request: { params: { message: "Confirm given" } } });
    const text = await runInProcess(["call", "confirm", "item=text", ...server(), "--decline"], { home });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stderr).toMatch(/asks: Confirm text$/m);
  });

  it("a sampling request: its input event, then exit 6", async () => {
    const home = tempHome();
    const call = await runInProcess(["call", "sample", "prompt=hello", ...server(), "--json"], { home });
    expect(call.code, call.stderr).toBe(6);
    const input = (events(call.stdout) as Event[]).find((event) => event.type === "input");
    expect(input, call.stdout).toMatchObject({
      key: expect.stringMatching(/^v1:/),
      request: { method: "sampling/createMessage" },
    });
  });

  it("--detach, then respond --template: the question the broker holds (it reads the task's end, so the question comes to it)", async () => {
    const home = tempHome();
    const call = await runInProcess(["call", "confirm", "item=later", ...server(), "--detach"], { home });
    expect(call.code, call.stderr).toBe(0);
    const taskId = call.stdout.trim();
    // The broker asks for the task's result as soon as it holds the task, and the server hands the question over
    // there: it is held for the template within moments, with nobody attached. Before it has come, the template
    // says none is held, with a hint that fetches it.
    const template = await until(
      async () => {
        const run = await runInProcess(["respond", "--template", taskId], { home });
        if (run.code === 0) return run;
        expect(run.code, run.stderr).toBe(6);
        expect(run.stderr).toMatch(/no question of task \S+ is held/);
        expect(run.stderr).toMatch(new RegExp(`^hint: fetch it with: mcp-task watch ${taskId} </dev/null`, "m"));
        return undefined;
      },
      { everyMs: 100, what: "the question held for the template" },
    );
    expect(template.code, template.stderr).toBe(0);
    expect(JSON.parse(template.stdout)).toEqual({ name: "", count: 0 });
    const watched = await runInProcess(["watch", taskId, "--json"], { home });
    expect(watched.code, watched.stderr).toBe(6);
    expect((events(watched.stdout) as Event[]).some((event) => event.type === "input")).toBe(true);
  });
});
