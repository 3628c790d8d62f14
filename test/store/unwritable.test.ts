// A store that cannot be written: a full disk, no inodes left, a read-only home. Each home is a small tmpfs mounted
// for the test (we run as root, as CI does on Linux; where mounting is not allowed, the test says it is skipped and
// why). Against our V2 test server over HTTP, in-process. What must hold: exit 9 (`store_unwritable`) with one line
// naming the folder and the cause; a task created on the server is never lost (its id printed, its handle kept
// where `import` saves it once there is room, and reachable then); what needs no write is done (`get` and `watch`
// show what they read); no temp file is left in the home.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it, type TestContext } from "vitest";
import { describeError, ExitCode, StoreUnwritableError } from "../../src/errors.js";
import { decodeError, encodeError } from "../../src/broker/protocol.js";
import { events, tempHome } from "../helpers/cli.js";
import { runInProcess } from "../helpers/context.js";
import { startV2Http, type RunningServer } from "../helpers/servers.js";

let v2: RunningServer;
beforeAll(async () => {
  v2 = await startV2Http();
});

const mounts: string[] = [];
afterAll(async () => {
  await v2?.stop();
  for (const dir of mounts) {
    spawnSync("umount", ["-l", dir]);
    rmSync(dir, { recursive: true, force: true });
  }
});

/** A tmpfs of its own for a home (`options`: mount options such as size=256k), or why one cannot be mounted. */
function tmpfs(options: string): { dir: string } | { reason: string } {
  const dir = mkdtempSync(join(tmpdir(), "mcp-task-tmpfs-"));
  const mounted = spawnSync("mount", ["-t", "tmpfs", "-o", `${options},mode=700`, "tmpfs", dir], { encoding: "utf8" });
  if (mounted.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    return { reason: `cannot mount a tmpfs here (${(mounted.stderr || mounted.error?.message || "").trim()})` };
  }
  mounts.push(dir);
  return { dir };
}

/** A home on a tmpfs, or the test skipped with the reason. */
function homeOn(ctx: TestContext, options: string): { mount: string; home: string } {
  const made = tmpfs(options);
  if ("reason" in made) ctx.skip(made.reason);
  const { dir } = made as { dir: string };
  return { mount: dir, home: join(dir, "home") };
}

function remount(dir: string, mode: "ro" | "rw"): void {
  const done = spawnSync("mount", ["-o", `remount,${mode}`, dir], { encoding: "utf8" });
  expect(done.status, done.stderr).toBe(0);
}

/** Fills the file system with one file until it is full; returns the file (removed to make room again). */
function fill(dir: string): string {
  const filler = join(dir, "filler");
  spawnSync("sh", ["-c", `head -c 100000000 /dev/zero > '${filler}'`]);
  return filler;
}

/** Every temp file (`.tmp-…`) anywhere under `dir`. */
function temps(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).filter((path) =>
    path.split("/").at(-1)!.startsWith(".tmp-"),
  );
}

/** The handle file the hint names (`mcp-task import --yes <file>`), after the id it follows. */
function rescued(hint: string): string {
  const file = /mcp-task import --yes (\S+)/.exec(hint)?.[1];
  expect(file, hint).toBeDefined();
  return file!;
}

const call = (home: string, ...args: string[]) => runInProcess(["call", ...args, "-s", v2.url], { home });

it("a call on a full disk prints the new task's id, exits 9 naming the folder and the cause, and the task is saved once there is room", async (ctx) => {
  const { mount, home } = homeOn(ctx, "size=256k");
  // Settings and the server's verdict saved while there is room; then the disk is full.
  expect((await call(home, "task_slow", "ms=1", "--detach")).code).toBe(0);
  const filler = fill(mount);

  const text = await call(home, "task_slow", "ms=1000");
  expect(text.code, text.stderr).toBe(ExitCode.storeUnwritable);
  const id = text.stdout.trim(); // as --detach prints it
  expect(id).toMatch(/^[0-9a-f-]{36}$/);
  const [, error, hint] = /^mcp-task: error: (.*)\nhint: (.*)\n$/m.exec(text.stderr) ?? [];
  expect(error).toBe(
    `task ${id} was created on ${v2.url}, but its handle could not be saved: ` +
      `cannot write in ${join(home, "tasks")}: no space left on the device`,
  );
  expect(hint).toMatch(/^free some space on that disk, or set MCP_TASK_HOME to a folder on another disk; then save/);
  expect(hint).toContain(`mcp-task watch ${id}`);

  const json = await call(home, "task_slow", "ms=1000", "--json");
  expect(json.code).toBe(ExitCode.storeUnwritable);
  const [task, failure] = events(json.stdout);
  expect(task).toMatchObject({ type: "task", server: v2.url, tool: "task_slow", status: "working" });
  expect(failure).toMatchObject({ type: "error", taskId: task.taskId, exitCode: 9, code: "store_unwritable" });
  expect(temps(home)).toEqual([]);

  // Room again: the kept handle is imported as the hint says, and the task is the server's: followed to its end.
  rmSync(filler);
  for (const [taskId, file] of [
    [id, rescued(hint)],
    [task.taskId as string, rescued(failure.hint as string)],
  ]) {
    const saved = await runInProcess(["import", "--yes", file], { home });
    expect(saved.code, saved.stderr).toBe(0);
    const watched = await runInProcess(["watch", taskId], { home });
    expect(watched.code, watched.stderr).toBe(0);
    expect(watched.stdout).toContain("done after 1000 ms");
    rmSync(file);
  }
});

it("no inodes left: the call names it, exits 9, and its task is kept", async (ctx) => {
  const { mount, home } = homeOn(ctx, "size=4m,nr_inodes=64");
  expect((await call(home, "task_slow", "ms=1", "--detach")).code).toBe(0);
  for (let i = 0; ; i++) {
    try {
      writeFileSync(join(mount, `f${i}`), "");
    } catch {
      break;
    }
  }
  const run = await call(home, "task_slow", "ms=1", "--json");
  expect(run.code).toBe(ExitCode.storeUnwritable);
  const [task, failure] = events(run.stdout);
  expect(failure.message).toBe(
    `task ${task.taskId} was created on ${v2.url}, but its handle could not be saved: ` +
      `cannot write in ${join(home, "tasks")}: no free inodes left on the device (no file can be created there)`,
  );
  rmSync(rescued(failure.hint as string));
  expect(temps(home)).toEqual([]);
});

it("on a read-only home, get and watch show what they read, then exit 9; forget exits 9; list still works", async (ctx) => {
  const { mount, home } = homeOn(ctx, "size=1m");
  // Saved as working; done on the server a moment later: the next read has a new status to save.
  const started = await call(home, "task_slow", "ms=1", "--detach");
  expect(started.code).toBe(0);
  const id = started.stdout.trim();
  remount(mount, "ro");
  try {
    const unsaved = `task ${id}: what was read is shown but not saved: cannot write in ${join(home, "tasks")}: the file system is read-only`;
    const got = await runInProcess(["get", id], { home });
    expect(got.code).toBe(ExitCode.storeUnwritable);
    expect(got.stdout).toMatch(new RegExp(`^${id}  completed`)); // the fresh status, read from the server
    expect(got.stderr).toBe(
      `mcp-task: error: ${unsaved}\nhint: remount it read-write, or set MCP_TASK_HOME to a folder on another disk\n`,
    );
    const watched = await runInProcess(["watch", id], { home });
    expect(watched.code).toBe(ExitCode.storeUnwritable);
    expect(watched.stdout).toContain("done after 1 ms");
    expect(watched.stderr).toContain(`mcp-task: error: ${unsaved}\n`);
    const forgot = await runInProcess(["forget", id], { home });
    expect(forgot.code).toBe(ExitCode.storeUnwritable);
    expect(forgot.stderr).toMatch(/^mcp-task: error: cannot write in .*: the file system is read-only\n/);
    const listed = await runInProcess(["list"], { home });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(id);
    // A new call: the task is kept as on a full disk.
    const made = await call(home, "task_slow", "ms=1", "--json");
    expect(made.code).toBe(ExitCode.storeUnwritable);
    rmSync(rescued(events(made.stdout)[1].hint as string));
  } finally {
    remount(mount, "rw");
  }
  // Writable again: what the read-only run could not save is read again, and saved.
  const again = await runInProcess(["watch", id], { home });
  expect(again.code, again.stderr).toBe(0);
  expect(temps(home)).toEqual([]);
});

it("a home that cannot be made on a read-only file system is named as such (not ENOENT), exit 9", async (ctx) => {
  const { mount } = homeOn(ctx, "size=64k");
  remount(mount, "ro");
  const run = await runInProcess(["call", "task_slow", "-s", v2.url], { home: join(mount, "a", "home") });
  expect(run.code).toBe(ExitCode.storeUnwritable);
  expect(run.stderr).toMatch(`mcp-task: error: cannot write in ${mount}: the file system is read-only\n`);
});

it("prune removes temp files left by killed writers in the home, its sign-ins and brokers' folders too", async () => {
  const home = tempHome();
  expect((await runInProcess(["list"], { home })).code).toBe(0);
  const old = (Date.now() - 3600_000) / 1000;
  const left = [
    join(home, ".tmp-settings.json-1-a"),
    join(home, "auth", ".tmp-x-1-b"),
    join(home, "tasks", ".tmp-y-1-c"),
  ];
  for (const file of left) {
    mkdirSync(join(file, ".."), { recursive: true });
    writeFileSync(file, "{");
    utimesSync(file, old, old);
  }
  const fresh = join(home, ".tmp-settings.json-2-d"); // a writer's now: kept
  writeFileSync(fresh, "{");
  const pruned = await runInProcess(["prune"], { home });
  expect(pruned.stderr).toContain("and 3 left-over temp file(s)");
  expect(temps(home)).toEqual([".tmp-settings.json-2-d"]);
});

it("an errno error no writer named (ENOSPC, EDQUOT, EROFS with a path) is still exit 9, never internal", () => {
  const error = Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC", path: "/x/y/z" });
  expect(describeError(error)).toMatchObject({
    exitCode: 9,
    code: "store_unwritable",
    message: "cannot write in /x/y: no space left on the device",
  });
  // EACCES can be a read: not taken for the store.
  expect(describeError(Object.assign(new Error("EACCES"), { code: "EACCES", path: "/x/y" })).exitCode).toBe(1);
});

it("the error crosses a broker's socket as itself: exit 9, its message and hint", () => {
  const error = StoreUnwritableError.of(
    "/x/tasks",
    "EROFS",
    "task t1: what was read is shown but not saved",
    undefined,
    "t1",
  );
  const back = decodeError(encodeError(error));
  expect(describeError(back)).toEqual(describeError(error));
  expect(describeError(back)).toMatchObject({ exitCode: 9, taskId: "t1", hint: expect.stringMatching(/^remount/) });
});
