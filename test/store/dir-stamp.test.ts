// The index's directory stamp: while the tasks directory keeps the mtime a listing stamped, readers take the
// index for the directory (no listing of 100,000 names); any change of the directory, or an edit in place of an
// unfinished task's file, is still seen.
import { spawn } from "node:child_process";
import { readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { HandleStore } from "../../src/store/handles.js";
import { parseHandle } from "../../src/store/handle-file.js";
import { tempHome } from "../helpers/cli.js";
import { runInProcess } from "../helpers/context.js";
import { ROOT } from "../helpers/servers.js";

const WRITER = join(ROOT, "dist/test-tools/store-writer.js");

function writer(...args: string[]): Promise<void> {
  const child = spawn(process.execPath, [WRITER, ...args], { stdio: ["ignore", "ignore", "inherit"] });
  return new Promise((resolve, reject) =>
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`writer exited ${code}`)))),
  );
}

const lastLine = (dir: string) =>
  JSON.parse(readFileSync(join(dir, ".index.ndjson"), "utf8").trimEnd().split("\n").at(-1)!);
const lineCount = (dir: string) => readFileSync(join(dir, ".index.ndjson"), "utf8").trimEnd().split("\n").length;
/** The directory's mtime set a minute back: old enough to be stamped (a real store gets there by waiting). */
const backdate = (dir: string, at = (Date.now() - 60_000) / 1000) => {
  utimesSync(dir, at, at);
  return at;
};
const statuses = async (store: HandleStore) =>
  Object.fromEntries((await store.summaries()).map((s) => [s.taskId, s.status]));

it("a listing stamps the index with the directory's mtime; while it holds, the directory is not listed", async () => {
  const home = tempHome();
  await writer(home, "create", "done", "3", "10", "completed");
  await writer(home, "create", "run", "2", "10");
  const dir = join(home, "tasks");
  const store = new HandleStore(home);
  const at = backdate(dir);
  expect(Object.keys(await statuses(store))).toHaveLength(5);
  expect(lastLine(dir)).toEqual(["dir", statSync(dir).mtimeMs, 5, expect.any(Number), null]);
  const lines = lineCount(dir);
  expect(Object.keys(await statuses(store))).toHaveLength(5);
  expect(lineCount(dir)).toBe(lines); // nothing to heal, nothing appended

  // The proof that the stamp spares the listing: a file removed behind the store's back, and the directory's
  // mtime put back as it was, is still listed (nothing but a forged mtime does this).
  rmSync(join(dir, "done-0.00000000.json"));
  backdate(dir, at);
  expect(await statuses(store)).toHaveProperty("done-0");
  // Without the forged mtime, the removal moves the directory's mtime: listed again, the entry dropped.
  rmSync(join(dir, "done-1.00000000.json"));
  expect(Object.keys(await statuses(store)).sort()).toEqual(["done-2", "run-0", "run-1"]);

  // A handle written by another process appears at once (its rename moved the directory's mtime).
  backdate(dir);
  await statuses(store);
  expect(lastLine(dir)[0]).toBe("dir");
  await writer(home, "create", "new", "1", "10");
  expect(await statuses(store)).toHaveProperty("new-0", "working");

  // An unfinished task's file edited in place (the directory's mtime does not move): seen, and the stamp kept.
  backdate(dir);
  await statuses(store);
  const file = join(dir, "run-0.00000000.json");
  const handle = parseHandle(readFileSync(file, "utf8"));
  handle.last.status = "failed";
  await new Promise((r) => setTimeout(r, 20));
  writeFileSync(file, JSON.stringify(handle));
  expect(await statuses(store)).toHaveProperty("run-0", "failed");
  expect(lastLine(dir)[0]).toBe("dir");
  expect(await statuses(store)).toHaveProperty("run-0", "failed");
});

it("a directory with an unreadable handle file is not stamped: every listing still names the file", async () => {
  const home = tempHome();
  await writer(home, "create", "done", "2", "10", "completed");
  const dir = join(home, "tasks");
  writeFileSync(join(dir, "broken.00000000.json"), "{ not json", { mode: 0o600 });
  backdate(dir);
  for (let i = 0; i < 2; i++) {
    const run = await runInProcess(["list", "--json"], { home });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toHaveLength(2);
    expect(run.stderr).toMatch(/skipped a file .*broken\.00000000\.json \(not JSON\)/);
    expect(lastLine(dir)[0]).not.toBe("dir");
  }
});

it("a damaged line after a stamp: the stamp does not stand, the index is rebuilt from the files", async () => {
  const home = tempHome();
  await writer(home, "create", "done", "2", "10", "completed");
  const dir = join(home, "tasks");
  const store = new HandleStore(home);
  const at = backdate(dir);
  await store.summaries();
  expect(lastLine(dir)[0]).toBe("dir");
  rmSync(join(dir, "done-0.00000000.json"));
  writeFileSync(join(dir, ".index.ndjson"), `${readFileSync(join(dir, ".index.ndjson"), "utf8")}["dir",1`);
  backdate(dir, at);
  expect((await store.summaries()).map((s) => s.taskId)).toEqual(["done-1"]);
});
