// The workbench commands against real servers: `tools <name>`, `respond --template`, `list --watch --json`,
// shell completion, `server logs` after a stdio server crashed, and `wait --all` over two servers of both
// generations. In-process (runInProcess) but for what is about a process: the shell running the binary's completion
// script, and `list --watch` ended by a signal.
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync, chmodSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { events, startCli, tempHome } from "../helpers/cli.js";
import { runInProcess } from "../helpers/context.js";
import { until } from "../helpers/until.js";
import { ROOT, startEverythingHttp, startV2Http, v2Stdio, type RunningServer } from "../helpers/servers.js";

let v2: RunningServer;
beforeAll(async () => {
  v2 = await startV2Http();
});
afterAll(async () => {
  await v2?.stop();
});

async function detach(home: string, args: string[]): Promise<string> {
  const run = await runInProcess(["call", ...args, "--detach", "--json"], { home });
  expect(run.code, run.stderr).toBe(0);
  return events(run.stdout)[0]!.taskId as string;
}

describe("workbench", { timeout: 90_000 }, () => {
  it("tools <name> shows one tool's schemas exactly as sent, and its task support", async () => {
    const run = await runInProcess(["tools", "task_structured", "-s", v2.url, "--json"], { home: tempHome() });
    expect(run.code, run.stderr).toBe(0);
    const tool = JSON.parse(run.stdout);
    expect(tool.name).toBe("task_structured");
    expect(tool.inputSchema.properties.ms).toMatchObject({ type: "integer", default: 600 });
    expect(tool.outputSchema.type).toBe("object");
    const text = await runInProcess(["tools", "task_structured", "-s", v2.url], { home: tempHome() });
    expect(text.stdout).toMatch(/^task_structured: server-decides\n[\s\S]*input schema:\n {2}\{\n/);
    const missing = await runInProcess(["tools", "nope", "-s", v2.url], { home: tempHome() });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/has no tool named nope\nhint: see its tools with: mcp-task tools -s /);
  });

  it("respond --template prints a skeleton of the question; given back with --input, it answers it", async () => {
    const home = tempHome();
    const id = await detach(home, ["task_input_once", "ms=200", "-s", v2.url]);
    // The task asks after 200 ms: until then it lists no question (exit 6, with a hint that works).
    const asked: Array<number | null> = [];
    const run = await until(
      async () => {
        const attempt = await runInProcess(["respond", id, "--template"], { home });
        asked.push(attempt.code);
        return attempt.code === 0 ? attempt : attempt.code === 6 ? undefined : attempt;
      },
      { everyMs: 100, what: "the question" },
    );
    expect(asked.slice(0, -1).every((code) => code === 6)).toBe(true);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ name: "" });
    expect(run.stderr).toMatch(/name: string, required/);
    expect(run.stderr).toMatch(new RegExp(`answer with: mcp-task respond --input @answer.json ${id}`));
    const file = join(home, "answer.json");
    writeFileSync(file, JSON.stringify({ ...JSON.parse(run.stdout), name: "Ada" }));
    const answered = await runInProcess(["respond", id, "--input", `@${file}`], { home });
    expect(answered.code, answered.stderr).toBe(0);
    const result = await runInProcess(["result", id], { home });
    expect(result.stdout).toContain("Hello, Ada");
    const ended = await runInProcess(["respond", id, "--template"], { home });
    expect(ended.code).toBe(2);
    expect(ended.stderr).toMatch(/has ended \(completed\): nothing to answer/);
  });

  it("list --watch --json: the tasks there, then each change once, as other processes make them", async () => {
    const home = tempHome();
    const first = await detach(home, ["task_complete", "ms=300", "-s", v2.url]);
    await runInProcess(["watch", first], { home });
    const watching = startCli(["list", "--watch", "--json"], { home });
    await until(() => watching.output.stdout.includes(first));
    const second = await detach(home, ["task_complete", "ms=1500", "-s", v2.url]);
    await runInProcess(["watch", second], { home });
    await until(() =>
      watching.output.stdout.split("\n").some((line) => line.includes(second) && line.includes('"status":"completed"')),
    );
    await runInProcess(["forget", first], { home });
    await until(() => watching.output.stdout.includes('"change":"removed"'));
    // The watch ends as a user ends it, by a signal: it is the one process here.
    watching.child.kill("SIGINT");
    expect(await watching.exited).toBe(0);
    const lines = watching.output.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { change: string; task: { taskId: string; status: string } });
    const of = (id: string) => lines.filter((l) => l.task.taskId === id).map((l) => `${l.change}:${l.task.status}`);
    expect(of(first)).toEqual(["task:completed", "removed:completed"]);
    // Added (working, or already completed on a slow machine), then completed: each change once, so no line repeats
    // the one before (a handle written twice for one change, its status and then its outcome, is one change).
    expect(of(second)[0]).toMatch(/^added:(working|completed)$/);
    expect(of(second).at(-1)).toMatch(/:completed$/);
    expect(of(second).filter((line, i, all) => line === all[i - 1])).toEqual([]);
    expect(of(second).filter((line) => line.endsWith(":completed"))).toHaveLength(1);
  });

  it("completion bash: commands, flags, saved servers and task ids", async () => {
    // bash sources the binary's completion script and runs the binary for names and ids: processes.
    const home = tempHome();
    expect((await runInProcess(["server", "add", "prod", "--url", v2.url], { home })).code).toBe(0);
    const id = await detach(home, ["task_complete", "ms=100", "-s", "prod"]);
    const bin = join(home, "bin");
    mkdirSync(bin);
    writeFileSync(
      join(bin, "mcp-task"),
      `#!/bin/sh\nexec "${process.execPath}" "${join(ROOT, "bin/mcp-task.js")}" "$@"\n`,
    );
    chmodSync(join(bin, "mcp-task"), 0o755);
    const complete = (line: string) =>
      execFileSync(
        "bash",
        [
          "-c",
          `source <(mcp-task completion bash); read -ra W <<<"$LINE"; COMP_WORDS=("\${W[@]}"); COMP_CWORD=$((\${#W[@]}-1)); [[ "$LINE" == *" " ]] && COMP_CWORD=\${#W[@]} && COMP_WORDS+=(""); _mcp_task; echo "\${COMPREPLY[*]}"`,
        ],
        {
          env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, MCP_TASK_HOME: home, LINE: line },
          encoding: "utf8",
        },
      ).trim();
    expect(complete("mcp-task wa").split(" ").sort()).toEqual(["wait", "watch"]);
    expect(complete("mcp-task server l")).toBe("list logs");
    expect(complete("mcp-task call --js")).toBe("--json");
    expect(complete("mcp-task login p")).toBe("prod");
    expect(complete(`mcp-task watch ${id.slice(0, 4)}`)).toBe(id);
  });

  it("server logs: a stdio server's stderr, kept after it crashed", async () => {
    const home = tempHome();
    const id = await detach(home, ["task_slow", "ms=60000", "--stdio", v2Stdio()]);
    const ps = JSON.parse((await runInProcess(["server", "ps", "--json"], { home })).stdout);
    process.kill(ps[0].serverPid, "SIGKILL");
    const watched = await runInProcess(["watch", id], { home });
    expect(watched.code).toBe(4);
    const logs = await runInProcess(["server", "logs", v2Stdio()], { home });
    expect(logs.code, logs.stderr).toBe(0);
    expect(logs.stdout).toMatch(/server stderr: \[v2-server\] task \S+ created by task_slow/);
  });

  it("wait --all over two servers of both generations: the documented combined code", async () => {
    const home = tempHome();
    const everything = await startEverythingHttp();
    try {
      const v1 = await detach(home, ["simulate-research-query", "topic=x", "-s", everything.url]);
      const v2ok = await detach(home, ["task_complete", "ms=500", "-s", v2.url]);
      const v2failed = await detach(home, ["task_fail", "ms=700", "-s", v2.url]);
      const all = await runInProcess(["wait", "--all", v1, v2ok, v2failed, "--json"], { home });
      // The first task, in the order given, that did not complete decides: task_fail, exit 1.
      expect(all.code, all.stderr).toBe(1);
      const outcomes = events(all.stdout).map((e) => [e.taskId, e.status]);
      expect(outcomes).toEqual(
        expect.arrayContaining([
          [v1, "completed"],
          [v2ok, "completed"],
          [v2failed, "failed"],
        ]),
      );
    } finally {
      await everything.stop();
    }
  });
});
