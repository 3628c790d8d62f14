// `node scripts/bench-list.mjs [sizes]` (default 0,10000,100000): `list --json` and `list` against `node -e 0`,
// timed in turns (BENCH_RUNS pairs, default 7), for the store work alone (npm run bench times everything).
// The stores are written fast and stamped (scripts/quick-store.mjs writeStampedStore): the state a store is in
// after its first listings.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { median } from "./median.mjs";
import { writeStampedStore } from "./quick-store.mjs";

const bin = join(import.meta.dirname, "../bin/mcp-task.js");
const sizes = (process.argv[2] ?? "0,10000,100000").split(",").map(Number);
const runs = Number(process.env.BENCH_RUNS ?? 7);

function once(args, env) {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, { env, stdio: ["ignore", "pipe", "pipe"], maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`${args.join(" ")} exited ${r.status}: ${r.stderr}`);
  return performance.now() - t0;
}

for (const n of sizes) {
  const home = mkdtempSync(join(tmpdir(), "bench-list-"));
  await writeStampedStore(home, n, bin);
  const env = { ...process.env, MCP_TASK_HOME: home };
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
