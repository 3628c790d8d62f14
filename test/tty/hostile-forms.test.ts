// Hostile forms in a real terminal (tmux): the live view of `call` and the dashboard with a question whose fields
// are named __proto__, constructor and prototype (it crashed both with a React error), Ctrl-C while such a form is
// open, and a question of 10,000 fields (it froze the live view, keys and Ctrl-C included).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { events, tempHome } from "../helpers/cli.js";
import { runInProcess } from "../helpers/context.js";
import { startHostileHttp, type RunningServer } from "../helpers/servers.js";
import { bin, sleep, tmuxTerminal } from "../helpers/tmux.js";

// Every waitFor's bound is the helper's hang-only 60 s, and each test's timeout (180 s) is hang-only too.
const { keys, waitFor, terminal, close } = tmuxTerminal("mcp-task-tty-hostile");

let proto: RunningServer;
let wide: RunningServer;

/** Fills the prototype-named form: __proto__ "p", constructor yes, prototype "q", then submits from the last field. */
async function fillProtoForm() {
  await waitFor(/› proto \*[\s\S]*constructor \*[\s\S]*prototype/);
  keys("p");
  await sleep(150);
  keys("Down");
  keys("Space");
  await waitFor(/\[x\] yes/);
  keys("Down");
  keys("q");
  await sleep(150);
  keys("Enter");
}

beforeAll(async () => {
  [proto, wide] = await Promise.all([startHostileHttp("proto-field", "v2"), startHostileHttp("wide-form", "v2")]);
});
afterEach(() => close());
afterAll(async () => {
  await Promise.all([proto?.stop(), wide?.stop()]);
});

it(
  "the live view answers a form whose fields are named __proto__, constructor and prototype",
  { timeout: 180_000 },
  async () => {
    terminal(tempHome(), `${bin} call ask -s ${proto.url}`);
    await fillProtoForm();
    const done = await waitFor(/EXIT=\d+/);
    expect(done).toMatch(/EXIT=0/);
    expect(done).toContain('"content":{"__proto__":"p","constructor":true,"prototype":"q"}');
  },
);

it("Ctrl-C while that form is open stops waiting at once (exit 130), the task kept", { timeout: 180_000 }, async () => {
  const home = tempHome();
  terminal(home, `${bin} call ask -s ${proto.url}`);
  await waitFor(/› proto \*/);
  keys("C-c");
  // Hang-only (waitFor's 20 s): a Ctrl-C the form swallowed never exits (the question is never answered). That it
  // was the Ctrl-C that ended it, not anything else: exit 130 and the interrupted error.
  const done = await waitFor(/EXIT=\d+/);
  expect(done).toMatch(/interrupted; task \S+ keeps running/);
  expect(done).toMatch(/EXIT=130/);
  expect(done).toMatch(/mcp-task watch/);
  const list = JSON.parse((await runInProcess(["list", "--json"], { home })).stdout) as Array<{ tool: string }>;
  expect(list).toEqual([expect.objectContaining({ tool: "ask" })]);
});

it(
  "the live view refuses a question of 10,000 fields at once (exit 4), without drawing it",
  { timeout: 180_000 },
  async () => {
    terminal(tempHome(), `${bin} call wide_ask -s ${wide.url}`);
    const done = await waitFor(/EXIT=\d+/); // hang-only: a frozen view never exits
    expect(done).toMatch(/EXIT=4/);
    expect(done).toMatch(
      /mcp-task will not show or fill the form of a question from the server: it has 10000 fields \(limit 100\)/,
    );
    expect(done).not.toMatch(/field 1\b/);
  },
);

it("the dashboard answers the prototype-named form of a detached task", { timeout: 180_000 }, async () => {
  const home = tempHome();
  const started = await runInProcess(["call", "ask", "--detach", "--json", "-s", proto.url], { home });
  const taskId = events(started.stdout)[0].taskId as string;
  terminal(home, `${bin} dashboard`);
  await waitFor(/1 waiting for you/);
  keys("a");
  await waitFor(/asks for input/);
  await fillProtoForm();
  await waitFor(/answer (sent|delivered)/);
  await waitFor(/✓ completed/);
  keys("q");
  expect(await waitFor(/EXIT=\d+/)).toMatch(/EXIT=0/);
  const result = await runInProcess(["result", taskId], { home });
  expect(result.stdout).toContain('"content":{"__proto__":"p","constructor":true,"prototype":"q"}');
});

it("Ctrl-C leaves the dashboard while a form is open (it was ignored there)", { timeout: 180_000 }, async () => {
  const home = tempHome();
  await runInProcess(["call", "ask", "--detach", "--json", "-s", proto.url], { home });
  terminal(home, `${bin} dashboard`);
  await waitFor(/1 waiting for you/);
  keys("a");
  await waitFor(/› proto \*/);
  keys("C-c");
  // Hang-only (waitFor's 20 s): an ignored Ctrl-C never leaves. Leaving does not touch the task: it still asks.
  const done = await waitFor(/EXIT=\d+/);
  expect(done).toMatch(/EXIT=0/);
  const left = JSON.parse((await runInProcess(["list", "--json"], { home })).stdout) as Array<{ status: string }>;
  expect(left.map((row) => row.status)).toEqual(["input_required"]);
});

it(
  "the line prompt (stdout not a terminal) reads the same form through the form's own field reader",
  { timeout: 180_000 },
  async () => {
    const home = tempHome();
    const out = join(home, "out.txt");
    terminal(home, `${bin} call ask -s ${proto.url} > ${out}`);
    await waitFor(/fields named like prototype keys[\s\S]*answer, decline or cancel\?/);
    keys("Enter");
    await waitFor(/proto: $/m);
    keys("Enter"); // nothing: it is required
    await waitFor(/required[\s\S]*proto: $/m);
    keys("p", "Enter");
    await waitFor(/constructor \[y\/n\]: $/m);
    keys("maybe", "Enter");
    await waitFor(/enter yes or no[\s\S]*constructor \[y\/n\]: $/m);
    keys("y", "Enter");
    await waitFor(/prototype \(optional\): $/m);
    keys("q", "Enter");
    expect(await waitFor(/EXIT=\d+/)).toMatch(/EXIT=0/);
    expect(readFileSync(out, "utf8")).toContain('"content":{"__proto__":"p","constructor":true,"prototype":"q"}');
  },
);
