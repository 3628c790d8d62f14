// A second follower of a V1 stdio task whose question another process holds: a `watch` at a real terminal (tmux,
// its line prompt: stdout to a file) is handed the question by the server's broker; a second `watch` of the same
// task (the binary, no terminal) says once which process holds it and what to do, and neither asks nor answers it.
// The first answers it, and both see the task complete; or the first leaves without answering (Ctrl-C), and the
// question comes to the second, which answers it with --input. Against the server on the official SDK's v1 line
// (test/servers/sdk-v1-server.ts) over stdio, through its broker. Processes by nature: two commands, a terminal, a
// signal. Each wait is for an event, under a hang-only bound (tmux's waitFor, until's 30 s).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, it, onTestFinished } from "vitest";
import { runCli, startCli, tempHome } from "../helpers/cli.js";
import { SDK_V1_SERVER } from "../helpers/servers.js";
import { bin, tmuxTerminal } from "../helpers/tmux.js";
import { until } from "../helpers/until.js";

const { keys, waitFor, terminal, close } = tmuxTerminal("mcp-task-held");
afterEach(() => close());

const STDIO = ["--stdio", `node ${SDK_V1_SERVER} --stdio`];

/** A detached `confirm` task on the stdio server (its broker holds its question), and a `watch` of it at a terminal
 *  that has been handed the question (its prompt is up). */
async function heldAtATerminal(home: string, item: string): Promise<string> {
  const call = await runCli(["call", "confirm", `item=${item}`, ...STDIO, "--detach"], { home });
  expect(call.code, call.stderr).toBe(0);
  const id = call.stdout.trim();
  terminal(home, `${bin} watch ${id} > ${join(home, "first.out")}`);
  await waitFor(new RegExp(`Confirm ${item}[\\s\\S]*answer, decline or cancel\\?`), 30_000);
  return id;
}

/** The line a follower says of a question the process `pid` holds, running `mcp-task watch <id>`. */
const heldLine = (id: string, pid: string) =>
  `mcp-task: the question is being answered in another process (pid ${pid}: mcp-task watch ${id}); answer it there, or stop that one and run: mcp-task watch ${id}`;

/** A running process's argv (Linux: /proc). */
const argvOf = (pid: string) => readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);

/** The pid the second follower names, once it has said the line (checked to be the watch at the terminal). */
async function namedHolder(output: { stderr: string }, id: string): Promise<string> {
  const pid = await until(() => /in another process \(pid (\d+): /.exec(output.stderr)?.[1], {
    what: "the second watch saying which process holds the question",
  });
  // The process it names is the first watch: its command line is `... bin/mcp-task.js watch <id>`.
  expect(argvOf(pid).slice(-2)).toEqual(["watch", id]);
  return pid;
}

it.skipIf(process.platform !== "linux")(
  "a second watch says which process holds the question, asks nothing, and ends when the first one answers",
  { timeout: 120_000 },
  async () => {
    const home = tempHome();
    const id = await heldAtATerminal(home, "first");
    const second = startCli(["watch", id], { home });
    onTestFinished(() => void second.child.kill()); // stopped, passed or failed
    const pid = await namedHolder(second.output, id);
    expect(second.output.stderr).toContain(heldLine(id, pid));
    // It neither asks nor refuses (no input to give here would be exit 6): it follows on.
    expect(second.output.stderr).not.toMatch(/answer, decline or cancel|needs input|error:/);

    // The first answers at its terminal: the task completes, for both.
    keys("Enter"); // answer (the default)
    await waitFor(/Name:/);
    keys("Bo", "Enter");
    await waitFor(/Count:/);
    keys("1", "Enter");
    expect(await waitFor(/EXIT=\d+/)).toMatch(/EXIT=0/);
    expect(JSON.parse(readFileSync(join(home, "first.out"), "utf8"))).toMatchObject({
      item: "first",
      action: "accept",
      content: { name: "Bo", count: 1 },
    });
    expect(await second.exited).toBe(0);
    expect(JSON.parse(second.output.stdout)).toMatchObject({ item: "first", content: { name: "Bo", count: 1 } });
    // Said once, however many reads it made meanwhile.
    expect(second.output.stderr.split(heldLine(id, pid)).length - 1).toBe(1);
  },
);

it.skipIf(process.platform !== "linux")(
  "when the process that holds the question leaves without answering, the question comes to the second watch",
  { timeout: 120_000 },
  async () => {
    const home = tempHome();
    const id = await heldAtATerminal(home, "left");
    const second = startCli(["watch", id, "--input", '{"name":"Al","count":2}', "--json"], { home });
    onTestFinished(() => void second.child.kill()); // stopped, passed or failed
    const pid = await until(
      () =>
        second.output.stdout
          .split("\n")
          .filter(Boolean)
          .map((line) => JSON.parse(line) as { type: string; heldBy?: { pid: number; command: string } })
          .find((event) => event.type === "input")?.heldBy,
      { what: "the second watch's input event marked heldBy" },
    );
    expect(pid.command).toBe(`mcp-task watch ${id}`);
    expect(argvOf(String(pid.pid)).slice(-2)).toEqual(["watch", id]);
    // With --input it could answer, and does not while the first holds the question.
    const status = await runCli(["get", id, "--json"], { home });
    expect(JSON.parse(status.stdout).status).toBe("input_required");

    keys("C-c"); // the first leaves without answering
    expect(await waitFor(/EXIT=\d+/)).toMatch(/EXIT=130/);
    expect(await second.exited).toBe(0);
    const result = second.output.stdout
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { type: string; result?: { content: Array<{ text: string }> } })
      .find((event) => event.type === "result");
    expect(JSON.parse(result!.result!.content[0].text)).toMatchObject({
      item: "left",
      action: "accept",
      content: { name: "Al", count: 2 },
    });
  },
);
