// A store of `n` finished handles written fast for the benchmarks: 100,000 handles saved one by one (each one
// fsync'd) take many minutes on a loaded disk, so their files are written here as the store writes them, without
// fsync; the index is built by the first `mcp-task list` that reads them. h0-0 is the oldest; all ended an hour ago.
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export function writeQuickStore(home, n) {
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
}

/**
 * writeQuickStore, then stampStore: the store as any reader leaves it behind.
 */
export async function writeStampedStore(home, n, bin) {
  writeQuickStore(home, n);
  await stampStore(home, bin);
}

/**
 * One `mcp-task list` (the built CLI `bin`) to build the store's index if it has none and, past the store's stamp
 * margin (DIR_STAMP_MARGIN_MS), a second one to stamp it: the state a store is in from its first listing after the
 * last write. Listed only within the margin, the directory is listed and every index line parsed at each listing.
 */
export async function stampStore(home, bin) {
  const list = () =>
    execFileSync(process.execPath, [bin, "list", "--json"], {
      env: { ...process.env, MCP_TASK_HOME: home },
      stdio: "ignore",
      maxBuffer: 1 << 30,
    });
  list();
  await new Promise((r) => setTimeout(r, 2500));
  list();
}
