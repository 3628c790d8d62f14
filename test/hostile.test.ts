// Hostile and malformed servers: the real CLI against test/servers/hostile-server.ts, a real server process that
// breaks the protocol on purpose, one case per test. Each ends in the documented exit code with one error line (or
// a handled warning), no stack trace, no control sequence on stdout or stderr, no hang past the configured
// timeouts, and a store that still lists (with the handle, where a task was created).
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { events, runCli, tempHome, type CliResult } from "./helpers/cli.js";
import { hostileStdio, startHostileHttp, type RunningServer } from "./helpers/servers.js";

type Generation = "v1" | "v2";
const BOTH: Generation[] = ["v1", "v2"];

// What must never reach a terminal: C0 controls but \t and \n (ESC included), DEL, C1, bidi controls, separators.
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

function expectClean(run: CliResult): void {
  for (const [name, text] of [["stdout", run.stdout], ["stderr", run.stderr]] as const) {
    const at = text.search(UNSAFE);
    expect(at, `${name} has a control character at ${at}: ${JSON.stringify(text.slice(Math.max(0, at - 40), at + 40))}`).toBe(-1);
  }
  expect(run.stderr, "no stack trace").not.toMatch(/^\s+at .+[:(]/m);
  expect(run.stderr).not.toMatch(/internal error|Unhandled|node:internal|Warning:/);
}

/** Text mode: the exit code, exactly one error line (a hint line may follow), clean output. */
function expectError(run: CliResult, code: number, message?: RegExp): void {
  expect(run.code, run.stderr).toBe(code);
  expectClean(run);
  const errors = run.stderr.split("\n").filter((line) => /error/i.test(line));
  expect(errors, run.stderr).toHaveLength(1);
  expect(errors[0]).toMatch(/^mcp-task: error: /);
  if (message) expect(errors[0]).toMatch(message);
}

/** --json: the exit code, nothing on stderr, every stdout line JSON, the last one the error event. */
function expectJsonError(run: CliResult, code: number, message?: RegExp): Record<string, unknown> {
  expect(run.code, run.stderr + run.stdout.slice(-2000)).toBe(code);
  expectClean(run);
  expect(run.stderr).toBe("");
  const last = events(run.stdout).at(-1)!;
  expect(last).toMatchObject({ type: "error", exitCode: code });
  if (message) expect(last.message).toMatch(message);
  return last;
}

/** The store still lists (and parses); returns the saved handles. */
async function stored(home: string): Promise<Array<Record<string, unknown>>> {
  const run = await runCli(["list", "--json"], { home });
  expect(run.code, run.stderr).toBe(0);
  expectClean(run);
  return JSON.parse(run.stdout) as Array<Record<string, unknown>>;
}

async function withHttp(hostileCase: string, generation: Generation, work: (server: RunningServer) => Promise<void>, ...flags: string[]): Promise<void> {
  const server = await startHostileHttp(hostileCase, generation, ...flags);
  try {
    await work(server);
  } finally {
    await server.stop();
  }
}

/** Runs the CLI and returns the result with how long it took. */
async function timed(args: string[], options: Parameters<typeof runCli>[1]): Promise<CliResult & { ms: number }> {
  const started = Date.now();
  const run = await runCli(args, options);
  return { ...run, ms: Date.now() - started };
}

describe("hostile servers", () => {
  for (const generation of BOTH) {
    it(`missing-fields (${generation}): a task without taskId/status, or a tasks/get without status, is exit 4 and the store holds what was created`, async () => {
      await withHttp("missing-fields", generation, async ({ url }) => {
        const home = tempHome();
        const created = await runCli(["call", "broken_create", "--json", "-s", url], { home });
        expectJsonError(created, 4, /invalid task.*taskId/);
        expect(await stored(home)).toEqual([]);
        const read = await runCli(["call", "broken_get", "-s", url], { home });
        expectError(read, 4, /invalid tasks\/get result: .*status/);
        const handles = await stored(home);
        expect(handles).toEqual([expect.objectContaining({ tool: "broken_get", status: "working" })]);
      });
    });

    it(`unknown-status (${generation}): a status outside the five is exit 4, on call and on get, with the handle intact`, async () => {
      await withHttp("unknown-status", generation, async ({ url }) => {
        const home = tempHome();
        const call = await runCli(["call", "odd", "-s", url], { home });
        expectError(call, 4, /status/);
        const [handle] = await stored(home);
        expect(handle).toMatchObject({ tool: "odd", status: "working" });
        const get = await runCli(["get", String(handle.taskId), "--json"], { home });
        expectJsonError(get, 4, /status/);
        expect(await stored(home)).toEqual([expect.objectContaining({ taskId: handle.taskId, status: "working" })]);
      });
    });

    it(`task-reply-to-list (${generation}): tools/list answered with a task is exit 4`, async () => {
      await withHttp("task-reply-to-list", generation, async ({ url }) => {
        const home = tempHome();
        expectError(await runCli(["tools", "-s", url], { home }), 4);
        expectJsonError(await runCli(["tools", "--json", "-s", url], { home }), 4);
        expectJsonError(await runCli(["call", "plain", "--json", "-s", url], { home }), 4);
        expect(await stored(home)).toEqual([]);
      });
    });

    it(`task-reply-to-plain-call (${generation}): a task in reply to a call made with --no-task is exit 4, nothing saved`, async () => {
      await withHttp("task-reply-to-plain-call", generation, async ({ url }) => {
        const home = tempHome();
        expectError(await runCli(["call", "plain", "--no-task", "-s", url], { home }), 4, /task/);
        expectJsonError(await runCli(["call", "plain", "--no-task", "--json", "-s", url], { home }), 4, /task/);
        expect(await stored(home)).toEqual([]);
      });
    });

    it(`output-schema-breach (${generation}): a result that breaks its outputSchema is a warning (and outputSchemaError in JSON) with the task's own exit code`, async () => {
      await withHttp("output-schema-breach", generation, async ({ url }) => {
        const home = tempHome();
        const json = await runCli(["call", "report", "--json", "-s", url], { home });
        expect(json.code, json.stderr).toBe(0);
        expectClean(json);
        expect(json.stderr).toBe("");
        const result = events(json.stdout).at(-1)!;
        expect(result).toMatchObject({ type: "result", status: "completed", result: { structuredContent: { total: "many" } } });
        expect(result.outputSchemaError).toMatch(/outputSchema.*total/);
        const text = await runCli(["call", "report", "-s", url], { home });
        expect(text.code, text.stderr).toBe(0);
        expectClean(text);
        expect(text.stderr).toMatch(/^warning: the result does not match the tool's outputSchema/m);
        expect(text.stderr).not.toMatch(/error/);
        expect(await stored(home)).toEqual([
          expect.objectContaining({ tool: "report", status: "completed" }),
          expect.objectContaining({ tool: "report", status: "completed" }),
        ]);
      });
    });

    it(`endless-input (${generation}): without an answer exit 6 at once; with one, exit 6 once ${32} questions were answered`, async () => {
      await withHttp("endless-input", generation, async ({ url }) => {
        const home = tempHome();
        const none = await runCli(["call", "ask", "-s", url], { home });
        expectError(none, 6, /input required/);
        const answered = await timed(["call", "ask", "--input", '{"ok":true}', "--json", "-s", url], { home, timeoutMs: 40_000 });
        const error = expectJsonError(answered, 6, /keeps asking for input: 32 questions answered/);
        expect(error.taskId).toEqual(expect.any(String));
        expect(answered.ms).toBeLessThan(30_000);
        const handles = await stored(home);
        expect(handles).toHaveLength(2);
        expect(handles).toContainEqual(expect.objectContaining({ taskId: error.taskId, status: "input_required" }));
      });
    });

    it(`notification-flood (${generation}): tens of thousands of notifications before each reply do not stop or slow the call`, async () => {
      await withHttp("notification-flood", generation, async ({ url }) => {
        const home = tempHome();
        const run = await timed(["call", "work", "--json", "-s", url], { home });
        expect(run.code, run.stderr).toBe(0);
        expectClean(run);
        expect(run.stderr).toBe("");
        expect(events(run.stdout).at(-1)).toMatchObject({ type: "result", status: "completed", result: { content: [{ text: "survived the flood" }] } });
        expect(run.ms).toBeLessThan(30_000);
        const text = await runCli(["call", "work", "-s", url], { home });
        expect(text.code, text.stderr).toBe(0);
        expectClean(text);
        expect(text.stdout).toBe("survived the flood\n");
        expect(text.stderr.split("\n").length).toBeLessThan(12);
        expect(await stored(home)).toHaveLength(2);
      }, "--flood", "40000");
    });

    it(`reply-never-comes (${generation}): an unanswered tools/call or tasks/get ends with exit 4 after MCP_TASK_REQUEST_TIMEOUT (and the give-up window), handle intact`, async () => {
      await withHttp("reply-never-comes", generation, async ({ url }) => {
        const home = tempHome();
        const env = { MCP_TASK_REQUEST_TIMEOUT: "1s", MCP_TASK_GIVE_UP: "2s" };
        const call = await timed(["call", "hang_call", "-s", url], { home, env });
        expectError(call, 4, /did not answer tools\/call within 1 s/);
        expect(call.ms).toBeLessThan(8_000);
        const get = await timed(["call", "hang_get", "--json", "-s", url], { home, env });
        const error = expectJsonError(get, 4, /did not answer tasks\/get within 1 s/);
        expect(get.ms).toBeLessThan(12_000);
        const [handle] = await stored(home);
        expect(handle).toMatchObject({ tool: "hang_get", status: "working" });
        expect(error.taskId === null || error.taskId === handle.taskId).toBe(true);
        const again = await timed(["get", String(handle.taskId)], { home, env });
        expectError(again, 4, /did not answer tasks\/get/);
        expect(again.ms).toBeLessThan(8_000);
        // V1: tasks/get says completed, and tasks/result (which must answer at once then) never does.
        const result = await timed(["call", "hang_result", "-s", url], { home, env });
        if (generation === "v1") expectError(result, 4, /did not answer tasks\/result within 1 s although the task is completed/);
        else expect(result.code, result.stderr).toBe(0);
        expect(result.ms).toBeLessThan(12_000);
      });
    });

    it(`handshake-never-comes (${generation}): a server that answers nothing is exit 4 within the request timeout`, async () => {
      await withHttp("handshake-never-comes", generation, async ({ url }) => {
        const home = tempHome();
        const run = await timed(["tools", "-s", url], { home, env: { MCP_TASK_REQUEST_TIMEOUT: "1s" } });
        expectError(run, 4);
        expect(run.ms).toBeLessThan(8_000);
        expect(await stored(home)).toEqual([]);
      });
    });

    it(`huge-reply (${generation}): a 48 MB reply is refused with exit 4, a 12 MB one is read, a 3 MB result is not kept in the handle`, async () => {
      await withHttp("huge-reply", generation, async ({ url }) => {
        const home = tempHome();
        const huge = await timed(["call", "huge", "mb=48", "-s", url], { home });
        expectError(huge, 4, /larger than 32 MiB/);
        expect(huge.ms).toBeLessThan(20_000);
        const big = await runCli(["call", "huge", "mb=12", "-s", url], { home });
        expect(big.code, big.stderr.slice(0, 500)).toBe(0);
        expect(big.stdout.length).toBeGreaterThanOrEqual(12 * 1024 * 1024);
        const task = await runCli(["call", "huge_task", "--json", "-s", url], { home });
        expect(task.code, task.stderr.slice(0, 500)).toBe(0);
        const taskId = String(events(task.stdout)[0].taskId);
        // The handle records the end, not the 3 MB: listing stays fast, and `result` reads it from the server again.
        const files = readdirSync(join(home, "tasks")).filter((name) => name.endsWith(".json") && !name.startsWith("."));
        expect(files).toHaveLength(1);
        expect(statSync(join(home, "tasks", files[0])).size).toBeLessThan(64 * 1024);
        expect(await stored(home)).toEqual([expect.objectContaining({ taskId, status: "completed" })]);
        const result = await runCli(["result", taskId], { home });
        expect(result.code, result.stderr).toBe(0);
        expect(result.stdout.length).toBeGreaterThanOrEqual(3 * 1024 * 1024);
      }, "--mb", "3");
    });

    it(`escapes (${generation}): escape sequences in tool names, task ids, status messages, results, errors and questions never reach the terminal`, async () => {
      await withHttp("escapes", generation, async ({ url }) => {
        const home = tempHome();
        const tools = await runCli(["tools", "-s", url], { home });
        expect(tools.code, tools.stderr).toBe(0);
        expectClean(tools);
        expect(tools.stdout).toMatch(/evil tool red/);
        const toolsJson = await runCli(["tools", "--json", "-s", url], { home });
        expect(toolsJson.code).toBe(0);
        expectClean(toolsJson);
        // JSON keeps the server's text exactly (escaped, so that a terminal never acts on it).
        expect(JSON.parse(toolsJson.stdout).tools.some((t: { name: string }) => t.name.includes("\u001b[31m"))).toBe(true);

        const call = await runCli(["call", "evil", "-s", url], { home });
        expect(call.code, call.stderr).toBe(0);
        expectClean(call);
        expect(call.stdout).toMatch(/^result red/);
        const json = await runCli(["call", "evil", "--json", "-s", url], { home });
        expect(json.code).toBe(0);
        expectClean(json);
        const lines = events(json.stdout);
        expect(String(lines[0].taskId)).toContain("\u001b]52;");
        expect(lines.some((line) => String(line.statusMessage ?? "").includes("\u009b2J"))).toBe(true);

        expectClean(await runCli(["call", "evil_fail", "-s", url], { home }));
        expectError(await runCli(["call", "evil_ask", "-s", url], { home }), 6, /input required/);
        expectError(await runCli(["call", "evil_rpc", "-s", url], { home }), 4, /refused red/);
        expectJsonError(await runCli(["call", "evil_rpc", "--json", "-s", url], { home }), 4, /\u001b\[31m/);

        const handles = await stored(home);
        expect(handles).toHaveLength(4);
        const evil = String(handles.find((h) => h.tool === "evil")!.taskId);
        const get = await runCli(["get", evil], { home });
        expect(get.code, get.stderr).toBe(0);
        expectClean(get);
        expectClean(await runCli(["get", evil, "--json"], { home }));
        expectClean(await runCli(["result", evil], { home }));
        const list = await runCli(["list"], { home });
        expect(list.code).toBe(0);
        expectClean(list);
      });
    });
  }

  it("task-reply-where-forbidden (v1): a tool listed taskSupport forbidden that answers with a task is exit 4", async () => {
    await withHttp("task-reply-where-forbidden", "v1", async ({ url }) => {
      const home = tempHome();
      expectError(await runCli(["call", "plain", "-s", url], { home }), 4, /plain tools\/call with a task/);
      expectJsonError(await runCli(["call", "plain", "--json", "-s", url], { home }), 4);
      expect(await stored(home)).toEqual([]);
    });
  });

  it("update-ignored (v2): an answer acknowledged and ignored (the same key asked on and on) is exit 4 after the bound, handle intact", async () => {
    await withHttp("update-ignored", "v2", async ({ url }) => {
      const home = tempHome();
      const run = await timed(["call", "ask", "--input", '{"ok":true}', "-s", url], { home, timeoutMs: 30_000 });
      expectError(run, 4, /still asks for confirm .* after mcp-task answered it/);
      expect(run.ms).toBeLessThan(15_000);
      const [handle] = await stored(home);
      expect(handle).toMatchObject({ tool: "ask", status: "input_required" });
      // A later watch knows the key is answered: it does not answer again, and stops the same way.
      const watch = await timed(["watch", String(handle.taskId), "--json"], { home, timeoutMs: 30_000 });
      expectJsonError(watch, 4, /still asks for confirm/);
    });
  });

  it("update-ignored over stdio (v2, through the broker): exit 4 after the bound, and no warning on stderr", async () => {
    const home = tempHome();
    const run = await timed(["call", "ask", "--input", '{"ok":true}', "--stdio", hostileStdio("update-ignored", "v2")], { home, timeoutMs: 30_000 });
    expectError(run, 4, /still asks for confirm/);
    expect(run.ms).toBeLessThan(15_000);
    expect(await stored(home)).toEqual([expect.objectContaining({ tool: "ask", status: "input_required" })]);
  });

  it("huge-reply over stdio (v2, through the broker): a 48 MB line is refused with exit 4, a 12 MB one is read", async () => {
    const home = tempHome();
    const huge = await timed(["call", "huge", "mb=48", "--stdio", hostileStdio("huge-reply", "v2")], { home });
    expectError(huge, 4, /larger than 32 MiB/);
    expect(huge.ms).toBeLessThan(20_000);
    const big = await runCli(["call", "huge", "mb=12", "--json", "--stdio", hostileStdio("huge-reply", "v2")], { home });
    expect(big.code, big.stderr.slice(0, 500)).toBe(0);
    expect(big.stdout.length).toBeGreaterThanOrEqual(12 * 1024 * 1024);
  });

  it("endless-input over stdio (v1, through the broker): the elicitations that never stop end in exit 6", async () => {
    const home = tempHome();
    const run = await timed(["call", "ask", "--input", '{"ok":true}', "--stdio", hostileStdio("endless-input", "v1")], { home, timeoutMs: 40_000 });
    expectError(run, 6, /keeps asking for input/);
    expect(run.ms).toBeLessThan(30_000);
    expect(await stored(home)).toEqual([expect.objectContaining({ tool: "ask" })]);
  });

  it("escapes over stdio (v1 and v2): the same text through a broker stays clean", async () => {
    for (const generation of BOTH) {
      const home = tempHome();
      const server = hostileStdio("escapes", generation);
      const call = await runCli(["call", "evil", "--stdio", server], { home });
      expect(call.code, call.stderr).toBe(0);
      expectClean(call);
      expectClean(await runCli(["tools", "--stdio", server], { home }));
      expectError(await runCli(["call", "evil_ask", "--stdio", server], { home }), 6);
      expectClean(await runCli(["list"], { home }));
    }
  });
});
