// Hostile and malformed servers: the CLI (in-process) against test/servers/hostile-server.ts, a real server process
// that breaks the protocol on purpose, one case per test (floods.test.ts, huge-replies.test.ts; task ids that
// attack paths and shells: unsafe-ids.test.ts). Each ends in the documented exit code with one error line (or
// a handled warning), no stack trace, no control sequence on stdout or stderr, no hang past the configured
// timeouts, and a store that still lists (with the handle, where a task was created).
import { describe, expect, it } from "vitest";
import { events, tempHome } from "../helpers/cli.js";
import { runInProcess } from "../helpers/context.js";
import { BOTH, expectClean, expectError, expectJsonError, withHttp, stored } from "../helpers/hostile.js";
import { hostileStdio } from "../helpers/servers.js";

/**
 * Runs a command in-process. Its `timeoutMs` (45 s unless given) is a hang-only bound: the runner fails the test when
 * the command has not ended by then, far past any configured timeout it is meant to keep; how fast is the bench's.
 */
const runCli = runInProcess;
/** Lines printed: a command that loops where it should stop prints on and on. */
const lines = (text: string) => text.split("\n").filter(Boolean).length;

// Several commands per case, on two shared cores: more room than the default 60 s per test. The cases run side by
// side (each has its own server and home): most of their time is a wait on a server or on one of mcp-task's timers.
describe.concurrent("hostile servers", { timeout: 150_000 }, () => {
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
        // Side by side: none of them saves anything.
        const [tools, toolsJson, call] = await Promise.all([
          runCli(["tools", "-s", url], { home }),
          runCli(["tools", "--json", "-s", url], { home }),
          runCli(["call", "plain", "--json", "-s", url], { home }),
        ]);
        expectError(tools, 4);
        expectJsonError(toolsJson, 4);
        expectJsonError(call, 4);
        expect(await stored(home)).toEqual([]);
      });
    });

    it(`task-reply-to-plain-call (${generation}): a task in reply to a call made with --no-task is exit 4, nothing saved`, async () => {
      await withHttp("task-reply-to-plain-call", generation, async ({ url }) => {
        const home = tempHome();
        const [text, json] = await Promise.all([
          runCli(["call", "plain", "--no-task", "-s", url], { home }),
          runCli(["call", "plain", "--no-task", "--json", "-s", url], { home }),
        ]);
        expectError(text, 4, /task/);
        expectJsonError(json, 4, /task/);
        expect(await stored(home)).toEqual([]);
      });
    });

    it(`output-schema-breach (${generation}): a result that breaks its outputSchema is a warning (and outputSchemaError in JSON) with the task's own exit code`, async () => {
      await withHttp("output-schema-breach", generation, async ({ url }) => {
        const home = tempHome();
        // The JSON and the text call side by side (two tasks, two handles).
        const [json, text] = await Promise.all([
          runCli(["call", "report", "--json", "-s", url], { home }),
          runCli(["call", "report", "-s", url], { home }),
        ]);
        expect(json.code, json.stderr).toBe(0);
        expectClean(json);
        expect(json.stderr).toBe("");
        const result = events(json.stdout).at(-1)!;
        expect(result).toMatchObject({
          type: "result",
          status: "completed",
          result: { structuredContent: { total: "many" } },
        });
        expect(result.outputSchemaError).toMatch(/outputSchema.*total/);
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
        // The unanswered call beside the answered one (each its own task): the 32 rounds are most of the time. V2
        // polled only: the server acknowledges a subscription and pushes nothing, and a subscribed watch reads every
        // third interval (the subscription's own path: update-ignored over stdio, below).
        const env: Record<string, string> = generation === "v2" ? { MCP_TASK_PUSH: "off" } : {};
        const [none, answered] = await Promise.all([
          runCli(["call", "ask", "-s", url], { home, env }),
          // hang-only: 90 s, far past the 32 rounds of a loaded machine (40 s was missed once under load)
          runCli(["call", "ask", "--input", '{"ok":true}', "--json", "-s", url], { home, env, timeoutMs: 90_000 }),
        ]);
        expectError(none, 6, /input required/);
        const error = expectJsonError(answered, 6, /keeps asking for input: 32 questions answered/);
        expect(error.taskId).toEqual(expect.any(String));
        // Bounded by what it did (32 questions answered, a few events each), not by the time it took.
        expect(events(answered.stdout).length).toBeLessThan(32 * 4);
        const handles = await stored(home);
        expect(handles).toHaveLength(2);
        expect(handles).toContainEqual(expect.objectContaining({ taskId: error.taskId, status: "input_required" }));
      });
    });

    it(`reply-never-comes (${generation}): an unanswered tools/call or tasks/get ends with exit 4 after MCP_TASK_REQUEST_TIMEOUT (and the give-up window), handle intact`, async () => {
      await withHttp("reply-never-comes", generation, async ({ url }) => {
        const home = tempHome();
        // 3 s: the requests that are answered (initialize, tools/list) must be within it on a loaded machine too (at
        // 1 s, beside a second copy of the suite, tools/list was not).
        const env = { MCP_TASK_REQUEST_TIMEOUT: "3s", MCP_TASK_GIVE_UP: "2s" };
        // Three waits on the server side by side: the unanswered call (it saves nothing), the unanswered read (then
        // its handle, read again), and V1's unanswered tasks/result (in a home of its own, so that `home` holds one
        // handle).
        const [call, get, result] = await Promise.all([
          runCli(["call", "hang_call", "-s", url], { home, env }),
          runCli(["call", "hang_get", "--json", "-s", url], { home, env }),
          runCli(["call", "hang_result", "-s", url], { home: tempHome(), env }),
        ]);
        expectError(call, 4, /did not answer tools\/call within 3 s/);
        // The configured timeout was used (the error says 3 s; the runner's 45 s is hang-only): one error, one hint.
        expect(lines(call.stderr)).toBeLessThanOrEqual(2);
        const error = expectJsonError(get, 4, /did not answer tasks\/get within 3 s/);
        expect(events(get.stdout).length).toBeLessThanOrEqual(3);
        const [handle] = await stored(home);
        expect(handle).toMatchObject({ tool: "hang_get", status: "working" });
        // The error names the task it concerns, and says how to follow it again.
        expect(error.taskId).toBe(handle.taskId);
        expect(error.hint).toMatch(/mcp-task watch /);
        const again = await runCli(["get", String(handle.taskId)], { home, env });
        expectError(again, 4, /did not answer tasks\/get/);
        expect(lines(again.stderr)).toBeLessThanOrEqual(2);
        // V1: tasks/get says completed, and tasks/result (which must answer at once then) never does.
        if (generation === "v1")
          expectError(result, 4, /did not answer tasks\/result within 3 s although the task is completed/);
        else expect(result.code, result.stderr).toBe(0);
        expect(lines(result.stderr)).toBeLessThanOrEqual(10);
      });
    });

    it(`born-ended (${generation}): a call answered "completed" (no result) whose reads say working is exit 4, never a saved "cancelled"`, async () => {
      await withHttp("born-ended", generation, async ({ url }) => {
        const home = tempHome();
        const call = await runCli(["call", "born", "-s", url], { home });
        expectError(call, 4, /had ended, then reads it as working: a task's end is final/);
        const [handle] = await stored(home);
        expect(handle.outcome).toBeUndefined();
        const got = await runCli(["get", String(handle.taskId)], { home });
        expect(got.stdout + got.stderr).not.toMatch(/cancelled/);
      });
    });

    it(`broken-schema (${generation}): an inputSchema that cannot be compiled is the server's fault (exit 4), not the arguments' (exit 2)`, async () => {
      await withHttp("broken-schema", generation, async ({ url }) => {
        const home = tempHome();
        const call = await runCli(["call", "go", "-s", url], { home });
        expectError(call, 4, /tool go's inputSchema from the server cannot be compiled/);
      });
    });

    it(`handshake-never-comes (${generation}): a server that answers nothing is exit 4 within the HTTP handshake's floor (5 s)`, async () => {
      await withHttp("handshake-never-comes", generation, async ({ url }) => {
        const home = tempHome();
        const run = await runCli(["tools", "-s", url], { home, env: { MCP_TASK_REQUEST_TIMEOUT: "1s" } });
        expectError(run, 4);
        expect(lines(run.stderr)).toBeLessThanOrEqual(2); // the runner's 45 s is hang-only
        expect(await stored(home)).toEqual([]);
      });
    });

    it(`escapes (${generation}): escape sequences in tool names, task ids, status messages, results, errors and questions never reach the terminal`, async () => {
      await withHttp("escapes", generation, async ({ url }) => {
        const home = tempHome();
        // Every command of the case side by side (each its own task, or none): then the store they leave.
        const [tools, toolsJson, call, json, evilFail, evilAsk, evilRpc, evilRpcJson] = await Promise.all([
          runCli(["tools", "-s", url], { home }),
          runCli(["tools", "--json", "-s", url], { home }),
          runCli(["call", "evil", "-s", url], { home }),
          runCli(["call", "evil", "--json", "-s", url], { home }),
          runCli(["call", "evil_fail", "-s", url], { home }),
          runCli(["call", "evil_ask", "-s", url], { home }),
          runCli(["call", "evil_rpc", "-s", url], { home }),
          runCli(["call", "evil_rpc", "--json", "-s", url], { home }),
        ]);
        expect(tools.code, tools.stderr).toBe(0);
        expectClean(tools);
        expect(tools.stdout).toMatch(/evil tool red/);
        expect(toolsJson.code).toBe(0);
        expectClean(toolsJson);
        // JSON keeps the server's text exactly (escaped, so that a terminal never acts on it).
        expect(JSON.parse(toolsJson.stdout).tools.some((t: { name: string }) => t.name.includes("\u001b[31m"))).toBe(
          true,
        );

        expect(call.code, call.stderr).toBe(0);
        expectClean(call);
        expect(call.stdout).toMatch(/^result red/);
        expect(json.code).toBe(0);
        expectClean(json);
        const lines = events(json.stdout);
        expect(String(lines[0].taskId)).toContain("\u001b]52;");
        expect(lines.some((line) => String(line.statusMessage ?? "").includes("\u009b2J"))).toBe(true);

        expectClean(evilFail);
        expectError(evilAsk, 6, /input required/);
        expectError(evilRpc, 4, /refused red/);
        expectJsonError(evilRpcJson, 4, /\u001b\[31m/);

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
      // The bound's time part (5 s by default) shortened: its 10 reads are what it still takes. Polled only: the
      // server acknowledges a subscription and pushes nothing, and a subscribed watch reads every third interval
      // (the stdio case below keeps the subscription).
      const env = { MCP_TASK_IGNORED_WAIT: "1s", MCP_TASK_PUSH: "off" };
      const run = await runCli(["call", "ask", "--input", '{"ok":true}', "-s", url], { home, env, timeoutMs: 30_000 });
      expectError(run, 4, /still asks for confirm .* after mcp-task answered it/);
      expect(lines(run.stderr)).toBeLessThan(40); // a bounded number of questions; the runner's 30 s is hang-only
      const [handle] = await stored(home);
      expect(handle).toMatchObject({ tool: "ask", status: "input_required" });
      // A later watch knows the key is answered: it does not answer again, and stops the same way.
      const watch = await runCli(["watch", String(handle.taskId), "--json"], { home, env, timeoutMs: 30_000 });
      expectJsonError(watch, 4, /still asks for confirm/);
    });
  });

  it("update-ignored over stdio (v2, through the broker): exit 4 after the bound, and no warning on stderr", async () => {
    const home = tempHome();
    const run = await runCli(
      ["call", "ask", "--input", '{"ok":true}', "--stdio", hostileStdio("update-ignored", "v2")],
      { home, env: { MCP_TASK_IGNORED_WAIT: "1s" }, timeoutMs: 30_000 }, // the bound's time part shortened (default 5 s)
    );
    expectError(run, 4, /still asks for confirm/);
    expect(lines(run.stderr)).toBeLessThan(40); // a bounded number of questions; the runner's 30 s is hang-only
    expect(await stored(home)).toEqual([expect.objectContaining({ tool: "ask", status: "input_required" })]);
  });

  it("endless-input over stdio (v1, through the broker): the elicitations that never stop end in exit 6", async () => {
    const home = tempHome();
    const run = await runCli(
      ["call", "ask", "--input", '{"ok":true}', "--stdio", hostileStdio("endless-input", "v1")],
      {
        home,
        timeoutMs: 40_000,
      },
    );
    expectError(run, 6, /keeps asking for input/);
    expect(lines(run.stderr)).toBeLessThan(32 * 4); // bounded by the questions answered; the runner's 40 s is hang-only
    expect(await stored(home)).toEqual([expect.objectContaining({ tool: "ask" })]);
  });

  it("escapes over stdio (v1 and v2): the same text through a broker stays clean", async () => {
    // The two generations side by side, each in a home (and a broker) of its own.
    await Promise.all(
      BOTH.map(async (generation) => {
        const home = tempHome();
        const server = hostileStdio("escapes", generation);
        const call = await runCli(["call", "evil", "--stdio", server], { home });
        expect(call.code, call.stderr).toBe(0);
        expectClean(call);
        expectClean(await runCli(["tools", "--stdio", server], { home }));
        expectError(await runCli(["call", "evil_ask", "--stdio", server], { home }), 6);
        expectClean(await runCli(["list"], { home }));
      }),
    );
  });
});
