// A store that holds what mcp-task did not write: symbolic links (to files outside the store, to /dev/zero), FIFOs,
// huge files, malformed handles, forged index lines, an empty task id, and a home too long for a socket's path.
// Each case plants the thing in an MCP_TASK_HOME, runs the CLI, and checks the exit code, one clear line on stderr,
// that nothing outside the store was written, and where a read of what was planted was the defect (a FIFO, /dev/zero,
// a file of gigabytes), the built CLI's peak memory, and that it ended: a run stopped past HANG_S is a hang (hang-only,
// far past what a loaded machine takes; how fast is the bench's). Where neither is the point, the CLI runs in-process.
// The cases run side by side (each has its homes of its own).
import { spawn, spawnSync } from "node:child_process";
import {
  appendFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it as serial } from "vitest";
import {
  cliEnv,
  events,
  homes,
  runCli as runProcess,
  tempHome,
  type CliResult,
  exitedAndRead,
} from "../helpers/cli.js";
import { runInProcess } from "../helpers/context.js";
import { ROOT, v2Stdio } from "../helpers/servers.js";

const BIN = join(ROOT, "bin/mcp-task.js");
const WRITER = join(ROOT, "dist/test-tools/store-writer.js");
const HOSTILE = join(ROOT, "dist/test-servers/hostile-server.js");

interface Timed extends CliResult {
  /** Wall-clock seconds and the peak resident memory (KB) of the mcp-task process, as /usr/bin/time saw them. */
  seconds: number;
  maxRssKb: number;
}

/** The resident memory (KB) of a process and all its descendants, from /proc; 0 once gone. */
function treeRssKb(pid: number): number {
  try {
    const rss = Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8")
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
    return rss + children.reduce((sum, child) => sum + treeRssKb(child), 0);
  } catch {
    return 0;
  }
}

/** Runs a command in-process (45 s, hang-only, unless given). */
const runCli = runInProcess;
/** Each case side by side with the others. */
const it = serial.concurrent;

/**
 * Hang-only: a run of the built CLI that has not ended within this many seconds waited on what was planted (a FIFO
 * never opened for writing blocks its reader for ever); it is stopped at twice this.
 */
const HANG_S = 30;

/** The cap above which a run is stopped at once (a reader of /dev/zero must not take the machine down with it). */
const RUNAWAY_KB = 1024 * 1024;

/**
 * Runs the built CLI under /usr/bin/time (the process's own peak memory, not the test's), in a process group of its
 * own: on a timeout or past RUNAWAY_KB of memory the whole group is killed, mcp-task included, not only `time`.
 */
function timedCli(args: string[], home: string, timeoutMs = 2 * HANG_S * 1000): Promise<Timed> {
  const report = join(home, "..", `time-${process.pid}-${Math.random().toString(36).slice(2)}`);
  return new Promise((resolve, reject) => {
    const child = spawn("/usr/bin/time", ["-f", "%e %M", "-o", report, process.execPath, BIN, ...args], {
      env: cliEnv(home),
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let stdout = "";
    let stderr = "";
    let stopped = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    const stop = (why: string) => {
      stopped ||= why;
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        /* gone */
      }
    };
    const timer = setTimeout(() => stop(`did not finish within ${timeoutMs} ms`), timeoutMs);
    const watch = setInterval(() => {
      if (treeRssKb(child.pid!) > RUNAWAY_KB) stop(`took more than ${RUNAWAY_KB / 1024} MB of memory`);
    }, 50);
    void exitedAndRead(child).then((code) => {
      clearTimeout(timer);
      clearInterval(watch);
      if (stopped) return reject(new Error(`mcp-task ${args.join(" ")} ${stopped}; stderr: ${stderr.slice(0, 500)}`));
      const [seconds, rss] = readFileSync(report, "utf8").trim().split("\n").at(-1)!.split(" ").map(Number);
      resolve({ code, stdout, stderr, seconds, maxRssKb: rss });
    });
  });
}

/** Saves `count` handles (working, or completed) with the store's own code. */
function saveHandles(home: string, prefix: string, count: number, completed = false): void {
  const r = spawnSync(
    process.execPath,
    [WRITER, home, "create", prefix, String(count), "50", ...(completed ? ["completed"] : [])],
    { encoding: "utf8" },
  );
  expect(r.status, r.stderr).toBe(0);
}

/** What a directory outside the store holds (names, contents, times): it must not change. */
function snapshot(dir: string): string {
  return readdirSync(dir)
    .sort()
    .map((name) => {
      const path = join(dir, name);
      const st = lstatSync(path);
      return `${name} ${st.size} ${st.mtimeMs} ${st.isFile() ? readFileSync(path, "utf8") : ""}`;
    })
    .join("\n");
}

/** A directory outside the store, with one file that links planted in the store point to. */
function outsideDir(): { dir: string; file: string } {
  const dir = tempHome();
  const file = join(dir, "victim.txt");
  writeFileSync(file, "outside the store\n");
  return { dir, file };
}

/** A valid handle's JSON (what a link to it would make list show, if links were followed). */
function handleJson(taskId: string, status = "working"): string {
  const now = new Date().toISOString();
  return JSON.stringify({
    version: 1,
    taskId,
    server: { name: "planted", descriptor: { transport: "http", url: "http://127.0.0.1:1/mcp" } },
    resume: { generation: "v2" },
    tool: "t",
    arguments: {},
    createdAt: now,
    updatedAt: now,
    ttlMs: null,
    last: { taskId, status },
    history: [{ status, at: now }],
    answered: [],
  });
}

/** The one note line a listing writes for the files it skipped. */
function skippedLine(stderr: string): string {
  const lines = stderr
    .trim()
    .split("\n")
    .filter((line) => line.includes("skipped"));
  expect(lines, stderr).toHaveLength(1);
  return lines[0];
}

function expectClean(result: CliResult): void {
  expect(result.stderr).not.toMatch(/\n\s+at |TypeError|RangeError|internal error/); // no stack, no crash
  // eslint-disable-next-line no-control-regex
  expect(result.stdout + result.stderr).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
}

it("links planted in the store (handle files, the index) are neither followed nor written through", async () => {
  const home = tempHome();
  const outside = outsideDir();
  writeFileSync(join(outside.dir, "handle.json"), handleJson("outside-task"));
  saveHandles(home, "real", 3);
  const tasks = join(home, "tasks");
  symlinkSync(join(outside.dir, "handle.json"), join(tasks, "outside-task.00000000.json"));
  symlinkSync(outside.file, join(tasks, ".index.ndjson.new"));
  // The index itself as a link to a file outside: an append must not go there.
  const index = join(tasks, ".index.ndjson");
  const indexText = readFileSync(index, "utf8");
  writeFileSync(join(outside.dir, "index.ndjson"), indexText);
  rmSync(index);
  symlinkSync(join(outside.dir, "index.ndjson"), index);
  const before = snapshot(outside.dir);

  const listed = await timedCli(["list", "--json"], home);
  expect(listed.code, listed.stderr).toBe(0);
  expectClean(listed);
  const ids = (JSON.parse(listed.stdout) as Array<{ taskId: string }>).map((row) => row.taskId).sort();
  expect(ids).toEqual(["real-0", "real-1", "real-2"]); // the linked handle is not shown
  expect(skippedLine(listed.stderr)).toMatch(
    /skipped a file in .*tasks that is not a readable task handle: outside-task\.00000000\.json \(a symbolic link\)/,
  );
  expect(listed.seconds).toBeLessThan(HANG_S); // hang-only: a read that waits on what was planted never ends

  // A new save appends to the index: into a real file now, not through the link.
  saveHandles(home, "more", 1);
  expect((await timedCli(["prune"], home)).code).toBe(0);
  expect(lstatSync(index).isSymbolicLink()).toBe(false);
  expect(snapshot(outside.dir)).toBe(before);
});

it("a FIFO as a handle file or as the index does not hang list, prune or watch", async () => {
  const home = tempHome();
  saveHandles(home, "real", 2);
  const tasks = join(home, "tasks");
  spawnSync("mkfifo", [join(tasks, "fifo-task.00000000.json")]);
  const index = join(tasks, ".index.ndjson");
  rmSync(index);
  spawnSync("mkfifo", [index]);

  const listed = await timedCli(["list"], home);
  expect(listed.code, listed.stderr).toBe(0);
  expectClean(listed);
  expect(listed.stdout).toContain("real-0");
  expect(skippedLine(listed.stderr)).toContain("fifo-task.00000000.json (a FIFO)");
  expect(listed.seconds).toBeLessThan(HANG_S); // hang-only: a read that waits on what was planted never ends
  expect(lstatSync(index).isFIFO()).toBe(false); // replaced by a rebuilt index

  const pruned = await timedCli(["prune"], home);
  expect(pruned.code, pruned.stderr).toBe(0);
  expect(pruned.seconds).toBeLessThan(HANG_S); // hang-only: a read that waits on what was planted never ends
  expect(existsSync(join(tasks, "fifo-task.00000000.json"))).toBe(true); // not a handle: not prune's to delete

  const watched = await timedCli(["watch", "fifo-task"], home);
  expect(watched.code).toBe(5); // no such saved task: the FIFO is not one
  expect(watched.stderr).toMatch(/^mcp-task: error: no saved task matches fifo-task\n/);
  expect(watched.seconds).toBeLessThan(HANG_S); // hang-only: a read that waits on what was planted never ends
});

it("a handle linked to /dev/zero, or a huge handle file, is skipped at once without being read", async () => {
  const home = tempHome();
  saveHandles(home, "real", 2);
  const tasks = join(home, "tasks");
  symlinkSync("/dev/zero", join(tasks, "zero-task.00000000.json"));
  // A sparse file of 4 GB: nothing on disk, but a reader that trusts it would try to hold it all.
  const huge = join(tasks, "huge-task.00000000.json");
  writeFileSync(huge, "{");
  truncateSync(huge, 4 * 1024 ** 3);
  // The index too, both ways.
  const index = join(tasks, ".index.ndjson");
  rmSync(index);
  symlinkSync("/dev/zero", index);

  const listed = await timedCli(["list"], home);
  expect(listed.code, listed.stderr).toBe(0);
  expectClean(listed);
  expect(listed.stdout).toContain("real-1");
  const line = skippedLine(listed.stderr);
  expect(line).toContain("zero-task.00000000.json (a symbolic link)");
  expect(line).toMatch(/huge-task\.00000000\.json \(larger than 32 MiB \(4096 MiB\)\)/);
  expect(listed.seconds).toBeLessThan(HANG_S); // hang-only: a read that waits on what was planted never ends
  expect(listed.maxRssKb).toBeLessThan(200 * 1024); // a start-up's worth, not gigabytes

  writeFileSync(index, "");
  truncateSync(index, 2 * 1024 ** 3); // an index past its cap is rebuilt, not read
  const again = await timedCli(["list", "--json"], home);
  expect(again.code).toBe(0);
  expect(JSON.parse(again.stdout)).toHaveLength(2);
  expect(again.maxRssKb).toBeLessThan(200 * 1024);
  expect(statSync(index).size).toBeLessThan(10_000);
});

it("malformed handles and index lines are skipped, named in one line, and never break the listing of the others", async () => {
  const home = tempHome();
  saveHandles(home, "good", 3);
  const tasks = join(home, "tasks");
  const bad: Record<string, string> = {
    "not-json": "{ this is not json",
    null: "null",
    array: "[]",
    "number-id": handleJson("x").replace('"taskId":"x"', '"taskId":5'),
    "evil-status": handleJson("y").replaceAll('"working"', '"\\u001b[31mworking"'),
    "number-server": handleJson("z").replace('"name":"planted"', '"name":7'),
    "no-history": handleJson("w").replace(/"history":\[[^\]]*\]/, '"history":"none"'),
    dates: handleJson("v").replace(/"createdAt":"[^"]*"/, '"createdAt":{"evil":1}'),
  };
  for (const [name, text] of Object.entries(bad))
    writeFileSync(join(tasks, `${name}.00000000.json`), text, { mode: 0o600 });
  // A forged index line with the wrong types for a good handle: it must not reach the listing as it is.
  const stem = "good-0.00000000";
  appendFileSync(
    join(tasks, ".index.ndjson"),
    `${JSON.stringify([2, stem, 1, 42, {}, "t", "v2", 1, null, "x", null, "x", null, null, null, true, null, true])}\n` +
      // The same in the current format: its view with a number for an id and one field more.
      `${JSON.stringify([3, stem, 1, true, null, true, null, { taskId: 5, server: {}, evil: "\u001b[31m" }])}\n`,
  );

  for (const args of [["list"], ["list", "--json"], ["list", "--status", "working"]]) {
    const listed = await runCli(args, { home });
    expect(listed.code, `${args.join(" ")}: ${listed.stderr}`).toBe(0);
    expectClean(listed);
    const line = skippedLine(listed.stderr);
    expect(line).toMatch(
      /^mcp-task: skipped 8 files in .* that are not a readable task handle: array\.00000000\.json \(not a task handle \(bad version\)\), dates\.00000000\.json \(not a task handle \(bad times\)\), evil-status\.00000000\.json \(not a task handle \(bad last status\)\), and 5 more$/,
    );
    if (args.includes("--json"))
      expect((JSON.parse(listed.stdout) as Array<{ taskId: string }>).map((r) => r.taskId).sort()).toEqual([
        "good-0",
        "good-1",
        "good-2",
      ]);
    else for (const id of ["good-0", "good-1", "good-2"]) expect(listed.stdout).toContain(id);
  }
  const pruned = await runCli(["prune"], { home });
  expect(pruned.code, pruned.stderr).toBe(0);
  expect(pruned.stderr).toMatch(/^mcp-task: dropped 0 handle\(s\)\n/);
  expect(readdirSync(tasks).filter((n) => n.endsWith(".json"))).toHaveLength(11);
});

it("a forged index line cannot make prune delete a live task's handle; the index is rebuilt from the files", async () => {
  const home = tempHome();
  saveHandles(home, "live", 2);
  saveHandles(home, "done", 2, true);
  const tasks = join(home, "tasks");
  const index = join(tasks, ".index.ndjson");
  const old = "2020-01-01T00:00:00.000Z";
  const stem = "live-0.00000000";
  const mtime = statSync(join(tasks, `${stem}.json`)).mtimeMs;
  // The live task's entry, forged: finished, completed, last updated years ago, with the file's own mtime.
  appendFileSync(
    index,
    `${JSON.stringify([2, stem, mtime, "live-0", "bench", "bench", "v2", "completed", null, old, null, old, null, null, null, true, old, true])}\n`,
  );

  const pruned = await runCli(["prune", "--older-than", "1d"], { home });
  expect(pruned.code, pruned.stderr).toBe(0);
  expect(pruned.stderr).toBe("mcp-task: dropped 0 handle(s)\n"); // the done ones are newer than a day
  expect(existsSync(join(tasks, `${stem}.json`))).toBe(true);
  // Rebuilt: one line per handle, the live one as it is in its file.
  const lines = readFileSync(index, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as unknown[]);
  expect(lines).toHaveLength(4);
  expect((lines.find((l) => l[1] === stem)?.[7] as { status: string }).status).toBe("working");

  // Without --older-than: the finished ones go, the live ones stay.
  appendFileSync(
    index,
    `${JSON.stringify([2, stem, mtime, "live-0", "bench", "bench", "v2", "completed", null, old, null, old, null, null, null, true, old, true])}\n`,
  );
  const all = await runCli(["prune"], { home });
  expect(all.stderr).toBe("mcp-task: dropped 2 handle(s)\n");
  expect(
    readdirSync(tasks)
      .filter((n) => n.endsWith(".json"))
      .sort(),
  ).toEqual(["live-0.00000000.json", "live-1.00000000.json"]);
  const listed = events((await runCli(["list", "--json"], { home })).stdout)[0] as unknown as Array<{
    taskId: string;
    status: string;
  }>;
  expect(listed.map((r) => `${r.taskId} ${r.status}`).sort()).toEqual(["live-0 working", "live-1 working"]);
});

it("a task whose id is empty gets a handle file that list shows and forget removes (not a hidden file)", async () => {
  const home = tempHome();
  const server = `node ${HOSTILE} --case empty-id --stdio`;
  const called = await runCli(["call", "report", "--stdio", server, "--json"], { home });
  expect(called.code, called.stderr).toBe(0);
  const tasks = join(home, "tasks");
  const files = readdirSync(tasks).filter((n) => n.endsWith(".json"));
  expect(files).toHaveLength(1);
  expect(files[0]).toMatch(/^%\.[0-9a-f]{8}\.json$/);
  const listed = JSON.parse((await runCli(["list", "--json"], { home })).stdout) as Array<{
    taskId: string;
    status: string;
  }>;
  expect(listed).toEqual([expect.objectContaining({ taskId: "", status: "completed" })]);
  const forgot = await runCli(["forget", ""], { home });
  expect(forgot.code, forgot.stderr).toBe(0);
  expect(readdirSync(tasks).filter((n) => n.endsWith(".json"))).toHaveLength(0);
});

it("links planted as a broker's spec, record and log are replaced, not written through, and the broker starts", async () => {
  const home = tempHome();
  const outside = outsideDir();
  // The broker's key is a hash of the server's configuration: learn it from a first start in another home.
  const scout = tempHome();
  const server = v2Stdio();
  // The built CLI, as the call below: the key is the broker's as that process names it.
  expect((await runProcess(["call", "task_complete", "ms=100", "--stdio", server], { home: scout })).code).toBe(0);
  const key = readdirSync(join(scout, "brokers"))
    .find((n) => n.endsWith(".log"))!
    .slice(0, -4);
  const brokers = join(home, "brokers");
  mkdirSync(brokers, { recursive: true, mode: 0o700 });
  for (const suffix of [".json.spec", ".json", ".log"]) symlinkSync(outside.file, join(brokers, `${key}${suffix}`));
  const before = snapshot(outside.dir);

  const called = await timedCli(
    ["call", "task_complete", "ms=100", "text=through the broker", "--stdio", server],
    home,
    2 * HANG_S * 1000,
  );
  expect(called.code, called.stderr).toBe(0);
  expect(called.stdout.trim()).toBe("through the broker");
  expect(snapshot(outside.dir)).toBe(before);
  expect(lstatSync(join(brokers, `${key}.log`)).isSymbolicLink()).toBe(false);
});

it("a home of 150+ characters: stdio tasks go through the broker, its socket in a short private directory", async () => {
  const base = tempHome();
  const home = join(base, `long-${"h".repeat(150)}`);
  homes.push(home);
  expect(home.length).toBeGreaterThan(150);
  const server = v2Stdio();
  const started = await runCli(["call", "task_input_once", "ms=100", "--stdio", server, "--detach", "--json"], {
    home,
  });
  expect(started.code, started.stderr).toBe(0);
  const id = events(started.stdout)[0].taskId as string;
  // Not under the home (too long for a socket's address); in /tmp/mcp-task-<uid>, 0700, ours.
  expect(readdirSync(join(home, "brokers")).filter((n) => n.endsWith(".sock"))).toEqual([]);
  const dir = `/tmp/mcp-task-${process.getuid!()}`;
  const st = lstatSync(dir);
  expect(st.isDirectory() && st.uid === process.getuid!() && (st.mode & 0o777) === 0o700).toBe(true);
  const responded = await runCli(["respond", id, "--input", '{"name":"Kay"}'], { home });
  expect(responded.code, responded.stderr).toBe(0);
  const result = await runCli(["result", id], { home });
  expect(result.code, result.stderr).toBe(0);
  expect(result.stdout.trim()).toBe("Hello, Kay");
});

it("settings.json as a FIFO or a link to /dev/zero: one line, exit 2, at once", async () => {
  const home = tempHome();
  const settings = join(home, "settings.json");
  spawnSync("mkfifo", [settings]);
  const fifo = await timedCli(["server", "list"], home);
  expect(fifo.code).toBe(2);
  expect(fifo.stderr).toMatch(/^mcp-task: error: cannot read .*settings\.json: it is a FIFO\nhint: /);
  expect(fifo.seconds).toBeLessThan(HANG_S); // hang-only: a read that waits on what was planted never ends
  rmSync(settings);
  symlinkSync("/dev/zero", settings);
  const zero = await timedCli(["server", "list"], home);
  expect(zero.code).toBe(2);
  expect(zero.stderr).toMatch(/settings\.json: it is a symbolic link\n/);
  expect(zero.maxRssKb).toBeLessThan(200 * 1024);
});

it("a store directory that is a link is refused; planted broker records do not break or hang server ps", async () => {
  // Not in `homes`: test/helpers/setup.ts reads every brokers/*.json of those, and would wait on the FIFO planted here.
  const home = mkdtempSync(join(tmpdir(), "mcp-task-test-"));
  const outside = outsideDir();
  symlinkSync(outside.dir, join(home, "tasks"));
  const before = snapshot(outside.dir);
  const listed = await timedCli(["list"], home);
  expect(listed.code).toBe(2);
  expect(listed.stderr).toMatch(
    /^mcp-task: error: .*tasks is a symbolic link, and mcp-task keeps its files only in a directory of its own\nhint: remove the link/,
  );
  expect(snapshot(outside.dir)).toBe(before);
  rmSync(join(home, "tasks")); // the link only

  const brokers = join(home, "brokers");
  mkdirSync(brokers, { mode: 0o700 });
  spawnSync("mkfifo", [join(brokers, "0000000000000001.json")]);
  symlinkSync("/dev/zero", join(brokers, "0000000000000002.json"));
  writeFileSync(join(brokers, "0000000000000003.json"), "[1,2,3]");
  writeFileSync(join(brokers, "0000000000000004.json"), '{"name":{"x":1},"pid":"no"}');
  const ps = await timedCli(["server", "ps"], home);
  expect(ps.code, ps.stderr).toBe(0);
  expectClean(ps);
  expect(ps.stdout.trim()).toBe("no brokers running");
  expect(ps.seconds).toBeLessThan(HANG_S); // hang-only: a read that waits on what was planted never ends
  expect(ps.maxRssKb).toBeLessThan(200 * 1024);
  rmSync(home, { recursive: true, force: true });
});
