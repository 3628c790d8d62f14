// The connection drops in the middle of an input round (V2 `tasks/update`, V1 the `tasks/result` stream): the
// answer is either confirmed or reported as not delivered, never silently lost; a key the server took is never
// asked again, one it did not take is. The servers crash at the exact moment through their fault-injection
// options (v2-server --crash-on-update, demo-server-main --crash-on) and come back on the same port with their
// store. The commands run in-process (test/helpers/context.ts).
import type { ChildProcess } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { systemClock } from "../../src/context.js";
import { connect } from "../../src/protocol/connect.js";
import type { Snapshot } from "../../src/protocol/wire.js";
import { TaskEngine } from "../../src/tasks/engine.js";
import type { DeliveryEvent } from "../../src/model.js";
import type { InputProvider } from "../../src/tasks/input.js";
import { events, tempHome } from "../helpers/cli.js";
import { runInProcess, startInProcess } from "../helpers/context.js";
import { freePort, startDemoHttp, startV2Http, type RunningServer } from "../helpers/servers.js";

const NAME_QUESTION = /asks: What is your name\?/g;
const APPROVE =
  '"Approve invoice INV-2041 from Acme Office Supplies for 1,250.00 EUR? (PO-1001, goods received in full)"';

/** Every server a test started: stopped after it, whatever happened. */
const started: RunningServer[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((server) => server.stop()));
});

async function v2(port: number, store: string, ...flags: string[]): Promise<RunningServer> {
  const server = await startV2Http("--port", String(port), "--store", store, "--quiet", ...flags);
  started.push(server);
  return server;
}

/** The demo server in V1 mode over HTTP, with its store (tasks and sessions survive a restart). */
async function demoV1(port: number, store: string, ...flags: string[]): Promise<RunningServer> {
  const server = await startDemoHttp(
    port,
    store,
    "--generation",
    "v1",
    "--speed",
    "20",
    "--poll-interval",
    "200",
    ...flags,
  );
  started.push(server);
  return server;
}

/** Resolves with the exit code once the process has exited (the fault injection exits with 70). */
function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once("exit", (code) => resolve(code)));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The saved handle, as `export` prints it. */
async function handleOf(home: string, id: string): Promise<{ answered: string[]; outcome?: { status: string } }> {
  const exported = await runInProcess(["export", id], { home });
  expect(exported.code, exported.stderr).toBe(0);
  return JSON.parse(exported.stdout);
}

/** The requests naming the task that the (restarted) V2 test server received. */
async function statsOf(home: string, url: string, id: string): Promise<Record<string, number>> {
  const run = await runInProcess(["call", "_stats", `taskId=${id}`, "-s", url], { home });
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout);
}

function taskIdIn(stderr: string): string {
  const match = /started task (\S+)/.exec(stderr);
  if (!match) throw new Error(`no task id in: ${stderr}`);
  return match[1];
}

it("V2, the connection drops before tasks/update reaches the server: the answer is sent again after reconnecting and recorded once", async () => {
  const store = mkdtempSync(join(tmpdir(), "input-faults-"));
  const port = await freePort();
  const first = await v2(port, store, "--crash-on-update", "before");
  const home = tempHome();
  const call = startInProcess(["call", "task_input_once", "ms=200", "--input", '{"name":"Ada"}', "-s", first.url], {
    home,
  });
  expect(await exited(first.process)).toBe(70);
  await sleep(500); // process-timing: the server stays down this long
  const second = await v2(port, store);
  expect(await call.exited, call.output.stderr).toBe(0);
  const { stdout, stderr } = call.output;
  expect(stdout.trim()).toBe("Hello, Ada");
  expect(stderr).toContain('the connection dropped while the answer to "What is your name?" was on its way');
  expect(stderr).toContain('the answer to "What is your name?" did not reach the server; sending it again');
  expect(stderr).not.toContain("the server took the answer");
  // The key the server did not take was asked again (and answered again from --input).
  expect(stderr.match(NAME_QUESTION)).toHaveLength(2);
  const id = taskIdIn(stderr);
  expect(await handleOf(home, id)).toMatchObject({ answered: ["name-1"], outcome: { status: "completed" } });
  // The restarted server got the answer once: the resend.
  expect((await statsOf(home, second.url, id))["tasks/update"]).toBe(1);
});

it("V2, the server applies tasks/update and dies before its reply: the answer is confirmed after reconnecting, never sent or asked again", async () => {
  const store = mkdtempSync(join(tmpdir(), "input-faults-"));
  const port = await freePort();
  const first = await v2(port, store, "--crash-on-update", "after");
  const home = tempHome();
  const call = startInProcess(["call", "task_input_once", "ms=200", "--input", '{"name":"Ada"}', "-s", first.url], {
    home,
  });
  expect(await exited(first.process)).toBe(70);
  await sleep(500); // process-timing: the server stays down this long
  const second = await v2(port, store);
  expect(await call.exited, call.output.stderr).toBe(0);
  const { stdout, stderr } = call.output;
  expect(stdout.trim()).toBe("Hello, Ada");
  expect(stderr).toContain('the connection dropped while the answer to "What is your name?" was on its way');
  expect(stderr).toContain(
    'the server took the answer to "What is your name?" (confirmed after the connection dropped)',
  );
  expect(stderr).not.toContain("sending it again");
  expect(stderr.match(NAME_QUESTION)).toHaveLength(1);
  const id = taskIdIn(stderr);
  expect(await handleOf(home, id)).toMatchObject({ answered: ["name-1"], outcome: { status: "completed" } });
  // Nothing was sent again to the restarted server.
  expect((await statsOf(home, second.url, id))["tasks/update"]).toBeUndefined();
});

it("V2, the server stays away after the answer left: 'answer not delivered' (exit 4), the key is not recorded, and respond delivers it later", async () => {
  const store = mkdtempSync(join(tmpdir(), "input-faults-"));
  const port = await freePort();
  const first = await v2(port, store, "--crash-on-update", "before");
  const home = tempHome();
  const run = await runInProcess(
    ["call", "task_input_once", "ms=200", "--input", '{"name":"Ada"}', "--json", "-s", first.url],
    // The server never comes back: the give-up window is waited out whole, so it is short (500 ms, not 2 s).
    { home, env: { MCP_TASK_GIVE_UP: "500ms" } },
  );
  expect(run.code, run.stderr).toBe(4);
  const last = events(run.stdout).at(-1)!;
  expect(last).toMatchObject({ type: "error", exitCode: 4, code: "answer_not_delivered" });
  expect(last.message).toMatch(
    /^answer not delivered: the connection dropped before the server confirmed the answer to "What is your name\?" \(/,
  );
  const id = last.taskId as string;
  expect(last.hint).toBe(
    `once the server is back, give it again: mcp-task respond --input '{...}' ${id}  (or --decline)`,
  );
  expect((await handleOf(home, id)).answered).toEqual([]);
  await v2(port, store);
  const responded = await runInProcess(["respond", id, "--input", '{"name":"Grace"}', "--json"], { home });
  expect(responded.code, responded.stderr).toBe(0);
  expect(JSON.parse(responded.stdout)).toMatchObject({ taskId: id, answered: ["name-1"] });
  const result = await runInProcess(["result", id], { home });
  expect(result.stdout.trim()).toBe("Hello, Grace");
  expect((await handleOf(home, id)).answered).toEqual(["name-1"]);
});

/**
 * An invoice approved from --input on the V1 demo server, which exits (code 70) at `crashOn` and is started again on
 * the same port and store half a second later: the call's exit is 0, and its output is handed back.
 */
async function approvalAcrossCrash(crashOn: string): Promise<{ home: string; stdout: string; stderr: string }> {
  const store = mkdtempSync(join(tmpdir(), "input-faults-"));
  const port = await freePort();
  const first = await demoV1(port, store, "--crash-on", crashOn);
  const home = tempHome();
  const args = [
    "call",
    "process_invoice",
    "invoice_id=INV-2041",
    "po_number=PO-1001",
    "amount=1250",
    "--input",
    '{"approve":true,"comment":"goods checked"}',
  ];
  const call = startInProcess([...args, "-s", first.url], { home });
  expect(await exited(first.process)).toBe(70);
  await sleep(500); // process-timing: the server stays down this long
  await demoV1(port, store);
  expect(await call.exited, call.output.stderr).toBe(0);
  return { home, ...call.output };
}

it("V1, tasks/result is cut with the question still pending on the server: it is asked once the server is back, and the task completes", async () => {
  const { home, stdout, stderr } = await approvalAcrossCrash("tasks-result");
  expect(stdout).toMatch(/^INV-2041 posted: 1,250\.00 EUR against PO-1001/);
  expect(stdout).toContain('"approver_comment": "goods checked"');
  // No answer had left: nothing to confirm or to report lost; the wait for the question is what was retried. (The
  // session's keeper reads the task's result from the start, so the cut may come before the command has seen
  // input_required: then the reconnection comes first, and the question after it.)
  expect(stderr).toMatch(/reconnecting: [^]*(working|completed) - /);
  expect(stderr).toMatch(/input_required - waiting for approval[^]*asks: Approve invoice INV-2041[^]*completed - /);
  expect(stderr).not.toContain("the answer to");
  // V1 questions are requests of their own, with no key that outlives the connection: none is recorded.
  expect(await handleOf(home, taskIdIn(stderr))).toMatchObject({ answered: [], outcome: { status: "completed" } });
});

it("V1, the answer is on its way on the tasks/result round when the server dies: reported as not reaching it, given again when asked again", async () => {
  const { home, stdout, stderr } = await approvalAcrossCrash("elicitation-answer");
  expect(stdout).toMatch(/^INV-2041 posted: 1,250\.00 EUR against PO-1001/);
  expect(stdout).toContain('"approver_comment": "goods checked"');
  expect(stderr).toContain(`the connection dropped while the answer to ${APPROVE} was on its way`);
  expect(stderr).toContain(
    `the answer to ${APPROVE} did not reach the server (the task still waits for input); it is given again when the server asks again`,
  );
  expect(await handleOf(home, taskIdIn(stderr))).toMatchObject({ answered: [], outcome: { status: "completed" } });
});

it("V1, the server dies while its question waits for a person: the answer is reported in doubt and given again, without asking again, when the restarted server asks", async () => {
  const store = mkdtempSync(join(tmpdir(), "input-faults-"));
  const port = await freePort();
  const first = await demoV1(port, store);
  // The person: asked once, answers when the test says so.
  const questions: string[] = [];
  let asked!: () => void;
  const question = new Promise<void>((resolve) => (asked = resolve));
  let release!: () => void;
  const answer = new Promise<void>((resolve) => (release = resolve));
  const person: InputProvider = {
    available: true,
    answer: async (request) => {
      questions.push(String(request.params.message));
      asked();
      await answer;
      return { action: "accept", content: { approve: true, comment: "checked by a person" } };
    },
  };
  const wire = await connect({ transport: "http", url: first.url }, { env: {} });
  try {
    const engine = new TaskEngine(wire, systemClock, person);
    const started = await engine.call(
      "process_invoice",
      { invoice_id: "INV-2041", po_number: "PO-1001", amount: 1250 },
      { task: "auto" },
    );
    if (started.kind !== "task") throw new Error("expected a task");
    const deliveries: DeliveryEvent[] = [];
    const seen: Snapshot[] = [];
    const following = (async () => {
      const options = {
        answerInput: true,
        onDelivery: (event: DeliveryEvent) => deliveries.push(event),
        signal: AbortSignal.timeout(45_000),
      };
      for await (const snapshot of engine.watch(started.snapshot.taskId, options)) seen.push(snapshot);
    })();
    await question;
    first.process.kill("SIGKILL");
    await exited(first.process);
    await sleep(300); // process-timing: the tasks/result stream that brought the question is seen to end
    release(); // the answer is ready now, with nobody to take it
    await sleep(300); // process-timing
    await demoV1(port, store);
    await following;
    const final = await engine.final(seen.at(-1)!, "process_invoice");
    expect(final.result?.structuredContent).toMatchObject({
      status: "posted",
      approved: true,
      approver_comment: "checked by a person",
    });
    expect(questions).toEqual([expect.stringMatching(/^Approve invoice INV-2041/)]);
    expect(deliveries.map((event) => event.kind)).toEqual(["uncertain", "askAgain"]);
    expect(deliveries[0]).toMatchObject({
      error: { message: "the tasks/result stream that brought the question ended before the answer was sent" },
    });
  } finally {
    await wire.close();
  }
});
