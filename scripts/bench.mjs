// `npm run bench`: measures mcp-task and writes BENCHMARKS.md. A benchmark, not a test: it prints a table of
// medians (BENCH_RUNS runs each, default 7) and the method. Needs a build (npm run build) and tmux.
//   - one plain tool call (echo on server-everything over stdio), whole process, beside the MCP Inspector CLI
//     and apify's mcpc (pinned devDependencies), and the floor: `node -e 0` plus the server's own start;
//   - `mcp-task --help`, `list` with 0 / 10,000 / 100,000 handles (BENCH_BIG=0 skips 100,000);
//   - requests per task and time from a server-side status change to its display, with and without push;
//   - the dashboard (scripts/bench-dashboard.mjs): first frame, keys, CPU and memory.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";

const root = join(import.meta.dirname, "..");
const bin = join(root, "bin/mcp-task.js");
const writer = join(root, "dist/test-tools/store-writer.js");
const everything = join(root, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
const node22 = join(root, "conformance/node_modules/node/bin/node");
const runs = Number(process.env.BENCH_RUNS ?? 7);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const rows = [];
const row = (section, what, value, unit = "ms") => {
  rows.push([section, what, typeof value === "number" ? value.toFixed(unit === "ms" ? 0 : 1) : value, unit]);
  console.log(`${section.padEnd(12)} ${what.padEnd(62)} ${String(rows.at(-1)[2]).padStart(8)} ${unit}`);
};

function once(command, args, options = {}) {
  const t0 = performance.now();
  const r = spawnSync(command, args, { stdio: ["ignore", "pipe", "pipe"], ...options });
  if (r.status !== 0) throw new Error(`${command} ${args.join(" ")} exited ${r.status}: ${r.stderr}`);
  return performance.now() - t0;
}

function time(command, args, options = {}) {
  return median(Array.from({ length: runs }, () => once(command, args, options)));
}

/**
 * Two commands timed in turns (a, b, a, b...): their medians come from the same minutes of a machine whose speed
 * drifts (`node -e 0` moved between 93 and 118 ms from one run of this script to the next), so their ratio does not
 * carry that drift. 2 * BENCH_RUNS + 1 runs each.
 */
function timePair([commandA, argsA, optionsA], [commandB, argsB, optionsB]) {
  const a = [];
  const b = [];
  for (let i = 0; i < 2 * runs + 1; i++) {
    a.push(once(commandA, argsA, optionsA));
    b.push(once(commandB, argsB, optionsB));
  }
  return [median(a), median(b)];
}

// --- one plain call over stdio ---
const home = mkdtempSync(join(tmpdir(), "bench-home-"));
const env = { ...process.env, MCP_TASK_HOME: home, MCP_TASK_BROKER_GRACE: "1s" };
spawnSync(process.execPath, [bin, "call", "echo", "message=warm", "--stdio", `node ${everything} stdio`], { env }); // caches verdict + tool support
const floorScript = `const {spawn}=require("child_process");const c=spawn(process.execPath,[${JSON.stringify(everything)},"stdio"],{stdio:["pipe","pipe","ignore"]});c.stdin.write(JSON.stringify({jsonrpc:"2.0",id:1,method:"initialize",params:{protocolVersion:"2025-11-25",capabilities:{},clientInfo:{name:"f",version:"0"}}})+"\\n");c.stdout.on("data",d=>{if(String(d).includes('"id":1')){c.kill();process.exit(0)}})`;
const nodeFloor = time(process.execPath, ["-e", "0"]);
const serverFloor = time(process.execPath, ["-e", floorScript]);
row("call", "floor: node -e 0", nodeFloor);
row("call", "floor: start server-everything + initialize (one node process)", serverFloor);
const ours = time(process.execPath, [bin, "call", "echo", "message=hi", "--stdio", `node ${everything} stdio`], {
  env,
});
row("call", "mcp-task call echo (stdio, verdict cached)", ours);
let inspector = NaN;
try {
  inspector = time(node22, [
    join(root, "node_modules/.bin/mcp-inspector"),
    "--cli",
    "node",
    everything,
    "stdio",
    "--method",
    "tools/call",
    "--tool-name",
    "echo",
    "--tool-arg",
    "message=hi",
  ]);
  row("call", "MCP Inspector CLI 2.12.0 (on Node 22, which it requires)", inspector);
} catch (error) {
  row("call", `MCP Inspector CLI: failed (${String(error.message).slice(0, 40)})`, "-", "");
}
let mcpc = NaN;
try {
  const mcpcHome = mkdtempSync(join(tmpdir(), "bench-mcpc-"));
  const config = join(mcpcHome, "mcp.json");
  writeFileSync(config, JSON.stringify({ mcpServers: { ev: { command: "node", args: [everything, "stdio"] } } }));
  const mcpcBin = join(root, "node_modules/.bin/mcpc");
  const menv = { ...process.env, HOME: mcpcHome };
  const samples = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    for (const args of [
      ["connect", `${config}:ev`, "@b"],
      ["@b", "tools-call", "echo", "message:=hi"],
      ["close", "@b"],
    ]) {
      const r = spawnSync(mcpcBin, args, { env: menv, stdio: ["ignore", "pipe", "pipe"] });
      if (r.status !== 0) throw new Error(`mcpc ${args.join(" ")}: ${r.stderr}`);
    }
    samples.push(performance.now() - t0);
  }
  mcpc = median(samples);
  row("call", "apify mcpc 0.2.6 (connect + tools-call + close)", mcpc);
} catch (error) {
  row("call", `apify mcpc: failed (${String(error.message).slice(0, 40)})`, "-", "");
}
const fastestPeer = Math.min(...[inspector, mcpc].filter(Number.isFinite));
row("call", "mcp-task / fastest peer", ours / fastestPeer, "x");
row("call", "mcp-task / floor (node -e 0 + server start)", ours / (nodeFloor + serverFloor), "x");

// --- start-up and list ---
row("start", "mcp-task --help", time(process.execPath, [bin, "--help"], { env }));
const sizes = process.env.BENCH_BIG === "0" ? [0, 10000] : [0, 10000, 100000];
for (const n of sizes) {
  const h = mkdtempSync(join(tmpdir(), "bench-list-"));
  for (let done = 0; done < n; done += 5000)
    execFileSync(process.execPath, [
      writer,
      h,
      "create",
      `h${done}`,
      String(Math.min(5000, n - done)),
      "200",
      "completed",
    ]);
  const list = [process.execPath, [bin, "list", "--json"], { env: { ...env, MCP_TASK_HOME: h }, maxBuffer: 1 << 30 }];
  if (n !== 10000) {
    row("list", `mcp-task list --json, ${n} handles`, time(...list));
    continue;
  }
  const [node, listed] = timePair([process.execPath, ["-e", "0"]], list);
  row("list", `mcp-task list --json, ${n} handles`, listed);
  row("list", "node -e 0, timed in turns with it", node);
  row("list", "list of 10,000 / node -e 0 (timed in turns)", listed / node, "x");
}

// --- requests per task and display latency, with and without push ---
const server = spawn(
  process.execPath,
  [join(root, "dist/test-servers/v2-server.js"), "--port", "0", "--poll-interval", "1000"],
  { stdio: ["ignore", "pipe", "pipe"] },
);
const url = await new Promise((resolve) =>
  createInterface({ input: server.stdout }).on("line", (l) => l.startsWith("listening ") && resolve(l.slice(10))),
);
const changes = [];
createInterface({ input: server.stderr }).on("line", (line) => {
  const m = /task (\w+) \S+ -> (\w+)/.exec(line);
  if (m) changes.push({ id: m[1], status: m[2], at: Date.now() });
});
// Run asynchronously: the server's log lines (the moment of each status change) must be read as they come.
const run = (args, extraEnv = {}) =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], {
      env: { ...env, ...extraEnv },
      stdio: ["ignore", "pipe", "ignore"],
    });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.on("exit", (code) =>
      code === 0 ? resolve(out) : reject(new Error(`mcp-task ${args.join(" ")} exited ${code}`)),
    );
  });
const stats = async () => JSON.parse(await run(["call", "_stats", "-s", url]));
for (const push of [true, false]) {
  const gets = [];
  const lags = [];
  for (let i = 0; i < 3; i++) {
    const before = (await stats())["tasks/get"] ?? 0;
    const out = await run(["call", "task_complete", "ms=5000", "--json", "-s", url], {
      MCP_TASK_PUSH: push ? "on" : "off",
    });
    const events = out
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const shown = events.find((e) => e.type === "status" && e.status === "completed");
    const change = changes.findLast((c) => events[0].taskId.startsWith(c.id) && c.status === "completed");
    gets.push(((await stats())["tasks/get"] ?? 0) - before);
    if (shown && change) lags.push(Date.parse(shown.at) - change.at);
  }
  const label = push ? "with push notifications" : "polling only (MCP_TASK_PUSH=off)";
  row("polling", `tasks/get per 5 s task, poll interval 1 s, ${label}`, median(gets), "reqs");
  row("polling", `status change to display, ${label}`, median(lags));
}
row("polling", "protocol minimum without push: one read per interval (5 s / 1 s)", 5, "reqs");
server.kill();

// --- the dashboard ---
const dash = spawnSync(process.execPath, [join(root, "scripts/bench-dashboard.mjs")], {
  encoding: "utf8",
  env: { ...process.env, BENCH_LIVE: process.env.BENCH_LIVE ?? "1000" },
});
for (const line of dash.stdout.split("\n").slice(1)) {
  const m = /^(.*?)\s{2,}(\S+)$/.exec(line.trim());
  if (m) row("dashboard", m[1], m[2], "");
}

const machine = `${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, Node ${process.version}`;
writeFileSync(
  join(root, "BENCHMARKS.md"),
  `# Benchmarks\n\nWritten by \`npm run bench\` (scripts/bench.mjs) on ${new Date().toISOString().slice(0, 10)}; machine: ${machine}.\n` +
    `Each figure is the median of ${runs} runs (whole-process wall time from spawn to exit, measured by the script),\n` +
    `unless its unit says otherwise. \`list\` of 10,000 handles and \`node -e 0\` beside it are timed in turns, ${2 * runs + 1}\n` +
    `runs each, so that their ratio compares the same minutes of the machine. The dashboard figures come from\n` +
    `scripts/bench-dashboard.mjs: a real terminal\n` +
    `(tmux), CPU from /proc/<pid>/stat over 5-10 s, memory as RSS.\n\n| section | what | value | unit |\n|---|---|---:|---|\n` +
    rows.map((r) => `| ${r.join(" | ")} |`).join("\n") +
    "\n",
);
console.log("wrote BENCHMARKS.md");
