// Measures the handle store: the cost of one save at 0 / 10,000 handles, and `mcp-task list --json` with
// 0 / 1,000 / 10,000 handles, each as the median of several runs, beside `node -e 0`. Not a test: it prints.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { median } from "./median.mjs";

const root = join(import.meta.dirname, "..");
const writer = join(root, "dist/test-tools/store-writer.js");
const bin = join(root, "bin/mcp-task.js");
const runs = Number(process.env.BENCH_RUNS ?? 7);

function wall(args, env = {}) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const r = spawnSync(process.execPath, args, {
      env: { ...process.env, ...env },
      stdio: ["ignore", "ignore", "inherit"],
    });
    if (r.status !== 0) throw new Error(`${args.join(" ")} exited ${r.status}`);
    times.push(performance.now() - t0);
  }
  return median(times);
}

const rows = [];
rows.push(["node -e 0", wall(["-e", "0"])]);
for (const n of [0, 1000, 10000]) {
  const home = mkdtempSync(join(tmpdir(), "mcp-task-bench-"));
  for (let done = 0; done < n; done += 2500)
    execFileSync(process.execPath, [writer, home, "create", `h${done}`, String(Math.min(2500, n - done)), "200"]);
  const save = execFileSync(process.execPath, [writer, home, "timed", "extra", "200", "200"], {
    encoding: "utf8",
  }).trim();
  rows.push([`save one handle (store of ${n})`, Number(save)]);
  rows.push([`mcp-task list --json (${n} handles)`, wall([bin, "list", "--json"], { MCP_TASK_HOME: home })]);
}
console.log(`handle store, median of ${runs} runs (ms)`);
for (const [what, ms] of rows) console.log(`${what.padEnd(40)} ${ms.toFixed(1).padStart(8)}`);
