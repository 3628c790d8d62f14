// A real terminal under tmux: on a TTY, a task's question is asked of the person, and the answer flows back.
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { tempHome } from "./helpers/cli.js";
import { ROOT, startV2Http, type RunningServer } from "./helpers/servers.js";

let server: RunningServer;
const session = `mcp-task-tty-${process.pid}`;
const tmux = (...args: string[]) => execFileSync("tmux", args, { encoding: "utf8" });
const screen = () => tmux("capture-pane", "-p", "-t", session);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor(pattern: RegExp, timeoutMs = 15_000): Promise<string> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const text = screen();
    if (pattern.test(text)) return text;
    if (Date.now() > until) throw new Error(`screen never showed ${pattern}:\n${text}`);
    await sleep(100);
  }
}

beforeAll(async () => {
  server = await startV2Http();
});
afterAll(async () => {
  try {
    tmux("kill-session", "-t", session);
  } catch {
    /* already gone */
  }
  await server?.stop();
});

it("asks a person at a terminal, field by field, and finishes the task", async () => {
  const home = tempHome();
  const command = `env -u CI NO_COLOR=1 MCP_TASK_HOME=${home} ${process.execPath} ${join(ROOT, "bin/mcp-task.js")} call task_input_twice -s ${server.url}; echo EXIT=$?; sleep 60`;
  tmux("new-session", "-d", "-s", session, "-x", "120", "-y", "40", command);
  await waitFor(/Pick a colour[\s\S]*answer, decline or cancel\?/);
  tmux("send-keys", "-t", session, "Enter");
  await waitFor(/Colour \[1-3\]/);
  tmux("send-keys", "-t", session, "3", "Enter");
  await waitFor(/Use blue\?[\s\S]*answer, decline or cancel\?/);
  tmux("send-keys", "-t", session, "Enter");
  await waitFor(/Confirm \[y\/n\]/);
  tmux("send-keys", "-t", session, "n", "Enter");
  const done = await waitFor(/EXIT=\d+/);
  expect(done).toMatch(/color=blue, confirm=false/);
  expect(done).toMatch(/EXIT=0/);
});
