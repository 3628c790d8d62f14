// Measures the dashboard in a real terminal (tmux): time to the first frame with 1,000, 10,000 and 100,000 saved
// handles (the last also timed beside `node -e 0`, in turns), the time a key takes to show (scroll, filter), and CPU
// and memory while idle and while following BENCH_LIVE (default 1,000) live tasks on our V2 test server. Not a test:
// it prints a table.
//   BENCH_BIG=0         not 100,000 handles
//   BENCH_LIVE_ONLY=1   only the live tasks' figures
//   BENCH_LIVE=0        no live tasks: the saved handles' figures alone
//   BENCH_PROF=<dir>    the live dashboard runs with --cpu-prof (written as it leaves, after the CPU window) and
//                       --heapsnapshot-signal (a heap snapshot taken at the end of the window), both into <dir>
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { median } from "./median.mjs";
import { writeStampedStore } from "./quick-store.mjs";

const root = join(import.meta.dirname, "..");
const bin = join(root, "bin/mcp-task.js");
const writer = join(root, "dist/test-tools/store-writer.js");
const tmux = (...args) => execFileSync("tmux", args, { encoding: "utf8" });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const ticks = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }));

async function waitFor(session, pattern, timeoutMs = 30_000) {
  const t0 = performance.now();
  for (;;) {
    const text = tmux("capture-pane", "-p", "-t", session);
    if (pattern.test(text)) return performance.now() - t0;
    if (performance.now() - t0 > timeoutMs) throw new Error(`timeout waiting for ${pattern}:\n${text}`);
    await sleep(5);
  }
}

/**
 * The time `key` takes to show (`shown`) at its first press (its code run the first time) and the median of KEY_RUNS
 * presses after it (one press alone can meet a collection or the store's rescan); `undo` takes the screen back to
 * `undone` between presses.
 */
async function timeKey(session, key, shown, undo, undone) {
  const times = [];
  for (let run = 0; run <= KEY_RUNS; run++) {
    tmux("send-keys", "-t", session, key);
    times.push(await waitFor(session, shown));
    await sleep(200);
    tmux("send-keys", "-t", session, undo);
    await waitFor(session, undone);
    await sleep(200);
  }
  return { first: times[0].toFixed(0), again: median(times.slice(1)).toFixed(0) };
}

function dashboardPid(session) {
  const shell = tmux("list-panes", "-t", session, "-F", "#{pane_pid}").trim();
  const out = spawnSync("pgrep", ["-f", "-P", shell, "bin/mcp-task.js dashboard"], { encoding: "utf8" }).stdout.trim();
  return Number(out.split("\n")[0]);
}

function usage(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  const cpu = (Number(stat[11]) + Number(stat[12])) / ticks;
  const rss = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))[1]) / 1024;
  return { cpu, rss };
}

/** CPU seconds of each thread of `pid`, summed by the thread's name (the main thread, V8's workers, libuv's pool). */
function threadUsage(pid) {
  const byName = new Map();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
      const name = tid === String(pid) ? "main thread" : stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const fields = stat.slice(stat.lastIndexOf(") ") + 2).split(" ");
      byName.set(name, (byName.get(name) ?? 0) + (Number(fields[11]) + Number(fields[12])) / ticks);
    } catch {
      // the thread ended
    }
  }
  return byName;
}

async function cpuOver(pid, ms) {
  const a = usage(pid);
  const threadsBefore = threadUsage(pid);
  await sleep(ms);
  const b = usage(pid);
  const threads = [...threadUsage(pid)].map(([name, cpu]) => [
    name,
    ((cpu - (threadsBefore.get(name) ?? 0)) / (ms / 1000)) * 100,
  ]);
  return { cpuPct: ((b.cpu - a.cpu) / (ms / 1000)) * 100, rss: b.rss, threads };
}

const sessions = [];
/** A tmux session running `command` (then a shell's sleep, so that the screen stays to be read). */
function openShell(name, command) {
  const session = `bench-${name}-${process.pid}`;
  sessions.push(session);
  tmux("new-session", "-d", "-s", session, "-x", "140", "-y", "45", `${command}; sleep 30`);
  return session;
}

function open(home, name, nodeFlags = "") {
  return openShell(
    name,
    `env -u CI NO_COLOR=1 MCP_TASK_HOME=${home} ${process.execPath} ${nodeFlags} ${bin} dashboard`,
  );
}

/**
 * The first frame at `n` handles and `node -e 0` in the same terminal, in turns (KEY_RUNS of each): their medians,
 * timed alike (from the session's start to the screen showing it).
 */
async function firstFrameBesideNode(home, n) {
  const frames = [];
  const floors = [];
  // Kept open (until the run ends): the tmux server exits with its last session, and one opened as it exits fails.
  openShell("keeper", "true");
  for (let run = 0; run < KEY_RUNS; run++) {
    const dashboard = open(home, `frame-${run}`);
    frames.push(await waitFor(dashboard, new RegExp(`${n} tasks`)));
    tmux("kill-session", "-t", dashboard);
    const floor = openShell(`floor-${run}`, `${process.execPath} -e 0; echo node-exited`);
    floors.push(await waitFor(floor, /node-exited/));
    tmux("kill-session", "-t", floor);
    await sleep(300);
  }
  return { frame: median(frames), floor: median(floors) };
}

const rows = [];
const KEY_RUNS = 5;
// The table is printed however the run ends (a step that times out on a loaded machine keeps what was measured),
// and what the run started is stopped.
let server;
process.on("exit", () => {
  console.log("dashboard (tmux, 140x45)");
  for (const [what, value] of rows) console.log(`${what.padEnd(48)} ${String(value).padStart(8)}`);
  server?.kill("SIGKILL"); // the test server's graceful close can wait on a socket forever
  for (const session of sessions) spawnSync("tmux", ["kill-session", "-t", session], { stdio: "ignore" });
});
const idleSizes = process.env.BENCH_BIG === "0" ? [1000, 10000] : [1000, 10000, 100000];
for (const n of process.env.BENCH_LIVE_ONLY === "1" ? [] : idleSizes) {
  const home = mkdtempSync(join(tmpdir(), "mcp-task-dash-"));
  // Up to 10,000: saved by the store itself (one process per 2,500), the index as real use leaves it behind.
  if (n >= 100000) await writeStampedStore(home, n, bin);
  // Tasks that ended an hour ago, as in a dashboard left open: no age on screen changes by the second.
  else
    for (let done = 0; done < n; done += 2500)
      execFileSync(
        process.execPath,
        [writer, home, "create", `h${done}`, String(Math.min(2500, n - done)), "200", "completed"],
        { env: { ...process.env, STORE_WRITER_AGE_MS: "3600000" } },
      );
  if (n >= 100000) {
    const { frame, floor } = await firstFrameBesideNode(home, n);
    rows.push(
      [`first frame, ${n} handles, median of ${KEY_RUNS} (ms)`, frame.toFixed(0)],
      [`node -e 0 in the same terminal, in turns (ms)`, floor.toFixed(0)],
      [`first frame, ${n} handles / node -e 0`, (frame / floor).toFixed(2)],
    );
  }
  const session = open(home, String(n));
  const first = await waitFor(session, new RegExp(`${n} tasks`));
  rows.push([`first frame, ${n} handles (ms)`, first.toFixed(0)]);
  const pid = dashboardPid(session);
  // "g" goes back to the top: h0-0 is the oldest, at the end.
  const end = await timeKey(session, "G", /h0-0\b/, "g", /^(?![\s\S]*h0-0\b)/);
  rows.push(
    [`key "G" to the end shown, ${n} handles (ms)`, end.first],
    [`key "G" again, median of ${KEY_RUNS}, ${n} handles (ms)`, end.again],
  );
  // Each key shown (and a moment more) before the next is sent: Ink hands keys to the input handler of the last
  // render once React has run its effects, which can come after the frame is on screen; a key sent in between is
  // lost (this step failed on a loaded machine with a fixed 50 ms between keys).
  let typed = "";
  for (const key of ["/", "h", "0", "-", "4"]) {
    tmux("send-keys", "-t", session, key);
    if (key !== "/") typed += key;
    await waitFor(session, new RegExp(`/ ${typed}▏`));
    await sleep(200);
  }
  const filter = await timeKey(session, "2", /"h0-42"/, "BSpace", /\/ h0-4▏/);
  tmux("send-keys", "-t", session, "2");
  await waitFor(session, /"h0-42"/);
  rows.push(
    [`filter key shown, ${n} handles (ms)`, filter.first],
    [`filter key again, median of ${KEY_RUNS}, ${n} handles (ms)`, filter.again],
  );
  tmux("send-keys", "-t", session, "Enter");
  const idle = await cpuOver(pid, 5000);
  rows.push([`idle CPU %, ${n} handles`, idle.cpuPct.toFixed(1)], [`RSS MiB, ${n} handles`, idle.rss.toFixed(0)]);
  tmux("kill-session", "-t", session);
  await sleep(500);
  rmSync(home, { recursive: true, force: true });
}

// BENCH_LIVE (default 1000) live tasks on our V2 test server (poll interval 1 s, push notifications on), each
// with a status message that changes every second (task_slow: "<elapsed>/<ms> ms").
const LIVE = Number(process.env.BENCH_LIVE ?? 1000);
if (LIVE === 0) process.exit(0); // the table is printed as the run leaves
server = spawn(
  process.execPath,
  [join(root, "dist/test-servers/v2-server.js"), "--port", "0", "--quiet", "--poll-interval", "1000"],
  { stdio: ["ignore", "pipe", "ignore"] },
);
const url = await new Promise((resolve) =>
  createInterface({ input: server.stdout }).on("line", (l) => l.startsWith("listening ") && resolve(l.slice(10))),
);
const home = mkdtempSync(join(tmpdir(), "mcp-task-dash-"));
// Tasks of 20 minutes (and a ttl to match): none ends before all are started and followed, even on a loaded
// machine. Started by `call --detach` run in one process (scripts/live-tasks.mjs); a call that fails (it can,
// under load) is counted out.
const t0 = performance.now();
const made = spawnSync(
  process.execPath,
  [join(root, "scripts/live-tasks.mjs"), home, url, String(LIVE), "task_slow", "ms=1200000", "ttlMs=3600000"],
  { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] },
);
const started = Number(made.stdout.trim()) || 0;
rows.push([`${LIVE} live tasks started (s)`, ((performance.now() - t0) / 1000).toFixed(1)]);
if (started < LIVE) rows.push([`live tasks started (of ${LIVE})`, started]);
const prof = process.env.BENCH_PROF;
if (prof) mkdirSync(prof, { recursive: true });
// BENCH_NODE_FLAGS: other flags for the live dashboard's node (with BENCH_PROF: e.g. --heap-prof --heap-prof-dir=DIR).
const flags =
  process.env.BENCH_NODE_FLAGS ??
  (prof ? `--cpu-prof --cpu-prof-dir=${prof} --heapsnapshot-signal=SIGUSR2 --diagnostic-dir=${prof}` : "");
const session = open(home, "live", flags);
rows.push([
  `first frame, ${LIVE} live tasks (ms)`,
  (await waitFor(session, new RegExp(`${started} tasks`))).toFixed(0),
]);
await waitFor(session, new RegExp(`${started} followed`), 120_000);
const pid = dashboardPid(session);
// Following, not starting: the window opens once the start's work is done (every handle read, each task's first read,
// the push subscription) and a steady dashboard's work has begun: its safety-net reads (PUSH_SAFETY_READS_PER_S a
// second from 50 s after the first reads, at 1,000 tasks) and its batched handle writes (each task's message changes
// written 200 s after the first: HANDLE_BATCH_WRITES_PER_S), so the window opens 200 s after "followed".
await sleep(Number(process.env.BENCH_SETTLE_MS ?? 200_000));
// A minute: a 30 s window of the same dashboard read from 7 to 11 % from one run to the next (a full collection, with
// its concurrent marking, comes every 10 to 20 s: a window holds one or two).
const live = await cpuOver(pid, Number(process.env.BENCH_WINDOW_MS ?? 60_000));
rows.push(
  [`CPU % following ${LIVE} live tasks`, live.cpuPct.toFixed(1)],
  [`RSS MiB following ${LIVE} live tasks`, live.rss.toFixed(0)],
  // Where that CPU goes: the main thread (what a profile shows), V8's helpers (the collector's), libuv's pool (files).
  ...live.threads
    .filter(([, pct]) => pct >= 0.1)
    .sort((x, y) => y[1] - x[1])
    .map(([name, pct]) => [`  of which ${name}`, pct.toFixed(1)]),
);
if (prof) {
  // The heap as the window leaves it; then the dashboard leaves ("q"), which writes its CPU profile.
  if (flags.includes("--heapsnapshot-signal")) process.kill(pid, "SIGUSR2");
  await sleep(15_000);
  tmux("send-keys", "-t", session, "q");
  for (let i = 0; i < 600 && spawnSync("kill", ["-0", String(pid)]).status === 0; i++) await sleep(100);
}
tmux("kill-session", "-t", session);
server.kill();
await sleep(500);
rmSync(home, { recursive: true, force: true });
