// Sampling answered by a person or ahead of time, against real servers: server-everything's
// trigger-sampling-request (a plain call that samples; registered only for a client that declared sampling) and the
// SDK v1 server's `sample` task tool (test/servers/sdk-v1-server.ts: it samples during its task, with the
// related-task metadata, and puts the reply it got in its result). The capability is read from the initialize
// request in a --trace file.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runProgram } from "../../src/cli.js";
import { cliEnv, events, tempHome } from "../helpers/cli.js";
import { runInProcess, testContext } from "../helpers/context.js";
import { linesRead } from "../../src/broker/protocol.js";
import { everythingStdio, ROOT, startListening, startV2Http, type RunningServer } from "../helpers/servers.js";

const SDK_V1_SERVER = join(ROOT, "dist/test-servers/sdk-v1-server.js");
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f\x9b]/;

/** The capabilities mcp-task declared in the initialize request(s) a --trace=FILE recorded. */
function declared(traceFile: string): Array<Record<string, unknown>> {
  return readFileSync(traceFile, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { dir: string; message?: { method?: string; params?: Record<string, unknown> } })
    .filter((event) => event.dir === "out" && event.message?.method === "initialize")
    .map((event) => event.message!.params!.capabilities as Record<string, unknown>);
}

/** The answer the SDK server put in the task's result: {"item": prompt, "action", "content": the reply it got}. */
async function sampledIn(home: string, taskId: string): Promise<Record<string, unknown>> {
  const result = await runInProcess(["result", taskId, "--json"], { home });
  expect(result.code, result.stderr).toBe(0);
  const last = events(result.stdout).at(-1) as { result: { content: Array<{ text: string }> } };
  return JSON.parse(last.result.content[0].text) as Record<string, unknown>;
}

async function newestTask(home: string): Promise<string> {
  const rows = JSON.parse((await runInProcess(["list", "--json"], { home })).stdout) as Array<{ taskId: string }>;
  expect(rows.length).toBeGreaterThan(0);
  return rows[0].taskId;
}

// The groups run side by side (each on server processes of its own; over HTTP the SDK v1 server is the sampling
// group's alone until it is done), each group's tests one after another (`serial`); the big question after them, alone:
// it counts what this process reads.
const serial = it.sequential;

describe("server-everything: a plain call that samples", { timeout: 60_000, concurrent: true }, () => {
  serial("--sampling-reply: the server gets exactly that reply; sampling is declared", async () => {
    const home = tempHome();
    const trace = join(home, "trace.ndjson");
    const run = await runInProcess(
      [
        `--trace=${trace}`,
        "call",
        "trigger-sampling-request",
        "prompt=hi",
        "--no-task",
        "--stdio",
        everythingStdio,
      ].concat(["--sampling-reply", "Tasks wait; then they finish.", "--sampling-model", "ada"]),
      { home },
    );
    expect(run.code, run.stderr).toBe(0);
    const got = JSON.parse(run.stdout.slice(run.stdout.indexOf("{"))) as Record<string, unknown>;
    expect(got).toEqual({
      role: "assistant",
      content: { type: "text", text: "Tasks wait; then they finish." },
      model: "ada",
      stopReason: "endTurn",
    });
    expect(declared(trace)).toEqual([{ elicitation: { form: {}, url: {} }, sampling: {} }]);
  });

  serial(
    "no reply and nobody to ask: sampling is not declared, and the server does without (no sampling tool)",
    async () => {
      const home = tempHome();
      const trace = join(home, "trace.ndjson");
      const tools = await runInProcess([`--trace=${trace}`, "tools", "--stdio", everythingStdio, "--json"], { home });
      expect(tools.code, tools.stderr).toBe(0);
      expect(tools.stdout).not.toContain("trigger-sampling-request");
      const call = await runInProcess(
        [`--trace=${trace}`, "call", "trigger-sampling-request", "prompt=hi", "--no-task", "--stdio", everythingStdio],
        { home },
      );
      expect(call.code).toBe(2);
      expect(call.stderr).toMatch(/has no tool named trigger-sampling-request/);
      expect(declared(trace)).toEqual([{ elicitation: { form: {}, url: {} } }, { elicitation: { form: {}, url: {} } }]);
    },
  );

  serial(
    "the line prompt (a person, stdout not a terminal): the request shown clean, the typed reply sent",
    async () => {
      const home = tempHome();
      const ctx = await testContext(home, { input: "My own reply\n", env: cliEnv(home) });
      (ctx.io as { interactive: boolean }).interactive = true; // a person at the keyboard, stdout not a terminal
      const prompt = "haiku\u001b[2J\u001b]0;owned\u0007 now\u202e";
      const argv = ["call", "trigger-sampling-request", `prompt=${prompt}`, "--no-task", "--stdio", everythingStdio];
      const code = await runProgram(ctx, [process.execPath, "mcp-task", ...argv]);
      expect(code, ctx.out.stderr).toBe(0);
      expect(ctx.out.stderr).toContain("asks for a model's reply (sampling) to 1 message");
      expect(ctx.out.stderr).toContain("[user] Resource trigger-sampling-request context: haiku now");
      expect(ctx.out.stderr).toContain("system prompt: You are a helpful test server.");
      expect(ctx.out.stderr).toContain("at most 100 tokens");
      expect(ctx.out.stderr).not.toMatch(CONTROL);
      expect(ctx.out.stderr).not.toContain("\u202e");
      expect(ctx.out.stdout).toContain('"text": "My own reply"');
      expect(ctx.out.stdout).toContain('"model": "human"');
    },
  );
});

let http: RunningServer;
let v2: RunningServer;
beforeAll(async () => {
  [http, v2] = await Promise.all([
    startListening([SDK_V1_SERVER, "--port", "0"], "sdk v1 server"),
    startV2Http("--poll-interval", "200"),
  ]);
});
afterAll(async () => {
  await Promise.all([http?.stop(), v2?.stop()]);
});

const transports = [
  { name: "stdio", server: () => ["--stdio", `node ${SDK_V1_SERVER} --stdio`] },
  { name: "Streamable HTTP", server: () => ["-s", http.url] },
];

describe.each(transports)(
  "SDK v1 server over $name: sampling during a task",
  { timeout: 90_000, concurrent: true },
  ({ server }) => {
    serial("CI with --sampling-reply completes, and the server got exactly that reply", async () => {
      const home = tempHome();
      const trace = join(home, "trace.ndjson");
      const reply = "Line one\nline two: 'quoted' $HOME";
      // MCP_TASK_TRACE: the broker that runs a stdio server traces its own connection too.
      const run = await runInProcess(
        ["call", "sample", "prompt=two lines please", ...server(), "--sampling-reply", reply],
        {
          home,
          env: { MCP_TASK_TRACE: trace },
        },
      );
      expect(run.code, run.stderr).toBe(0);
      const taskId = await newestTask(home);
      expect(await sampledIn(home, taskId)).toEqual({
        item: "two lines please",
        action: "sampled",
        content: { role: "assistant", content: { type: "text", text: reply }, model: "human", stopReason: "endTurn" },
      });
      // Over stdio the broker's own connection made the handshake; over HTTP this command did (the keeper resumes).
      expect(declared(trace)).toEqual([{ elicitation: { form: {}, url: {} }, sampling: {} }]);
    });

    serial(
      "no reply in a pipeline: exit 6 with the question kept; a later respond --sampling-reply @file completes",
      async () => {
        const home = tempHome();
        const call = await runInProcess(["call", "sample", "prompt=later", ...server()], { home });
        expect(call.code, call.stderr).toBe(6);
        expect(call.stderr).toMatch(/--sampling-reply TEXT/);
        const taskId = await newestTask(home);
        const file = join(home, "reply.txt");
        writeFileSync(file, "From a file\n");
        const responded = await runInProcess(["respond", taskId, "--sampling-reply", `@${file}`], { home });
        expect(responded.code, responded.stderr).toBe(0);
        const got = await sampledIn(home, taskId);
        expect(got.content).toMatchObject({ content: { type: "text", text: "From a file" }, model: "human" });
      },
    );

    serial("declined: the server gets the spec's error (-1, user rejected) and the task fails", async () => {
      const home = tempHome();
      const call = await runInProcess(["call", "sample", "prompt=no", ...server()], { home });
      expect(call.code, call.stderr).toBe(6);
      const taskId = await newestTask(home);
      const watched = await runInProcess(["watch", taskId, "--decline", "--json"], { home });
      expect(watched.code, watched.stderr).toBe(1);
      expect(watched.stdout).toMatch(/User rejected sampling request/);
    });
  },
);

describe("SDK v1 server over Streamable HTTP: a big sampling question", { timeout: 120_000 }, () => {
  // The question (the prompt, twice: a message and the system prompt) is held by the session's broker; each read of
  // the task carries it. It must reach the command once, not on every read (nor go back with every read).
  it("CI without a reply: exit 6 at once, the question read from the broker once; respond then answers it", async () => {
    const home = tempHome();
    const prompt = "word ".repeat(400_000); // 2 MB; the question is about 4 MB
    const question = 2 * prompt.length;
    const before = linesRead.chars;
    const call = await runInProcess(["call", "sample", "--args", JSON.stringify({ prompt }), "-s", http.url], { home });
    expect(call.code, call.stderr.slice(0, 2000)).toBe(6);
    expect(call.stderr).toMatch(/--sampling-reply TEXT/);
    const read = linesRead.chars - before;
    expect(read).toBeGreaterThan(question);
    expect(read).toBeLessThan(1.5 * question);
    const taskId = await newestTask(home);
    // Its reads carry the question whole once, then as a stub the command puts back (the question handed over too).
    const responded = await runInProcess(["respond", taskId, "--sampling-reply", "short"], { home });
    expect(responded.code, responded.stderr.slice(0, 2000)).toBe(0);
    const got = await sampledIn(home, taskId);
    expect(got.content).toMatchObject({ content: { type: "text", text: "short" }, model: "human" });
  });
});

/** The client capabilities of every request of `method` in a --trace file (V2: each request's `_meta` says them). */
function declaredOn(traceFile: string, method: string): Array<Record<string, unknown>> {
  return readFileSync(traceFile, "utf8")
    .split("\n")
    .filter(Boolean)
    .map(
      (line) =>
        JSON.parse(line) as {
          dir: string;
          message?: { method?: string; params?: { _meta?: Record<string, Record<string, unknown>> } };
        },
    )
    .filter((event) => event.dir === "out" && event.message?.method === method)
    .map((event) => event.message!.params!._meta!["io.modelcontextprotocol/clientCapabilities"]!);
}

describe(
  "V2 test server: a sampling request among a task's inputRequests",
  { timeout: 90_000, concurrent: true },
  () => {
    serial(
      "no reply: exit 6, the question kept; --decline cannot; respond --sampling-reply completes; declared only where served",
      async () => {
        const home = tempHome();
        const trace = join(home, "trace.ndjson");
        const call = await runInProcess([`--trace=${trace}`, "call", "task_sampling", "text=hi", "-s", v2.url], {
          home,
        });
        expect(call.code, call.stderr).toBe(6);
        expect(call.stderr).toMatch(/^hint: mcp-task respond .*--sampling-reply TEXT/m);
        // A task call declares it (its question stays with the server for a later command); `get` answers nothing.
        for (const capabilities of declaredOn(trace, "tools/call")) expect(capabilities).toHaveProperty("sampling");
        const taskId = await newestTask(home);
        const got = await runInProcess([`--trace=${trace}`, "get", taskId], { home });
        expect(got.code, got.stderr).toBe(0);
        expect(declaredOn(trace, "tasks/get").at(-1)).not.toHaveProperty("sampling");
        const declined = await runInProcess(["respond", taskId, "--decline"], { home });
        expect(declined.code).toBe(6);
        expect(declined.stderr).toMatch(/cannot be declined/);
        const responded = await runInProcess([`--trace=${trace}`, "respond", taskId, "--sampling-reply", "From V2"], {
          home,
        });
        expect(responded.code, responded.stderr).toBe(0);
        for (const capabilities of declaredOn(trace, "tasks/update")) expect(capabilities).toHaveProperty("sampling");
        const result = await runInProcess(["result", taskId, "--json"], { home });
        const last = events(result.stdout).at(-1) as { result: { content: Array<{ text: string }> } };
        expect(JSON.parse(last.result.content[0].text)).toEqual({
          role: "assistant",
          content: { type: "text", text: "From V2" },
          model: "human",
          stopReason: "endTurn",
        });
      },
    );
  },
);
