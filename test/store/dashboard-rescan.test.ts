// The dashboard's rescan of the store (src/ui/scan.ts): between whole reads it parses only the index's lines
// appended since its last look. What other processes save, update and remove still reaches it; a log rewritten
// under it (compacted) sends it back to a whole read; and what no index line tells (a file written behind the index)
// is found by the whole read that runs every minute.
import { spawn } from "node:child_process";
import { copyFileSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it, vi } from "vitest";
import { HandleStore } from "../../src/store/handles.js";
import { StoreScan } from "../../src/ui/scan.js";
import { tempHome } from "../helpers/cli.js";
import { ROOT } from "../helpers/servers.js";

const WRITER = join(ROOT, "dist/test-tools/store-writer.js");

function writer(...args: string[]): Promise<void> {
  const child = spawn(process.execPath, [WRITER, ...args], { stdio: ["ignore", "ignore", "inherit"] });
  return new Promise((resolve, reject) =>
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`writer exited ${code}`)))),
  );
}

const RESCAN_MS = 5000;
const ids = (summaries: Array<{ taskId: string }> | undefined) => (summaries ?? []).map((s) => s.taskId).sort();

it("a rescan reads the index's new lines alone, and still sees every save, update and removal of other processes", async () => {
  const home = tempHome();
  await writer(home, "create", "old", "30", "10");
  const store = new HandleStore(home);
  const scan = new StoreScan(store, RESCAN_MS);
  const whole = vi.spyOn(store, "summaries");
  expect(ids((await scan.changes())?.changed)).toHaveLength(30);
  expect(whole).toHaveBeenCalledTimes(1);
  expect(await scan.changes()).toBeUndefined(); // nothing changed: not read at all

  // Saved, updated and removed by other processes: the lines they appended tell it, no whole read.
  await writer(home, "create", "new", "2", "10");
  await writer(home, "update", "old-3", "1", "answered");
  const other = new HandleStore(home);
  const gone = (await other.find("old-7")).stem;
  expect(await other.remove(gone)).toBe(true);
  const seen = await scan.changes();
  expect(ids(seen?.changed)).toEqual(["new-0", "new-1", "old-3"]);
  expect(seen?.removed).toEqual([gone]);
  expect(whole).toHaveBeenCalledTimes(1);
  // Its own look is not reported again.
  expect(await scan.changes()).toBeUndefined();

  // The log renamed over by another file (as a compaction does; the same bytes here, so that only the file's
  // identity tells): the next rescan reads it whole, and reports only what changed.
  const index = join(home, "tasks", ".index.ndjson");
  await writer(home, "create", "later", "1", "10");
  copyFileSync(index, `${index}.copy`);
  renameSync(`${index}.copy`, index);
  expect(ids((await scan.changes())?.changed)).toEqual(["later-0"]);
  expect(whole).toHaveBeenCalledTimes(2);
});

it("a handle file no index line tells of (its writer killed before its line) is found by the minute's whole read", async () => {
  const home = tempHome();
  await writer(home, "create", "a", "2", "10");
  const store = new HandleStore(home);
  const scan = new StoreScan(store, RESCAN_MS);
  await scan.changes();
  // A copy of a handle under a new name, written straight into the directory: no line in the index.
  const dir = join(home, "tasks");
  const source = (await store.find("a-0")).stem;
  const file = readFileSync(join(dir, `${source}.json`), "utf8").replaceAll("a-0", "b-0");
  writeFileSync(join(dir, `${source.replace("a-0", "b-0")}.json`), file);
  // Rescans every 5 s: within a minute's worth of them, it is found (by the whole read); none is missed for good.
  const found: string[] = [];
  for (let i = 0; i < 60_000 / RESCAN_MS && found.length === 0; i++)
    found.push(...ids((await scan.changes())?.changed));
  expect(found).toEqual(["b-0"]);
});
