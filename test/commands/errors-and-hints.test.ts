// Bad input gets one clear error line and its documented exit code, and a hint names a command that can work: the
// server option repeated as it was given, the option that fits the question asked, no stack trace, no body dump.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { events, runCli, startCli, tempHome } from "../helpers/cli.js";
import { runInProcess } from "../helpers/context.js";
import { until } from "../helpers/until.js";
import { brokerPaths } from "../../src/broker/paths.js";
import type { IO } from "../../src/context.js";
import type { InputRequest } from "../../src/protocol/wire.js";
import { askSampling } from "../../src/ask/sampling-prompt.js";
import {
  freePort,
  ROOT,
  SDK_V1_SERVER,
  startEverythingHttp,
  startListening,
  startV2Http,
  v2Stdio,
  type RunningServer,
} from "../helpers/servers.js";

let v2: RunningServer;
beforeAll(async () => {
  v2 = await startV2Http();
});
afterAll(async () => {
  await v2?.stop();
});

/** The hint line of a text error. */
const hintOf = (stderr: string) => /^hint: (.*)$/m.exec(stderr)?.[1] ?? "";

describe("hints repeat the server as it was given", { timeout: 90_000 }, () => {
  it("tools <unknown> over --stdio hints tools --stdio '<line>', which works", async () => {
    const home = tempHome();
    const run = await runInProcess(["tools", "nope", "--stdio", v2Stdio()], { home });
    expect(run.code).toBe(2);
    const hint = hintOf(run.stderr);
    expect(hint).toBe(`see its tools with: mcp-task tools --stdio '${v2Stdio()}'`);
    const again = await runInProcess(["tools", "--stdio", v2Stdio()], { home });
    expect(again.code, again.stderr).toBe(0);
  });

  it("tools <unknown> -s <url> hints tools -s <url>", async () => {
    const run = await runInProcess(["tools", "nope", "-s", v2.url], { home: tempHome() });
    expect(hintOf(run.stderr)).toBe(`see its tools with: mcp-task tools -s ${v2.url}`);
  });

  it("call <unknown> and a schema mismatch hint the tools command with the server option", async () => {
    const home = tempHome();
    const unknown = await runInProcess(["call", "nope", "-s", v2.url], { home });
    expect(unknown.code).toBe(2);
    expect(hintOf(unknown.stderr)).toBe(`list the tools with: mcp-task tools -s ${v2.url}`);
    const mismatch = await runInProcess(["call", "task_structured", "ms=soon", "--stdio", v2Stdio()], { home });
    expect(mismatch.code, mismatch.stderr).toBe(2);
    expect(hintOf(mismatch.stderr)).toBe(`see the schema with: mcp-task tools --stdio '${v2Stdio()}' task_structured`);
  });
});

describe("bad input is one error line with its exit code", { timeout: 90_000 }, () => {
  it.each([
    ["an extra argument", ["check", "extra", "more"]],
    ["a missing tool", ["call"]],
    ["an unknown option", ["list", "--frobnicate"]],
    ["an unknown shell", ["completion", "tcsh"]],
  ])("a commander parse error (%s): one line with the mcp-task: error: prefix, exit 2", async (_what, args) => {
    const run = await runInProcess(args, { home: tempHome() });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^mcp-task: error: .+\(run with --help for usage\)\n$/);
    const json = await runInProcess([...args, "--json"], { home: tempHome() });
    expect(json.code).toBe(2);
    expect(json.stderr).toBe("");
    expect(JSON.parse(json.stdout)).toMatchObject({ type: "error", code: "usage", exitCode: 2 });
  });

  it("an unwritable trace file (--trace=FILE or MCP_TASK_TRACE) is a usage error naming it, before connecting", async () => {
    const home = tempHome();
    const flag = await runInProcess(["--trace=/nonexistent/d/f", "tools", "-s", v2.url], { home });
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/^mcp-task: error: cannot write the trace file \/nonexistent\/d\/f/);
    expect(flag.stderr).not.toMatch(/cannot connect|server is running/);
    const env = await runInProcess(["tools", "-s", v2.url], { home, env: { MCP_TASK_TRACE: "/nonexistent/x" } });
    expect(env.code).toBe(2);
    expect(env.stderr).toMatch(/cannot write the trace file \/nonexistent\/x/);
  });

  it("a bad MCP_TASK_BROKER_GRACE is said before a broker starts (exit 2); a broker started with it says why", async () => {
    const home = tempHome();
    const env = { MCP_TASK_BROKER_GRACE: "soon" };
    const run = await runInProcess(["call", "task_structured", "ms=50", "--stdio", v2Stdio()], { home, env });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^mcp-task: error: MCP_TASK_BROKER_GRACE: not a duration: soon$/m);
    // The broker itself, started by hand with the setting: its .failed report carries the reason. A broker is a
    // process of its own, and its exit status is the binary's: runCli.
    const key = "0123456789abcdef";
    const broker = await runCli(["broker", key], { home, env });
    expect(broker.code).toBe(2);
    expect(broker.stderr).toMatch(/MCP_TASK_BROKER_GRACE: not a duration: soon/);
    expect(readFileSync(brokerPaths(home, key).failed, "utf8")).toMatch(/MCP_TASK_BROKER_GRACE: not a duration: soon/);
  });
});

describe("SIGTERM", { timeout: 90_000 }, () => {
  it("stops waiting as Ctrl-C does: the task kept, a last error line with the resume hint, exit 143", async () => {
    const home = tempHome();
    // A signal, and the binary's exit status: a process (startCli).
    const call = startCli(["call", "task_slow", "ms=5000", "--stdio", v2Stdio(), "--json"], { home });
    await until(() => /"type":"task"/.test(call.output.stdout), { hangMs: 20_000, what: "the task line" });
    call.child.kill("SIGTERM");
    expect(await call.exited).toBe(143);
    const lines = call.output.stdout.trim().split("\n");
    const last = JSON.parse(lines[lines.length - 1]!);
    expect(last).toMatchObject({ type: "error", exitCode: 143, code: "terminated" });
    expect(last.hint).toMatch(/^resume with: mcp-task watch /);
  });
});

describe("the test servers", () => {
  it("sdk-v1-server --help prints its usage and exits 0 (it does not start listening)", () => {
    const run = spawnSync(process.execPath, [join(ROOT, "dist/test-servers/sdk-v1-server.js"), "--help"], {
      encoding: "utf8",
      timeout: 10_000,
    });
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^usage: node sdk-v1-server\.js --stdio \| \[--sse\] --port <n>/);
  });
});

describe("input hints fit the question asked", { timeout: 90_000 }, () => {
  it("a 2026-07-28 sampling request in a pipe: the hint is --sampling-reply, never --input or --decline", async () => {
    const home = tempHome();
    const call = await runInProcess(["call", "task_sampling", "text=hi", "-s", v2.url], { home });
    expect(call.code, call.stderr).toBe(6);
    const hint = hintOf(call.stderr);
    expect(hint).toMatch(/^mcp-task respond --sampling-reply TEXT \S+$/);
    const taskId = hint.split(" ").at(-1)!;
    const template = await runInProcess(["respond", taskId, "--template"], { home });
    expect(template.code).toBe(6);
    expect(hintOf(template.stderr)).toBe(`reply with: mcp-task respond --sampling-reply TEXT ${taskId}`);
    const replied = await runInProcess(["respond", taskId, "--sampling-reply", "ok"], { home });
    expect(replied.code, replied.stderr).toBe(0);
  });

  it("a 2026-07-28 form in a pipe: --input, or --decline (a form can be declined)", async () => {
    const call = await runInProcess(["call", "task_input_once", "ms=50", "-s", v2.url], { home: tempHome() });
    expect(call.code, call.stderr).toBe(6);
    expect(hintOf(call.stderr)).toMatch(/^mcp-task respond --input '\{\.\.\.\}' \S+ {2}\(or --decline\)$/);
  });

  it("the line prompt does not offer to decline what cannot be declined: an empty line asks again", async () => {
    const stdin = new PassThrough();
    let stderr = "";
    const io = { stdin, stderr: { write: (s: string) => (stderr += s) } } as unknown as IO;
    const request: InputRequest = {
      key: "k",
      method: "sampling/createMessage",
      params: { messages: [{ role: "user", content: { type: "text", text: "hi" } }], maxTokens: 10 },
      declinable: false,
    };
    const answered = askSampling(io, request, "task-1");
    stdin.write("\n");
    await new Promise((r) => setTimeout(r, 50));
    stdin.end("a reply\n");
    const response = await answered;
    expect(response.action).toBe("accept");
    expect(stderr).not.toMatch(/declines/);
    expect(stderr).toMatch(/cannot be declined: write a reply/);
  });
});

describe("an error while a task's question is answered names the task", { timeout: 120_000 }, () => {
  let v1: RunningServer;
  beforeAll(async () => {
    v1 = await startListening([SDK_V1_SERVER, "--port", "0"], "sdk v1 server");
  });
  afterAll(async () => {
    await v1?.stop();
  });
  const UNFIT = JSON.stringify({ name: 3, count: "two" });
  const PAGE = "url=https://pages.example/sign-in";
  // Each question kind on each generation, refused as it is answered (--json: the error line's taskId).
  const cases: Array<[string, () => string[]]> = [
    ["2026-07-28 sampling, --decline", () => ["task_sampling", "text=hi", "-s", v2.url, "--decline"]],
    [
      "2026-07-28 form, an --input that does not fit",
      () => ["task_input_once", "ms=50", "-s", v2.url, "--input", UNFIT],
    ],
    ["2026-07-28 URL page, no consent", () => ["task_open_page", PAGE, "-s", v2.url]],
    ["2025-11-25 sampling, no reply", () => ["sample", "prompt=hi", "-s", v1.url]],
    ["2025-11-25 form, an --input that does not fit", () => ["confirm", "item=x", "-s", v1.url, "--input", UNFIT]],
    ["2025-11-25 URL page, no consent", () => ["open-page", PAGE, "-s", v1.url]],
  ];
  it.each(cases)("%s: exit 6, the error line's taskId is the task's", async (_name, args) => {
    const run = await runInProcess(["call", ...args(), "--json"], { home: tempHome() });
    expect(run.code, run.stderr).toBe(6);
    const lines = events(run.stdout);
    const task = lines.find((line) => line.type === "task");
    expect(task?.taskId, run.stdout).toEqual(expect.any(String));
    expect(lines.at(-1)).toMatchObject({ type: "error", exitCode: 6, taskId: task!.taskId });
  });

  it("respond --decline to a 2026-07-28 sampling request: exit 6 naming the task, with the hint that can work", async () => {
    const home = tempHome();
    const call = await runInProcess(["call", "task_sampling", "text=hi", "-s", v2.url, "--json"], { home });
    const taskId = events(call.stdout).at(-1)!.taskId as string;
    for (const verb of ["respond", "watch"]) {
      const run = await runInProcess([verb, taskId, "--decline", "--json"], { home });
      expect(run.code, run.stderr).toBe(6);
      expect(events(run.stdout).at(-1)).toMatchObject({
        type: "error",
        taskId,
        message: expect.stringMatching(/cannot be declined/),
        hint: `mcp-task respond --sampling-reply TEXT ${taskId}`,
      });
    }
  });
});

describe("login", { timeout: 90_000 }, () => {
  it("an unreachable server: exit 4 naming the cause (refused), no --client-id hint", async () => {
    const home = tempHome();
    const url = `http://127.0.0.1:${await freePort()}/mcp`; // nothing listens there
    expect((await runInProcess(["server", "add", "dead", "--url", url], { home })).code).toBe(0);
    const run = await runInProcess(["login", "dead", "--no-browser"], { home });
    expect(run.code).toBe(4);
    expect(run.stderr).toMatch(/^mcp-task: error: cannot reach dead at .*: ECONNREFUSED$/m);
    expect(run.stderr).not.toMatch(/client-id/);
  });

  it("a server that asks for no authorization (server-everything over HTTP): said, exit 0, no body dumped", async () => {
    const everything = await startEverythingHttp();
    try {
      const home = tempHome();
      expect((await runInProcess(["server", "add", "open", "--url", everything.url], { home })).code).toBe(0);
      const run = await runInProcess(["login", "open", "--no-browser"], { home });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toMatch(/open asks for no authorization/);
      expect(run.stderr).not.toMatch(/<|html|404/i);
    } finally {
      await everything.stop();
    }
  });

  it("a failed sign-in's hint to save the client again keeps every saved option (headers, secret, grant)", async () => {
    const oauth = await startListening([join(ROOT, "dist/test-servers/oauth-server.js")], "oauth server");
    try {
      const home = tempHome();
      const add = [
        ...["server", "add", "web", "--url", oauth.url, "--header", "X-Team: ${env:TEAM}"],
        ...["--client-id", "nobody", "--client-secret", "${env:SECRET}", "--grant", "client-credentials"],
      ];
      expect((await runInProcess(add, { home })).code).toBe(0);
      const run = await runInProcess(["login", "web"], { home, env: { SECRET: "wrong", TEAM: "a" } });
      expect(run.code).toBe(8);
      expect(hintOf(run.stderr)).toBe(
        `check the client: mcp-task server add web --url ${oauth.url} --header 'X-Team: \${env:TEAM}' ` +
          `--client-secret '\${env:SECRET}' --grant client-credentials --client-id ID`,
      );
    } finally {
      await oauth.stop();
    }
  });
});
