// Hostile and malformed servers: the CLI (in-process; the two floods as processes, whose CPU time and memory are
// measured) against test/servers/hostile-server.ts, a real server process that breaks the protocol on purpose, one
// case per test. Each ends in the documented exit code with one error line (or
// a handled warning), no stack trace, no control sequence on stdout or stderr, no hang past the configured
// timeouts, and a store that still lists (with the handle, where a task was created).
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { sanitize, sanitizeLine } from "../../src/sanitize.js";
import { fileStem } from "../../src/store/handle-file.js";
import { events, homes, runCli as runProcess, tempHome } from "../helpers/cli.js";
import { runInProcess } from "../helpers/context.js";
import { BOTH, expectClean, expectError, expectJsonError, runMeasured, withHttp } from "../helpers/hostile.js";
import { hostileStdio, startHostileHttp } from "../helpers/servers.js";
import { UNSAFE_IDS } from "../helpers/unsafe-ids.js";

/** The store still lists (and parses); returns the saved handles. */
async function stored(home: string): Promise<Array<Record<string, unknown>>> {
  const run = await runCli(["list", "--json"], { home });
  expect(run.code, run.stderr).toBe(0);
  expectClean(run);
  return JSON.parse(run.stdout) as Array<Record<string, unknown>>;
}

/**
 * Runs a command in-process. Its `timeoutMs` (45 s unless given) is a hang-only bound: the runner fails the test when
 * the command has not ended by then, far past any configured timeout it is meant to keep; how fast is the bench's.
 */
const runCli = runInProcess;
/** Lines printed: a command that loops where it should stop prints on and on. */
const lines = (text: string) => text.split("\n").filter(Boolean).length;

// Several commands per case, on two shared cores: more room than the default 60 s per test.
describe("hostile servers", { timeout: 150_000 }, () => {
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
        expect(result).toMatchObject({
          type: "result",
          status: "completed",
          result: { structuredContent: { total: "many" } },
        });
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
        const answered = await runCli(["call", "ask", "--input", '{"ok":true}', "--json", "-s", url], {
          home,
          timeoutMs: 40_000,
        });
        const error = expectJsonError(answered, 6, /keeps asking for input: 32 questions answered/);
        expect(error.taskId).toEqual(expect.any(String));
        // Bounded by what it did (32 questions answered, a few events each), not by the time it took.
        expect(events(answered.stdout).length).toBeLessThan(32 * 4);
        const handles = await stored(home);
        expect(handles).toHaveLength(2);
        expect(handles).toContainEqual(expect.objectContaining({ taskId: error.taskId, status: "input_required" }));
      });
    });

    it(`notification-flood (${generation}): tens of thousands of notifications before each reply do not stop or slow the call`, async () => {
      await withHttp(
        "notification-flood",
        generation,
        async ({ url }) => {
          const home = tempHome();
          // No time or CPU bound (the speed of this path is not a functional property): the harness's timeout
          // (hang-only) says whether the flood stops the call; the output, that nothing of it leaks into what the
          // person or a script reads.
          const run = await runMeasured(["call", "work", "--json", "-s", url], { home, timeoutMs: 120_000 });
          expect(run.code, run.stderr).toBe(0);
          expectClean(run);
          expect(run.stderr).toBe("");
          expect(events(run.stdout).at(-1)).toMatchObject({
            type: "result",
            status: "completed",
            result: { content: [{ text: "survived the flood" }] },
          });
          const text = await runCli(["call", "work", "-s", url], { home, timeoutMs: 120_000 });
          expect(text.code, text.stderr).toBe(0);
          expectClean(text);
          expect(text.stdout).toBe("survived the flood\n");
          expect(text.stderr.split("\n").length).toBeLessThan(12);
          expect(await stored(home)).toHaveLength(2);
        },
        "--flood",
        "40000",
      );
    }, 270_000);

    it(`reply-never-comes (${generation}): an unanswered tools/call or tasks/get ends with exit 4 after MCP_TASK_REQUEST_TIMEOUT (and the give-up window), handle intact`, async () => {
      await withHttp("reply-never-comes", generation, async ({ url }) => {
        const home = tempHome();
        const env = { MCP_TASK_REQUEST_TIMEOUT: "1s", MCP_TASK_GIVE_UP: "2s" };
        const call = await runCli(["call", "hang_call", "-s", url], { home, env });
        expectError(call, 4, /did not answer tools\/call within 1 s/);
        // The configured timeout was used (the error says 1 s; the runner's 45 s is hang-only): one error, one hint.
        expect(lines(call.stderr)).toBeLessThanOrEqual(2);
        const get = await runCli(["call", "hang_get", "--json", "-s", url], { home, env });
        const error = expectJsonError(get, 4, /did not answer tasks\/get within 1 s/);
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
        const result = await runCli(["call", "hang_result", "-s", url], { home, env });
        if (generation === "v1")
          expectError(result, 4, /did not answer tasks\/result within 1 s although the task is completed/);
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

    it(`ping-flood (${generation}): 20,000 pings on a call's stream are answered a few at a time, never all at once: the call ends promptly, in bounded CPU and memory`, async () => {
      await withHttp(
        "ping-flood",
        generation,
        async ({ url }) => {
          const run = await runMeasured(["call", "flooded", "--no-task", "-s", url], { home: tempHome() });
          expect(run.code, run.stderr).toBe(0);
          expect(run.stdout).toContain("after 20000 pings");
          // Before: 20,000 POSTs at once, 27 s of CPU and 1 GB, and a listener warning per POST. The memory a
          // process holds is what it did (20,000 answers in flight at once held 1 GB), not how fast it went.
          expect(run.rssKb).toBeLessThan(600 * 1024);
          expect(run.stderr).not.toMatch(/MaxListeners/);
        },
        "--count",
        "20000",
      );
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

    it(`huge-reply (${generation}): a 48 MB reply is refused with exit 4, a 12 MB one is read, a 3 MB result is not kept in the handle`, async () => {
      await withHttp(
        "huge-reply",
        generation,
        async ({ url }) => {
          const home = tempHome();
          // Refused, and in time: within the harness's 45 s. Not a tighter wall-clock bound: on two loaded cores, V1's
          // two start-ups (this command's, then its session keeper's, which reads the reply) took 25 s once in CI
          // (2 s on a quiet machine).
          const huge = await runCli(["call", "huge", "mb=48", "-s", url], { home });
          expectError(huge, 4, /larger than 32 MiB/);
          const big = await runCli(["call", "huge", "mb=12", "-s", url], { home });
          expect(big.code, big.stderr.slice(0, 500)).toBe(0);
          expect(big.stdout.length).toBeGreaterThanOrEqual(12 * 1024 * 1024);
          const task = await runCli(["call", "huge_task", "--json", "-s", url], { home });
          expect(task.code, task.stderr.slice(0, 500)).toBe(0);
          const taskId = String(events(task.stdout)[0].taskId);
          // The handle records the end, not the 3 MB: listing stays fast, and `result` reads it from the server again.
          const files = readdirSync(join(home, "tasks")).filter(
            (name) => name.endsWith(".json") && !name.startsWith("."),
          );
          expect(files).toHaveLength(1);
          expect(statSync(join(home, "tasks", files[0])).size).toBeLessThan(64 * 1024);
          expect(await stored(home)).toEqual([expect.objectContaining({ taskId, status: "completed" })]);
          const result = await runCli(["result", taskId], { home });
          expect(result.code, result.stderr).toBe(0);
          expect(result.stdout.length).toBeGreaterThanOrEqual(3 * 1024 * 1024);
        },
        "--mb",
        "3",
      );
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
        expect(JSON.parse(toolsJson.stdout).tools.some((t: { name: string }) => t.name.includes("\u001b[31m"))).toBe(
          true,
        );

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
      const run = await runCli(["call", "ask", "--input", '{"ok":true}', "-s", url], { home, timeoutMs: 30_000 });
      expectError(run, 4, /still asks for confirm .* after mcp-task answered it/);
      expect(lines(run.stderr)).toBeLessThan(40); // a bounded number of questions; the runner's 30 s is hang-only
      const [handle] = await stored(home);
      expect(handle).toMatchObject({ tool: "ask", status: "input_required" });
      // A later watch knows the key is answered: it does not answer again, and stops the same way.
      const watch = await runCli(["watch", String(handle.taskId), "--json"], { home, timeoutMs: 30_000 });
      expectJsonError(watch, 4, /still asks for confirm/);
    });
  });

  it("update-ignored over stdio (v2, through the broker): exit 4 after the bound, and no warning on stderr", async () => {
    const home = tempHome();
    const run = await runCli(
      ["call", "ask", "--input", '{"ok":true}', "--stdio", hostileStdio("update-ignored", "v2")],
      { home, timeoutMs: 30_000 },
    );
    expectError(run, 4, /still asks for confirm/);
    expect(lines(run.stderr)).toBeLessThan(40); // a bounded number of questions; the runner's 30 s is hang-only
    expect(await stored(home)).toEqual([expect.objectContaining({ tool: "ask", status: "input_required" })]);
  });

  // Processes: run in-process one after the other, the 12 MB call reaches the broker of the 48 MB one at once and is
  // refused with its error ("larger than 32 MiB"); as processes the broker has left by then. Left to look into.
  it("huge-reply over stdio (v2, through the broker): a 48 MB line is refused with exit 4, a 12 MB one is read", async () => {
    const home = tempHome();
    const huge = await runProcess(["call", "huge", "mb=48", "--stdio", hostileStdio("huge-reply", "v2")], { home });
    expectError(huge, 4, /larger than 32 MiB/);
    expect(lines(huge.stderr)).toBeLessThanOrEqual(2); // the runner's 45 s is hang-only
    const big = await runProcess(["call", "huge", "mb=12", "--json", "--stdio", hostileStdio("huge-reply", "v2")], {
      home,
    });
    expect(big.code, big.stderr.slice(0, 500) + big.stdout.slice(-500)).toBe(0);
    expect(big.stdout.length).toBeGreaterThanOrEqual(12 * 1024 * 1024);
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

// ---- unsafe-ids: task ids that attack paths and shells ----

/** What the shell must never be made to do: the side effects the ids in UNSAFE_IDS attempt. */
function pwned(): string[] {
  return readdirSync("/tmp").filter((name) => name.startsWith("mcp-task-pwned"));
}

/** Every path under `root`, relative to it (directories end with /). */
function tree(root: string, at = ""): string[] {
  return readdirSync(join(root, at), { withFileTypes: true }).flatMap((entry) => {
    const path = join(at, entry.name);
    return entry.isDirectory() ? [`${path}/`, ...tree(root, path)] : [path];
  });
}

/** Runs `work` on every item, `width` at a time. */
async function pool<T>(items: T[], width: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const index = next++;
        await work(items[index], index);
      }
    }),
  );
}

/**
 * A place to run a hinted command line through /bin/sh: a PATH where `mcp-task` is a script that records its
 * arguments (one file per run), and a HOME of its own with a canary in it (for `x; rm -rf ~`).
 */
function shellSandbox() {
  const root = mkdtempSync(join(tmpdir(), "mcp-task-sh-"));
  for (const dir of ["bin", "home", "record"]) mkdirSync(join(root, dir));
  writeFileSync(
    join(root, "bin", "mcp-task"),
    '#!/bin/sh\nfor a in "$@"; do printf \'%s\\0\' "$a"; done > "$RECORD/run-$$"\n',
    { mode: 0o755 },
  );
  writeFileSync(join(root, "home", "canary"), "alive");
  return {
    /** Runs the line; returns the argument lists mcp-task was started with, and what sh wrote. */
    run(line: string) {
      for (const file of readdirSync(join(root, "record"))) rmSync(join(root, "record", file));
      const sh = spawnSync("/bin/sh", ["-c", line], {
        env: { PATH: `${join(root, "bin")}:/usr/bin:/bin`, HOME: join(root, "home"), RECORD: join(root, "record") },
        encoding: "utf8",
        timeout: 10_000,
      });
      const runs = readdirSync(join(root, "record")).map((file) =>
        readFileSync(join(root, "record", file), "utf8")
          .split("\0")
          .slice(0, -1),
      );
      return { code: sh.status, output: sh.stdout + sh.stderr, runs, home: readdirSync(join(root, "home")) };
    },
    dispose: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** The command lines a text run's stderr names (hints: "resume with: mcp-task watch <id>" and the like). */
function hintedCommands(stderr: string): string[] {
  return [...stderr.matchAll(/(?:^hint: |with: |result: )(mcp-task (?:watch|result|respond|get|cancel) .*)$/gm)].map(
    (m) => m[1].replace(/\s+\(or --decline\)$/, ""),
  );
}

describe("unsafe task ids", () => {
  it("invisible ids (v2): an id with zero-width characters, a word joiner, tags or a soft hyphen is shown without them, and found by what is shown", async () => {
    const invisible = UNSAFE_IDS.filter(
      (id) => /[\u200b-\u200d\u2060\ufeff\u00ad]|\p{Cf}/u.test(id) && !/[\u202e]/.test(id),
    );
    expect(invisible.length).toBeGreaterThanOrEqual(2);
    await withHttp("unsafe-ids", "v2", async (server) => {
      const home = tempHome();
      for (const id of invisible) {
        const call = await runCli(["call", "unsafe", `n=${UNSAFE_IDS.indexOf(id)}`, "--detach", "-s", server.url], {
          home,
        });
        expect(call.code, call.stderr).toBe(0);
        expectClean(call);
        const shown = call.stdout.trim();
        expect(shown).not.toBe(id);
        expect(shown).toBe(sanitizeLine(id));
        const get = await runCli(["get", "--", shown], { home });
        expect(get.code, get.stderr).toBe(0);
        expectClean(get);
        expect(get.stdout.startsWith(`${shown}  `), get.stdout).toBe(true);
        const json = await runCli(["get", "--json", "--", shown], { home });
        expectClean(json);
        expect(JSON.parse(json.stdout).taskId).toBe(id);
      }
      for (const args of [["list"], ["list", "--json"]]) expectClean(await runCli(args, { home }));
    });
  });

  // Answered and followed to the end (respond, result, get): the ids a shell would act on most.
  const TO_THE_END = [
    "$(touch /tmp/mcp-task-pwned-$$)",
    "x; rm -rf ~",
    "-rf /",
    "x\nmcp-task: fake line",
    'it\'s "quoted" !$HOME',
  ];

  for (const generation of BOTH) {
    it(`unsafe-ids (${generation}): ids that attack paths and shells are stored inside <home>/tasks, listed exactly, found by id, prefix and shown form, printed clean, and hinted so that sh runs mcp-task with that one argument`, async () => {
      for (const name of pwned()) rmSync(join("/tmp", name), { force: true }); // left by an earlier failing run
      const passwd = statSync("/etc/passwd").mtimeMs;
      // The home lies deep in a sandbox, so that a path escaping it by any number of ../ lands where we look.
      const sandbox = mkdtempSync(join(tmpdir(), "mcp-task-unsafe-"));
      const home = join(sandbox, "a", "b", "c", "d", "home");
      mkdirSync(home, { recursive: true, mode: 0o700 });
      homes.push(home);
      const textHome = tempHome();
      const sh = shellSandbox();
      const shown = (id: string) => sanitizeLine(id);
      // argv cannot carry NUL, and a lone surrogate arrives as U+FFFD: those ids are typed as shown.
      const typable = (id: string) => !id.includes("\u0000") && !/\p{Cs}/u.test(id);
      const server = await startHostileHttp("unsafe-ids", generation);
      const second = await startHostileHttp("unsafe-ids", generation);
      try {
        // call --detach --json saves each (the server gives the task of `unsafe n` the id UNSAFE_IDS[n]).
        await pool([...UNSAFE_IDS.entries()], 3, async ([n, id]) => {
          const call = await runCli(["call", "unsafe", `n=${n}`, "--detach", "--json", "-s", server.url], { home });
          expect(call.code, call.stderr).toBe(0);
          expectClean(call);
          expect(events(call.stdout)).toEqual([
            expect.objectContaining({ type: "task", taskId: id, status: "working" }),
          ]);
        });
        // The handles are files directly in <home>/tasks, one per id; nothing was made anywhere else.
        const files = readdirSync(join(home, "tasks")).filter(
          (name) => name.endsWith(".json") && !name.startsWith("."),
        );
        expect(files.map((name) => JSON.parse(readFileSync(join(home, "tasks", name), "utf8")).taskId).sort()).toEqual(
          [...UNSAFE_IDS].sort(),
        );
        for (const name of files) expect(name).toMatch(/^[A-Za-z0-9_%~-]+\.[0-9a-f]{8}\.json$/);
        // A handle's lock is a directory in <home>/tasks while a write holds it: CI once listed the tree while one was
        // still held (the lock of a hostile id, inside <home>/tasks). One that outlasts 10 s is a lock left behind,
        // and the checks below fail on it.
        await vi
          .waitFor(
            () => expect(readdirSync(join(home, "tasks")).filter((name) => name.startsWith(".lock-"))).toEqual([]),
            { timeout: 10_000, interval: 100 },
          )
          .catch(() => {});
        const paths = tree(sandbox);
        for (const path of paths)
          expect(path).toMatch(
            /^a\/(b\/(c\/(d\/(home\/(settings\.json|tasks\/|tasks\/[^/]+|brokers\/|brokers\/[0-9a-f]{16}(-[0-9a-f]{12})?\.(sock|json|json\.spec|log|trace|trace\.1|start\.lock\/))?)?)?)?)?$/,
          );
        expect(paths.filter((path) => /^a\/b\/c\/d\/home\/tasks\/.+\/$/.test(path))).toEqual([]);
        expect(pwned()).toEqual([]);

        // list --json shows each exact id; the text list is clean.
        expect((await stored(home)).map((h) => h.taskId).sort()).toEqual([...UNSAFE_IDS].sort());
        expectClean(await runCli(["list"], { home }));

        /** `get <word>` in text finds the task of `id` (its first line is the id as shown) and prints it clean. */
        const finds = async (word: string, id: string) => {
          const get = await runCli(["get", "--", word], { home });
          expect(get.code, `get ${JSON.stringify(word)}: ${get.stderr}`).toBe(0);
          expectClean(get);
          expect(
            get.stdout.split("\n")[0].startsWith(`${shown(id)}  `),
            `get ${JSON.stringify(word)}: ${get.stdout}`,
          ).toBe(true);
          return get;
        };
        /** Runs each command line a hint names through sh: mcp-task runs once, with the id as shown as one argument. */
        const checkHints = (id: string, text: string, seen: Set<string>) => {
          for (const line of hintedCommands(text)) {
            const verb = line.split(" ")[1];
            seen.add(verb);
            const ran = sh.run(line);
            expect({ code: ran.code, output: ran.output, home: ran.home }, line).toEqual({
              code: 0,
              output: "",
              home: ["canary"],
            });
            const word = shown(id);
            expect(ran.runs, line).toEqual([
              [
                verb,
                ...(verb === "respond" ? ["--input", "{...}"] : []),
                ...(word.startsWith("-") ? ["--"] : []),
                word,
              ],
            ]);
            expect(pwned(), line).toEqual([]);
          }
        };

        await pool([...UNSAFE_IDS.entries()], 3, async ([n, id]) => {
          const word = typable(id) ? id : shown(id);
          const prefix = [...Array(word.length).keys()]
            .reverse()
            .map((k) => word.slice(0, k))
            .find(
              (p) =>
                p.length >= 4 &&
                UNSAFE_IDS.filter((other) => other.startsWith(p) || shown(other).startsWith(p)).length === 1,
            );
          // get, watch and result each find it, by turns by the exact id (as typed), by the longest unambiguous
          // prefix, and by the id as shown (what hints and `call --detach` print).
          const forms = [word, prefix ?? word, shown(id)];
          const given = (k: number) => forms[(n + k) % 3];
          const seen = new Set<string>();
          await finds(given(0), id);
          // The task waits for input by now: watch and result stop at once, and say how to go on.
          const watch = await runCli(["watch", "--timeout", "1ms", "--", given(1)], { home });
          expect([6, 7], watch.stderr).toContain(watch.code);
          expectClean(watch);
          expect(watch.stderr).toContain(`following task ${shown(id)} (`);
          checkHints(id, watch.stderr, seen);
          const early = await runCli(["result", "--no-wait", "--", given(2)], { home });
          expect(early.code, early.stderr).toBe(7);
          expectClean(early);
          expect(early.stderr).toContain(`task ${shown(id)} is still`);
          checkHints(id, early.stderr, seen);
          if (TO_THE_END.includes(id)) {
            const respond = await runCli(["respond", "--input", '{"ok":true}', "--", word], { home });
            expect(respond.code, respond.stderr).toBe(0);
            expectClean(respond);
            checkHints(id, respond.stdout, seen);
            const result = await runCli(["result", "--", word], { home });
            expect(result.code, result.stderr).toBe(0);
            expectClean(result);
            expect(result.stdout).toBe(`done ${sanitize(id)}\n`);
            checkHints(id, (await finds(word, id)).stdout, seen);
            expect(seen, JSON.stringify(id)).toContain("result");
          }
          expect(seen.size, `no hint checked for ${JSON.stringify(id)} (${n})`).toBeGreaterThan(0);
        });

        // The long id: prefixes whose file-name form is longer than the 100 characters kept of a long id's name.
        const long = UNSAFE_IDS.find((id) => id.length > 250)!;
        expect(fileStem(long.slice(0, 57), "").length).toBeGreaterThan(101);
        for (const length of [57, long.length - 1]) await finds(long.slice(0, length), long);

        // call --detach in text: stdout is the id as shown, one clean line.
        await pool(
          UNSAFE_IDS.filter((id) => shown(id) !== id),
          3,
          async (id) => {
            const call = await runCli(["call", "unsafe", `n=${UNSAFE_IDS.indexOf(id)}`, "--detach", "-s", second.url], {
              home: textHome,
            });
            expect(call.code, call.stderr).toBe(0);
            expectClean(call);
            expect(call.stdout).toBe(`${shown(id)}\n`); // which finds it (above)
          },
        );
        expect(pwned()).toEqual([]);
        expect(statSync("/etc/passwd").mtimeMs).toBe(passwd);
        expect(
          tree(sandbox).every((path) => path.startsWith("a/b/c/d/home/") || "a/b/c/d/home/".startsWith(path)),
        ).toBe(true);
      } finally {
        sh.dispose();
        await server.stop();
        await second.stop();
      }
    }, 480_000); // some 130 commands: a minute on an idle machine, four on a busy one
  }
});
