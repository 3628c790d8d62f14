// Sampling answered by a person at a real terminal (tmux): the live view of `call`, and the dashboard answering
// the sampling requests of tasks on a V1 server (the SDK v1 server's `sample`) and a V2 server (`task_sampling`).
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { events, runCli, tempHome } from "../helpers/cli.js";
import { ROOT, startListening, startV2Http, type RunningServer } from "../helpers/servers.js";
import { bin, sleep, tmuxTerminal } from "../helpers/tmux.js";

const { keys, waitFor, terminal, close } = tmuxTerminal("mcp-task-tty-sampling");
const SDK_V1_SERVER = join(ROOT, "dist/test-servers/sdk-v1-server.js");

let v1: RunningServer;
let v2: RunningServer;
beforeAll(async () => {
  [v1, v2] = await Promise.all([
    startListening([SDK_V1_SERVER, "--port", "0"], "sdk v1 server"),
    startV2Http("--poll-interval", "200"),
  ]);
});
afterEach(() => close());
afterAll(async () => {
  await Promise.all([v1?.stop(), v2?.stop()]);
});

/** The text of a task's result. */
async function resultText(home: string, taskId: string): Promise<string> {
  const result = await runCli(["result", taskId, "--json"], { home });
  expect(result.code, result.stderr).toBe(0);
  return (events(result.stdout).at(-1) as { result: { content: Array<{ text: string }> } }).result.content[0].text;
}

it("call on a terminal: the live view shows the request, the person types the reply, the server gets it", async () => {
  const home = tempHome();
  terminal(home, `${bin} call task_sampling text=Greet-me -s ${v2.url}`);
  const form = await waitFor(/asks for a model's reply[\s\S]*Your reply/);
  expect(form).toMatch(/user: Greet-me/);
  expect(form).toMatch(/system prompt: You are a test\./);
  expect(form).toMatch(/at most 20 tokens/);
  keys("-l", "Hello from a person");
  await waitFor(/› Hello from a person/);
  keys("Enter");
  const done = await waitFor(/EXIT=\d+/);
  expect(done).toMatch(/EXIT=0/);
  expect(done).toMatch(/"text":"Hello from a person"/);
});

it("the dashboard answers the sampling requests of a V1 and a V2 task", async () => {
  const home = tempHome();
  const detach = async (...args: string[]) =>
    events((await runCli(["call", ...args, "--detach", "--json"], { home })).stdout)[0].taskId as string;
  const ids = [await detach("sample", "prompt=Say-one", "-s", v1.url), await detach("task_sampling", "-s", v2.url)];
  terminal(home, `${bin} dashboard`);
  await waitFor(/2 tasks/);
  for (let answered = 0; answered < 2; answered++) {
    await waitFor(/[1-9] waiting for you/, 30_000);
    keys("a");
    const form = await waitFor(/asks for a model's reply[\s\S]*Your reply/);
    keys("-l", /Say-one/.test(form) ? "reply one" : "reply two");
    await sleep(200);
    keys("Enter");
    await waitFor(/answer (sent|delivered)/);
  }
  await waitFor(/✓ completed[\s\S]*✓ completed/, 30_000);
  keys("q");
  expect(await waitFor(/EXIT=\d+/)).toMatch(/EXIT=0/);
  expect(JSON.parse(await resultText(home, ids[0]))).toMatchObject({
    action: "sampled",
    content: { content: { text: "reply one" }, model: "human" },
  });
  expect(JSON.parse(await resultText(home, ids[1]))).toMatchObject({ content: { text: "reply two" } });
});
