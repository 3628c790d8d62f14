// What a person reads when something is not right, each message's exact text and exit code (docs/cli.md): the
// cause of a failed connection in a person's words, the same on every command (src/protocol/failures.ts names
// them); "Did you mean" for a misspelt tool or command; key=value read as the tool's inputSchema declares; `server
// add` over another server; `forget` and `prune` naming what they drop; `list` saying that nothing matched. In-process
// (runInProcess), against our V2 test server; the binary only where a process is the point.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempHome } from "../helpers/cli.js";
import { runInProcess } from "../helpers/context.js";
import { freePort, startV2Http, type RunningServer } from "../helpers/servers.js";
import { typedArgs } from "../../src/tasks/tool-check.js";

let v2: RunningServer;
beforeAll(async () => {
  v2 = await startV2Http();
});
afterAll(async () => {
  await v2?.stop();
});

describe("why a server cannot be reached, the same words on every command", () => {
  it("a refused connection: tools, call and check say connection refused (exit 4)", async () => {
    const port = await freePort(); // nothing listens there once freePort has closed it
    const url = `http://127.0.0.1:${port}/mcp`;
    const expected =
      `mcp-task: error: cannot reach http://127.0.0.1:${port}: connection refused\n` +
      "hint: check that the server is running and the URL is right\n";
    for (const argv of [["tools"], ["call", "echo", "text=x"], ["check"]]) {
      const run = await runInProcess([...argv, "-s", url], { home: tempHome() });
      expect(run.code, argv.join(" ")).toBe(4);
      expect(run.stderr, argv.join(" ")).toBe(expected);
    }
  });

  it("a port fetch will not use (port 1): said so, not 'fetch failed' (exit 4)", async () => {
    const run = await runInProcess(["tools", "-s", "http://127.0.0.1:1/mcp"], { home: tempHome() });
    expect(run.code).toBe(4);
    expect(run.stderr).toBe(
      "mcp-task: error: cannot reach http://127.0.0.1:1: port 1 is one that fetch refuses to connect to (a restricted port)\n" +
        "hint: run the server on another port\n",
    );
  });

  it("a stdio server that exits: its exit code and its last words, not 'Connection closed' (exit 4)", async () => {
    const line = "sh -c 'echo bye >&2; exit 3'";
    for (const argv of [["tools"], ["call", "echo", "text=x", "--no-task"]]) {
      const run = await runInProcess([...argv, "--stdio", line], { home: tempHome() });
      expect(run.code, argv.join(" ")).toBe(4);
      expect(run.stderr, argv.join(" ")).toBe(
        "mcp-task: error: the server process exited with code 3 (sh -c echo bye >&2; exit 3); its stderr ends with: bye\n" +
          "hint: check the command with --stdio, or run it by hand\n",
      );
    }
  });

  it("a stdio server that never answers: said early on a terminal, then initialize not answered within the bound (exit 4)", async () => {
    // MCP_TASK_REQUEST_TIMEOUT=1s makes the handshake's bound its least: a 1 s server/discover probe, then 5 s for
    // initialize (PROBE_MIN_TIMEOUT_MS), so the test waits 6 s, not the default 70. process-timing: the bound is the
    // server's silence, which only passing time shows; the note comes 3 s in, half-way.
    const env = { MCP_TASK_REQUEST_TIMEOUT: "1s" };
    const error =
      "mcp-task: error: the server did not answer initialize within 6 s (sleep 100)\n" +
      "hint: check the command with --stdio, or run it by hand\n";
    // A person at a terminal, and a script (into a pipe or a log: the error alone), at once.
    const [person, script] = await Promise.all([
      runInProcess(["tools", "--stdio", "sleep 100"], { home: tempHome(), env, stderrIsTTY: true }),
      runInProcess(["call", "echo", "--no-task", "--stdio", "sleep 100"], { home: tempHome(), env }),
    ]);
    expect(person.code).toBe(4);
    expect(person.stderr).toBe(
      "mcp-task: sleep 100 has not answered initialize yet; waiting up to 6 s in all\n" + error,
    );
    expect(script.code).toBe(4);
    expect(script.stderr).toBe(error);
  });
});

describe("Did you mean", () => {
  it("a misspelt tool, on call and on tools (exit 2)", async () => {
    const home = tempHome();
    const call = await runInProcess(["call", "ecoh", "text=x", "-s", v2.url], { home });
    expect(call.code).toBe(2);
    expect(call.stderr).toBe(
      `mcp-task: error: ${v2.url} has no tool named ecoh (Did you mean echo?)\n` +
        `hint: list the tools with: mcp-task tools -s ${v2.url}\n`,
    );
    const tools = await runInProcess(["tools", "task_compleet", "-s", v2.url], { home });
    expect(tools.code).toBe(2);
    expect(tools.stderr).toBe(
      `mcp-task: error: ${v2.url} has no tool named task_compleet (Did you mean task_complete?)\n` +
        `hint: see its tools with: mcp-task tools -s ${v2.url}\n`,
    );
    // Nothing near: no guess.
    const far = await runInProcess(["call", "zzzzzzzz", "-s", v2.url], { home });
    expect(far.stderr).toBe(
      `mcp-task: error: ${v2.url} has no tool named zzzzzzzz\nhint: list the tools with: mcp-task tools -s ${v2.url}\n`,
    );
  });

  it("a misspelt command and subcommand (commander's suggestions, on) (exit 2)", async () => {
    const home = tempHome();
    const top = await runInProcess(["lsit"], { home });
    expect(top.code).toBe(2);
    expect(top.stderr).toBe(
      "mcp-task: error: unknown command 'lsit' (Did you mean list?) (run with --help for usage)\n",
    );
    const sub = await runInProcess(["server", "ad"], { home });
    expect(sub.code).toBe(2);
    expect(sub.stderr).toBe("mcp-task: error: unknown command 'ad' (Did you mean add?) (run with --help for usage)\n");
  });
});

describe("key=value read as the tool's inputSchema declares", () => {
  it("message=42 stays the string 42 where the schema says string; a number stays a number", async () => {
    const home = tempHome();
    const echo = await runInProcess(["call", "echo", "text=42", "-s", v2.url], { home });
    expect(echo.code, echo.stderr).toBe(0);
    expect(echo.stdout).toBe("42\n");
    const flag = await runInProcess(["call", "echo", "text=true", "-s", v2.url], { home });
    expect(flag.stdout).toBe("true\n");
    // task_complete: ms is an integer, text a string.
    const both = await runInProcess(["call", "task_complete", "ms=50", "text=[1, 2]", "-s", v2.url], { home });
    expect(both.code, both.stderr).toBe(0);
    expect(both.stdout).toBe("[1, 2]\n");
  });

  it("typedArgs: string, number, integer, boolean, unions, and keys not typed as key=value", () => {
    const schema = {
      properties: {
        s: { type: "string" },
        n: { type: "number" },
        i: { type: "integer" },
        b: { type: "boolean" },
        u: { type: ["number", "string"] },
        free: {},
      },
    };
    const typed = { s: "42", n: ".5", i: "7", b: "true", u: "42", free: "42", absent: "x" };
    const given = { s: 42, n: ".5", i: 7, b: true, u: 42, free: 42, fromArgs: 1 };
    expect(typedArgs(schema, given, typed)).toEqual({
      s: "42",
      n: 0.5,
      i: 7,
      b: true,
      u: 42,
      free: 42,
      fromArgs: 1,
    });
    // A value the schema does not take, and no string allowed: left for the schema check to refuse.
    expect(typedArgs(schema, { b: "yes" }, { b: "yes" })).toEqual({ b: "yes" });
    expect(typedArgs({ properties: { __proto__: { type: "string" } } }, { ["__proto__"]: 1 }, {})).toEqual({
      ["__proto__"]: 1,
    });
  });
});

describe("server add over a name already saved", () => {
  it("refuses another server without --force (exit 2, one line naming the flag); the same one again is no change", async () => {
    const home = tempHome();
    const add = (...argv: string[]) => runInProcess(["server", "add", "it", ...argv], { home });
    expect((await add("--url", "http://127.0.0.1:9/a")).code).toBe(0);
    const again = await add("--url", "http://127.0.0.1:9/a");
    expect(again.code).toBe(0);
    expect(again.stderr).toBe("mcp-task: saved server it: http://127.0.0.1:9/a\n");
    const other = await add("--url", "http://127.0.0.1:9/b");
    expect(other.code).toBe(2);
    expect(other.stderr).toBe(
      "mcp-task: error: a server named it is saved already (http://127.0.0.1:9/a); add --force to replace it\n",
    );
    const listed = await runInProcess(["server", "list"], { home });
    expect(listed.stdout).toContain("http://127.0.0.1:9/a");
    expect(listed.stdout).not.toContain("http://127.0.0.1:9/b");
    const forced = await add("--url", "http://127.0.0.1:9/b", "--force");
    expect(forced.code).toBe(0);
    expect((await runInProcess(["server", "list"], { home })).stdout).toContain("http://127.0.0.1:9/b");
  });
});

describe("forget, prune and list say what they did", () => {
  it("list with nothing saved says how to start; --json stays the empty list", async () => {
    const home = tempHome();
    const hint =
      "mcp-task: no tasks saved yet: start one with mcp-task call <tool> -s <server>, or see one with mcp-task demo\n";
    for (const stdoutIsTTY of [false, true]) {
      const text = await runInProcess(["list"], { home, stdoutIsTTY });
      expect(text.code).toBe(0);
      expect(text.stdout).toBe("");
      expect(text.stderr).toBe(hint);
    }
    const json = await runInProcess(["list", "--json"], { home });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual([]);
    expect(json.stderr).toBe("");
  });

  it("forget checks every id before dropping any; forget and prune name what they drop; prune --dry-run drops none", async () => {
    const home = tempHome();
    const done = await runInProcess(["call", "task_complete", "ms=50", "text=ok", "-s", v2.url, "--json"], { home });
    expect(done.code, done.stderr).toBe(0);
    const doneId = JSON.parse(done.stdout.split("\n")[0]!).taskId as string;
    const slow = await runInProcess(["call", "task_slow", "ms=600000", "-s", v2.url, "--detach"], { home });
    expect(slow.code, slow.stderr).toBe(0);
    const slowId = slow.stdout.trim();
    const saved = async () =>
      (JSON.parse((await runInProcess(["list", "--json"], { home })).stdout) as Array<{ taskId: string }>)
        .map((row) => row.taskId)
        .sort();
    const both = [doneId, slowId].sort();
    expect(await saved()).toEqual(both);

    const none = await runInProcess(["list", "--status", "failed"], { home });
    expect(none.stderr).toBe("mcp-task: no task matches --status failed\n");

    // A typo in the second id: nothing dropped, exit 5 naming it.
    const typo = await runInProcess(["forget", slowId, "nope"], { home });
    expect(typo.code).toBe(5);
    expect(typo.stdout).toBe("");
    expect(typo.stderr).toBe(
      "mcp-task: error: no saved task matches nope\nhint: see the saved tasks with: mcp-task list\n",
    );
    expect(await saved()).toEqual(both);

    const dry = await runInProcess(["prune", "--dry-run"], { home });
    expect(dry.code).toBe(0);
    expect(dry.stdout).toBe(`${doneId}  task_complete on ${v2.url} (completed)\n`);
    expect(dry.stderr).toBe("mcp-task: would drop 1 handle(s) (--dry-run: none dropped)\n");
    expect(await saved()).toEqual(both);

    const pruned = await runInProcess(["prune"], { home });
    expect(pruned.code).toBe(0);
    expect(pruned.stdout).toBe(`${doneId}  task_complete on ${v2.url} (completed)\n`);
    expect(pruned.stderr).toBe("mcp-task: dropped 1 handle(s)\n");
    expect(await saved()).toEqual([slowId]);

    const forgot = await runInProcess(["forget", slowId], { home });
    expect(forgot.code).toBe(0);
    expect(forgot.stdout).toBe(`${slowId}  task_slow on ${v2.url} (working)\n`);
    expect(await saved()).toEqual([]);
  });
});
