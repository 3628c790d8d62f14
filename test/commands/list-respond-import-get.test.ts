// `list --status`, `respond`, `import` and `get`, each against our V2 test server over HTTP: `list --status` shows
// what it lists as, `respond` answers every question its --input fits and says which, `import` never replaces a
// handle that knows more, and `get` saves a changed status message. The commands run in-process
// (test/helpers/context.ts).
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type AddressInfo, type Socket } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { systemClock } from "../../src/context.js";
import { LIST_REFRESH_MS } from "../../src/limits.js";
import { saveHandle, taskDir } from "../helpers/large-store.js";
import { events, tempHome } from "../helpers/cli.js";
import { runInProcess } from "../helpers/context.js";
import { startV2Http, type RunningServer } from "../helpers/servers.js";

let v2: RunningServer;
beforeAll(async () => {
  v2 = await startV2Http();
});
afterAll(async () => {
  await v2?.stop();
});

async function detach(home: string, ...args: string[]): Promise<string> {
  const run = await runInProcess(["call", ...args, "-s", v2.url, "--detach", "--json"], { home });
  expect(run.code, run.stderr).toBe(0);
  return events(run.stdout)[0].taskId as string;
}

it("list --status working,input_required leaves out expired and gone tasks; --status expired and gone find them", async () => {
  const home = tempHome();
  const running = await detach(home, "task_slow", "ms=60000");
  const expired = await detach(home, "task_slow", "ms=60000");
  const gone = await detach(home, "task_slow", "ms=60000");
  // One whose ttl has passed (as saved), one the server no longer knows (as `get` marks it).
  const handles = JSON.parse((await runInProcess(["list", "--json"], { home })).stdout) as Array<{ taskId: string }>;
  expect(handles).toHaveLength(3);
  const edit = async (id: string, change: (handle: Record<string, unknown>) => void) => {
    const handle = JSON.parse((await runInProcess(["export", id], { home })).stdout) as Record<string, unknown>;
    change(handle);
    handle.updatedAt = new Date(Date.now() + 1000).toISOString();
    // An import only adds: the saved handle is forgotten first.
    expect((await runInProcess(["forget", id], { home })).code).toBe(0);
    expect((await runInProcess(["import", "--yes", "-"], { home, input: JSON.stringify(handle) })).code).toBe(0);
  };
  await edit(expired, (h) => {
    h.ttlMs = 1;
    (h.last as Record<string, unknown>).createdAt = new Date(Date.now() - 60_000).toISOString();
  });
  await edit(gone, (h) => (h.gone = { at: new Date().toISOString(), reason: "the server does not know this task" }));
  const ids = async (status: string) =>
    (
      JSON.parse((await runInProcess(["list", "--status", status, "--json"], { home })).stdout) as Array<{
        taskId: string;
      }>
    )
      .map((r) => r.taskId)
      .sort();
  expect(await ids("working,input_required")).toEqual([running]);
  // Expired means past its ttl: a gone task whose ttl has not run out is gone, not expired.
  expect(await ids("expired")).toEqual([expired]);
  expect(await ids("gone")).toEqual([gone]);
  const text = (await runInProcess(["list", "--status", "working"], { home })).stdout;
  expect(text).not.toMatch(/expired|gone/);
  for (const id of [running, expired, gone]) await runInProcess(["cancel", id], { home });
});

it("list --status working reads the unfinished tasks again: a V2 HTTP task that nothing followed and that ended is not listed as working", async () => {
  const home = tempHome();
  const ended = await detach(home, "task_complete", "ms=300");
  const running = await detach(home, "task_slow", "ms=60000");
  const ids = async (status: string) => {
    const run = await runInProcess(["list", "--status", status, "--json"], { home });
    expect(run.code, run.stderr).toBe(0);
    return (JSON.parse(run.stdout) as Array<{ taskId: string; status: string }>).map((r) => r.taskId).sort();
  };
  // The saved handle says working (nothing followed the task); the server has it completed once its 300 ms are up.
  let working = await ids("working");
  for (let i = 0; i < 100 && working.includes(ended); i++) {
    await new Promise((r) => setTimeout(r, 100));
    working = await ids("working");
  }
  expect(working).toEqual([running]);
  // What was read is saved: the plain list (which reads no server) shows it completed now.
  const all = JSON.parse((await runInProcess(["list", "--json"], { home })).stdout) as Array<{
    taskId: string;
    status: string;
  }>;
  expect(all.find((r) => r.taskId === ended)!.status).toBe("completed");
  // A server that cannot be reached: the rows are printed as last seen, and stderr says they were not read again.
  await v2.stop();
  const stale = await runInProcess(["list", "--status", "working", "--json"], { home });
  expect(stale.code, stale.stderr).toBe(0);
  expect((JSON.parse(stale.stdout) as Array<{ taskId: string }>).map((r) => r.taskId)).toEqual([running]);
  expect(stale.stderr).toMatch(/1 unfinished task\(s\) shown as last seen, not read again: /);
  v2 = await startV2Http();
});

it("respond answers every question --input fits, says which, and leaves the other for a later respond", async () => {
  const home = tempHome();
  // multi_input asks two questions at once: `name` (a string) and `confirm` (a boolean).
  const id = await detach(home, "multi_input");
  const first = await runInProcess(["respond", id, "--input", '{"name":"Ada"}'], { home });
  expect(first.code).toBe(6);
  expect(first.stderr).toMatch(/answered name-1 \(the server has it\); not the next question:/);
  expect(first.stderr).toMatch(/does not fit the requested form/);
  expect(first.stderr).toMatch(/^hint: mcp-task respond --input/m);
  const second = await runInProcess(["respond", id, "--input", '{"confirm":true}'], { home });
  expect(second.code, second.stderr).toBe(0);
  const result = await runInProcess(["result", id], { home });
  expect(result.code).toBe(0);
  expect(result.stdout).toContain('multi_input: name="Ada", confirm=true');
});

it("import keeps a saved handle; get saves a changed status message", async () => {
  const home = tempHome();
  const id = await detach(home, "task_slow", "ms=2500");
  const stale = (await runInProcess(["export", id], { home })).stdout;
  // get while it runs: its status message changes every second while the status stays working (read until it has
  // changed; a hang-only bound).
  const before = JSON.parse(stale).last.statusMessage as string;
  let got = { statusMessage: before };
  for (let tries = 0; tries < 300 && got.statusMessage === before; tries++) {
    await new Promise((r) => setTimeout(r, 50));
    got = JSON.parse((await runInProcess(["get", id, "--json"], { home })).stdout) as { statusMessage: string };
  }
  const saved = JSON.parse((await runInProcess(["list", "--json"], { home })).stdout)[0] as { statusMessage: string };
  expect(saved.statusMessage).toBe(got.statusMessage);
  expect(got.statusMessage).not.toBe(JSON.parse(stale).last.statusMessage);
  expect((await runInProcess(["watch", id], { home })).code).toBe(0);
  const reimported = await runInProcess(["import", "--yes", "-"], { home, input: stale });
  expect(reimported.code).toBe(0);
  expect(reimported.stderr).toContain(`not imported: a handle is saved here for ${id}`);
  const after = await runInProcess(["result", id], { home });
  expect(after.code).toBe(0);
  expect(after.stdout).toContain("task_slow: done");
});

it("list --status working gives up reading a server that does not answer within LIST_REFRESH_MS: the rows as last seen, and a note", async () => {
  // A server that takes the connection and never answers (its initialize hangs).
  const sockets: Socket[] = [];
  const silent = createServer((socket) => void sockets.push(socket));
  await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
  const { port } = silent.address() as AddressInfo;
  const home = tempHome();
  const dir = taskDir(home);
  saveHandle(dir, "silent-task", 0, false);
  const file = join(
    dir,
    readdirSync(dir).find((name) => name.endsWith(".json"))!,
  );
  writeFileSync(file, readFileSync(file, "utf8").replace("http://127.0.0.1:1/mcp", `http://127.0.0.1:${port}/mcp`));
  // The bound's sleep is cut to 200 ms (the bound is what trips, not the machine's speed); every other sleep is real.
  const clock = {
    ...systemClock,
    sleep: (ms: number, signal?: AbortSignal) => systemClock.sleep(ms === LIST_REFRESH_MS ? 200 : ms, signal),
  };
  try {
    const run = await runInProcess(["list", "--status", "working", "--json"], { home, clock, timeoutMs: 20_000 });
    expect(run.code, run.stderr).toBe(0);
    expect((JSON.parse(run.stdout) as Array<{ taskId: string }>).map((r) => r.taskId)).toEqual(["silent-task"]);
    expect(run.stderr).toMatch(
      /1 unfinished task\(s\) shown as last seen, not read again \(at most 100, within 10 s\)/,
    );
  } finally {
    for (const socket of sockets) socket.destroy();
    silent.close();
  }
});
