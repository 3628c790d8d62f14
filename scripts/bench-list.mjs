// `node scripts/bench-list.mjs [sizes]` (default 0,10000,100000): `list --json` and `list` against `node -e 0`,
// timed in turns (BENCH_RUNS pairs, default 7), for the store work alone (npm run bench times everything).
// The stores are written fast (no fsync), then listed once to build the index and, 2.5 s later (past the store's
// stamp margin, DIR_STAMP_MARGIN_MS), once more to stamp it: the state a store is in after its first listing.
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const bin = join(import.meta.dirname, "../bin/mcp-task.js");
const sizes = (process.argv[2] ?? "0,10000,100000").split(",").map(Number);
const runs = Number(process.env.BENCH_RUNS ?? 7);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function once(args, env) {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, { env, stdio: ["ignore", "pipe", "pipe"], maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`${args.join(" ")} exited ${r.status}: ${r.stderr}`);
  return performance.now() - t0;
}

function store(n) {
  const home = mkdtempSync(join(tmpdir(), "bench-list-"));
  const dir = join(home, "tasks");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(home, 0o700);
  for (let i = 0; i < n; i++) {
    const id = `h0-${i}`;
    const at = new Date(Date.now() - 3_600_000 - (n - i)).toISOString();
    const handle = {
      version: 1,
      taskId: id,
      server: { name: "bench", descriptor: { transport: "http", url: "http://127.0.0.1:1/mcp" } },
      resume: { generation: "v2", protocolVersion: "2026-07-28", serverName: "bench" },
      tool: "bench",
      arguments: { blob: "x".repeat(200) },
      createdAt: at,
      updatedAt: at,
      ttlMs: 300000,
      pollIntervalMs: 1000,
      last: { taskId: id, status: "completed", statusMessage: id, inputRequests: [] },
      history: [
        { status: "working", at },
        { status: "completed", at },
      ],
      answered: [],
      outcome: { taskId: id, status: "completed", result: { content: [{ type: "text", text: `result ${i}` }] } },
    };
    writeFileSync(join(dir, `${id}.00000000.json`), JSON.stringify(handle), { mode: 0o600 });
  }
  return home;
}

for (const n of sizes) {
  const home = store(n);
  const env = { ...process.env, MCP_TASK_HOME: home };
  execFileSync(process.execPath, [bin, "list", "--json"], { env, stdio: "ignore", maxBuffer: 1 << 30 });
  await new Promise((r) => setTimeout(r, 2500));
  execFileSync(process.execPath, [bin, "list", "--json"], { env, stdio: "ignore", maxBuffer: 1 << 30 });
  for (const form of [["list", "--json"], ["list"]]) {
    const node = [];
    const listed = [];
    for (let i = 0; i < 2 * runs + 1; i++) {
      node.push(once(["-e", "0"], env));
      listed.push(once([bin, ...form], env));
    }
    const [a, b] = [median(node), median(listed)];
    console.log(
      `${String(n).padStart(6)} handles  mcp-task ${form.join(" ").padEnd(11)} ${b.toFixed(0).padStart(5)} ms   node -e 0 ${a.toFixed(0).padStart(4)} ms   ${(b / a).toFixed(2)}x`,
    );
  }
  rmSync(home, { recursive: true, force: true });
}
