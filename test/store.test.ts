// The handle store under the conditions that break naive stores: many processes writing at once, one handle
// changed by several processes, a process killed in the middle of a write.
import { spawn } from "node:child_process";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { HandleStore, parseHandle } from "../src/store/handles.js";
import { events, runCli, tempHome } from "./helpers/cli.js";
import { ROOT, startV2Http, type RunningServer } from "./helpers/servers.js";

const WRITER = join(ROOT, "dist/test-tools/store-writer.js");

function writer(...args: string[]) {
  return spawn(process.execPath, [WRITER, ...args], { stdio: ["ignore", "ignore", "pipe"] });
}

function finished(child: ReturnType<typeof writer>): Promise<number | null> {
  let stderr = "";
  child.stderr?.on("data", (d) => (stderr += d));
  return new Promise((resolve, reject) => {
    child.on("exit", (code) => (code === 0 || code === null ? resolve(code) : reject(new Error(`writer exited ${code}: ${stderr}`))));
  });
}

let server: RunningServer;
beforeAll(async () => {
  server = await startV2Http();
});
afterAll(async () => {
  await server?.stop();
});

it("eight mcp-task processes starting tasks at once leave every handle in the store", async () => {
  const home = tempHome();
  const perProcess = 4;
  const runs = await Promise.all(
    Array.from({ length: 8 }, async () => {
      const ids: string[] = [];
      for (let i = 0; i < perProcess; i++) {
        const run = await runCli(["call", "task_slow", "ms=60000", "--detach", "--json", "-s", server.url], { home });
        expect(run.code).toBe(0);
        ids.push(events(run.stdout)[0].taskId as string);
      }
      return ids;
    }),
  );
  const started = runs.flat();
  const listed = JSON.parse((await runCli(["list", "--json"], { home })).stdout).map((r: { taskId: string }) => r.taskId);
  expect(listed.sort()).toEqual([...started].sort());
  expect(listed).toHaveLength(32);
});

it("eight writer processes saving 250 handles each lose none", async () => {
  const home = tempHome();
  await Promise.all(Array.from({ length: 8 }, (_, p) => finished(writer(home, "create", `p${p}`, "250", "500"))));
  const handles = await new HandleStore(home).list();
  expect(handles).toHaveLength(2000);
});

it("one handle changed by eight processes at once keeps every change", async () => {
  const home = tempHome();
  await finished(writer(home, "create", "shared", "1", "10"));
  await Promise.all(Array.from({ length: 8 }, (_, p) => finished(writer(home, "update", "shared-0", "25", `w${p}`))));
  const [{ handle }] = await new HandleStore(home).list();
  expect(new Set(handle.answered).size).toBe(200);
});

it("a process killed in the middle of writes leaves every handle readable", async () => {
  const home = tempHome();
  for (let round = 0; round < 5; round++) {
    const child = writer(home, "churn", `r${round}`, "200000");
    await new Promise((r) => setTimeout(r, 150 + round * 40));
    child.kill("SIGKILL");
    await new Promise((r) => child.on("exit", r));
  }
  const dir = join(home, "tasks");
  const files = readdirSync(dir).filter((f) => f.endsWith(".json"));
  expect(files.length).toBeGreaterThan(0);
  for (const file of files) expect(() => parseHandle(readFileSync(join(dir, file), "utf8"))).not.toThrow();
  // And the CLI lists them all (left-over temp files are not handles).
  const listed = JSON.parse((await runCli(["list", "--json"], { home })).stdout);
  expect(listed).toHaveLength(files.length);
});

it("saving a handle writes its own file only, private to the user; an unreadable file is skipped, not fatal", async () => {
  const home = tempHome();
  await finished(writer(home, "create", "a", "50", "10"));
  const dir = join(home, "tasks");
  const before = new Map(readdirSync(dir).map((f) => [f, statSync(join(dir, f)).mtimeMs]));
  await new Promise((r) => setTimeout(r, 20));
  await finished(writer(home, "create", "b", "1", "10"));
  const after = readdirSync(dir);
  expect(after.filter((f) => !before.has(f))).toEqual(["b-0.00000000.json"]);
  for (const [file, mtime] of before) expect(statSync(join(dir, file)).mtimeMs).toBe(mtime);
  expect(statSync(home).mode & 0o777).toBe(0o700);
  expect(statSync(dir).mode & 0o777).toBe(0o700);
  for (const file of after) expect(statSync(join(dir, file)).mode & 0o777).toBe(0o600);
  writeFileSync(join(dir, "broken.00000000.json"), "{ not json", { mode: 0o600 });
  const run = await runCli(["list", "--json"], { home });
  expect(run.code).toBe(0);
  expect(JSON.parse(run.stdout)).toHaveLength(51);
});
