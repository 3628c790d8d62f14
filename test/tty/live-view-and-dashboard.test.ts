// Real terminals under tmux: the live view and input form of `call`, the dashboard answering questions of tasks on
// a V1 and a V2 server, and the line prompt when stdout is not a terminal. What is done around the terminal (a task
// detached before, its result read after) runs in-process; the terminal's command, and the demo's, are processes.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, expect, it, vi } from "vitest";
import { events, runCli, tempHome } from "../helpers/cli.js";
import { runInProcess } from "../helpers/context.js";
import { everythingStdio, startEverythingHttp, startV2Http, type RunningServer } from "../helpers/servers.js";
import { bin, sleep, tmuxTerminal } from "../helpers/tmux.js";

// Every waitFor's bound is the helper's hang-only 60 s: a screen that never comes, not how fast it comes; and each
// test's timeout is hang-only too (several such waits, and processes starting, on a loaded machine).
vi.setConfig({ testTimeout: 180_000 });
const { keys, waitFor, terminal, close, resize } = tmuxTerminal("mcp-task-tty");

let v2: RunningServer;
let v1: RunningServer;

beforeAll(async () => {
  [v1, v2] = await Promise.all([startEverythingHttp(), startV2Http()]);
});
afterEach(() => close());
afterAll(async () => {
  await Promise.all([v1?.stop(), v2?.stop()]);
});

it("call on a terminal shows the live view and asks through the form, twice", async () => {
  const home = tempHome();
  terminal(home, `${bin} call task_input_twice -s ${v2.url}`);
  await waitFor(/input_required[\s\S]*Pick a colour[\s\S]*Colour \*/);
  keys("Enter"); // open the list of choices
  await waitFor(/\( \) blue/);
  keys("Down");
  keys("Down");
  keys("Enter"); // pick blue
  await sleep(200);
  keys("Enter"); // accept
  await waitFor(/Use blue\?[\s\S]*Confirm \*/);
  keys("Space");
  await sleep(200);
  keys("Enter");
  const done = await waitFor(/EXIT=\d+/);
  expect(done).toMatch(/color=blue, confirm=true/);
  expect(done).toMatch(/EXIT=0/);
});

it("the dashboard follows tasks on a V1 and a V2 server, and answers both through the form", async () => {
  const home = tempHome();
  const detach = async (...args: string[]) =>
    events((await runInProcess(["call", ...args, "--detach", "--json"], { home })).stdout)[0].taskId as string;
  await detach("simulate-research-query", "topic=python", "ambiguous=true", "-s", v1.url);
  await detach("task_input_once", "ms=300", "-s", v2.url);
  terminal(home, `${bin} dashboard`);
  await waitFor(/2 tasks/);
  for (let answered = 0; answered < 2;) {
    const text = await waitFor(/[1-9] waiting for you/);
    expect(text).toContain("mcp-task dashboard");
    keys("a");
    const form = await waitFor(/asks for input/);
    if (/Clarification/.test(form)) {
      keys("Enter");
      await waitFor(/\( \) Python snake species/);
      keys("Down");
      keys("Enter");
      await sleep(200);
      keys("Enter");
    } else {
      for (const ch of "Ada") keys(ch);
      await sleep(200);
      keys("Enter");
    }
    answered++;
    await waitFor(/answer (sent|delivered)/);
  }
  const list = await waitFor(/✓ completed[\s\S]*✓ completed/);
  expect(list).toMatch(/0 waiting for you/);
  expect(list).toMatch(/STATUS\s+TOOL\s+ID\s+SERVER\s+AGE\s+SINCE\s+TTL/);
  // A narrower terminal: the view follows, keeping the server column (the time in status gives way).
  resize("-x", "90", "-y", "30");
  await waitFor(/STATUS\s+TOOL\s+ID\s+SERVER\s+AGE\s+TTL/);
  keys("q");
  expect(await waitFor(/EXIT=\d+/)).toMatch(/EXIT=0/);
  const results = await Promise.all(
    JSON.parse((await runInProcess(["list", "--json"], { home })).stdout).map(
      async (row: { taskId: string }) => (await runInProcess(["result", row.taskId], { home })).stdout,
    ),
  );
  expect(results.join("\n")).toMatch(/Research Report: python \(snake\)/);
  expect(results.join("\n")).toMatch(/Hello, Ada/);
});

it("Ctrl-C while the live view shows a form stops waiting (exit 130); the question is answered later by respond", async () => {
  const home = tempHome();
  terminal(home, `${bin} call task_input_once -s ${v2.url}`);
  await waitFor(/input_required[\s\S]*What is your name/);
  keys("C-c");
  const text = await waitFor(/EXIT=\d+/);
  expect(text).toMatch(/EXIT=130/);
  expect(text).toMatch(/resume with: mcp-task watch/);
  const [row] = JSON.parse((await runInProcess(["list", "--json"], { home })).stdout) as Array<{ taskId: string }>;
  const answered = await runInProcess(["respond", row.taskId, "--input", '{"name":"Later"}'], { home });
  expect(answered.code, answered.stderr).toBe(0);
  const result = await runInProcess(["result", row.taskId], { home });
  expect(result.stdout).toContain("Hello, Later");
});

it("the dashboard follows a V1 task on a stdio server through its broker and answers its question", async () => {
  const home = tempHome();
  const run = await runInProcess(
    [
      "call",
      "simulate-research-query",
      "topic=python",
      "ambiguous=true",
      "--stdio",
      everythingStdio,
      "--detach",
      "--json",
    ],
    { home },
  );
  expect(run.code, run.stderr).toBe(0);
  const id = events(run.stdout)[0].taskId as string;
  terminal(home, `${bin} dashboard`);
  await waitFor(/1 waiting for you/);
  keys("a");
  await waitFor(/asks for input[\s\S]*Clarification/);
  keys("Enter");
  await waitFor(/\( \) Python snake species/);
  keys("Down");
  keys("Enter");
  await sleep(200);
  keys("Enter");
  await waitFor(/answer (sent|delivered)/);
  await waitFor(/✓ completed/);
  keys("q");
  expect(await waitFor(/EXIT=\d+/)).toMatch(/EXIT=0/);
  const result = await runInProcess(["result", id], { home });
  expect(result.code).toBe(0);
  expect(result.stdout).toMatch(/Research Report: python \(snake\)/);
});

it("with stdout not a terminal, a person is still asked, line by line", async () => {
  const home = tempHome();
  const out = join(home, "out.txt");
  terminal(home, `${bin} call task_input_twice -s ${v2.url} > ${out}`);
  await waitFor(/Pick a colour[\s\S]*answer, decline or cancel\?/);
  keys("Enter");
  await waitFor(/Colour \[1-3\]/);
  keys("3", "Enter");
  await waitFor(/Use blue\?[\s\S]*answer, decline or cancel\?/);
  keys("Enter");
  await waitFor(/Confirm \[y\/n\]/);
  keys("n", "Enter");
  expect(await waitFor(/EXIT=\d+/)).toMatch(/EXIT=0/);
  expect(readFileSync(out, "utf8")).toMatch(/color=blue, confirm=false/);
});

it("the dashboard refuses to start without a terminal (exit 2)", async () => {
  const run = await runCli(["dashboard"], { home: tempHome() });
  expect(run.code).toBe(2);
  expect(run.stderr).toMatch(/needs a terminal[\s\S]*mcp-task list/);
});

it("mcp-task demo opens the dashboard on the demo server; the invoice is approved through the form and completes", async () => {
  const home = tempHome();
  terminal(home, `${bin} demo --speed 4`);
  await waitFor(/4 tasks/);
  // First invoice: one approval. Its question comes once the task has validated the invoice.
  const answer = async () => {
    await waitFor(/[1-9] waiting for you/);
    keys("a");
    const form = await waitFor(/asks for input/);
    // Ink hands keys to the input handler of the last render once React has run its effects, which can come after
    // the frame is on screen: a key sent at once can be lost (seen in CI: the Space, then the Enters).
    // process-timing: a terminal's key handling, which no frame shows.
    await sleep(400);
    if (/Approve \*/.test(form)) {
      keys("Space");
      await waitFor(/\[x\] yes|\[x\]/);
      for (let i = 0; i < 3; i++) {
        keys("Enter");
        await sleep(150);
      }
    } else {
      keys("Enter"); // open the decision list
      await waitFor(/\( \) post/i);
      keys("Enter"); // pick "post"; the focus moves on to the note
      await sleep(150);
      keys("Enter"); // the note is the last field: submit
    }
    await waitFor(/answer (sent|delivered)/);
  };
  await answer(); // INV-2041 approval
  await answer(); // INV-2042 approval
  await answer(); // INV-2042: the amount differs from the PO, post anyway
  const done = await waitFor(
    /✓ completed\s+process_invoice[\s\S]*✓ completed\s+process_invoice|✓ completed\s+process_invoice[\s\S]*✓ completed\s+process_invoice/,
    30_000,
  );
  expect(done).toMatch(/✗ failed\s+sync_ledger/);
  keys("q");
  const left = await waitFor(/EXIT=\d+/);
  expect(left).toMatch(/EXIT=0/);
  // The goodbye says what became of the demo's server, and how to pick its tasks up again; and it is true: the
  // server saved as "demo" no longer answers.
  expect(left).toContain(
    "mcp-task: left the demo; its server stopped with it, so unfinished demo tasks wait (kept on disk) until you run mcp-task demo again, which picks them up (mcp-task list shows them)",
  );
  expect(left).not.toContain("running tasks go on");
  const gone = await runInProcess(["tools", "-s", "demo"], { home });
  expect(gone.code).toBe(4);
  expect(gone.stderr).toMatch(/^mcp-task: error: cannot reach http:\/\/127\.0\.0\.1:\d+: connection refused\n/);
  const posted = JSON.parse((await runInProcess(["list", "--json", "--status", "completed"], { home })).stdout).filter(
    (r: { tool: string }) => r.tool === "process_invoice",
  );
  expect(posted).toHaveLength(2);
  for (const row of posted) expect((await runInProcess(["result", row.taskId], { home })).stdout).toMatch(/posted/);
});

it("mcp-task demo without a terminal walks through the flow with the default answers and exits 0", async () => {
  const run = await runCli(["demo", "--speed", "4"], { home: tempHome(), timeoutMs: 60_000 });
  expect(run.code).toBe(0);
  expect(run.stdout).toMatch(/INV-2041 posted/);
  expect(run.stdout).toMatch(/INV-2042 posted/);
  expect(run.stderr).toMatch(/sync_ledger failed/);
  expect(run.stderr).toMatch(/export_ledger cancelled/);
});
