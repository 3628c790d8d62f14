// A store past RAW_INDEX_MIN_BYTES, written as the store writes handle files (without a process per save): the
// tests of what a large store reads from its stamped index (list's page and --json, the dashboard's first frame).
import { chmodSync, mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileStem } from "../../src/store/handle-file.js";
import { runCli } from "./cli.js";

/**
 * A handle file of a task of the server "bench", created `i` seconds after 2026-01-01 (finished or working), its
 * status message `message of <id>` and `pad` characters more.
 */
export function saveHandle(dir: string, taskId: string, i: number, done: boolean, pad = 0): void {
  const at = new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
  const handle = {
    version: 1,
    taskId,
    server: { name: "bench", descriptor: { transport: "http", url: "http://127.0.0.1:1/mcp" } },
    resume: { generation: "v2", protocolVersion: "2026-07-28", serverName: "bench" },
    tool: "bench",
    arguments: {},
    createdAt: at,
    updatedAt: at,
    ttlMs: null,
    pollIntervalMs: 1000,
    last: {
      taskId,
      status: done ? "completed" : "working",
      statusMessage: `message of ${taskId}${pad ? ` ${".".repeat(pad)}` : ""}`,
      inputRequests: [],
    },
    history: [{ status: done ? "completed" : "working", at }],
    answered: [],
    ...(done ? { outcome: { taskId, status: "completed", result: { content: [] } } } : {}),
  };
  writeFileSync(join(dir, `${fileStem(taskId, "00000000")}.json`), JSON.stringify(handle), { mode: 0o600 });
}

/** The store's task directory under `home`, made as the store makes it. */
export function taskDir(home: string): string {
  const dir = join(home, "tasks");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(home, 0o700);
  return dir;
}

/**
 * 3,400 handles (an index past 1 MiB, RAW_INDEX_MIN_BYTES; with `pad`, ~3 KB more a row: past 8 MiB too,
 * PROVISIONAL_MIN_BYTES), t-0 the oldest, every 100th one unfinished (t-0, t-100...), and their index built and
 * stamped (its directory's mtime set a minute back, past the stamp's margin) by two `list`s.
 */
export async function stampedStore(home: string, options: { pad?: boolean } = {}): Promise<string> {
  const dir = taskDir(home);
  for (let i = 0; i < 3400; i++) saveHandle(dir, `t-${i}`, i, i % 100 !== 0, options.pad ? 3000 : 0);
  for (let pass = 0; pass < 2; pass++) {
    const run = await runCli(["list", "--json"], { home });
    if (run.code !== 0) throw new Error(run.stderr);
    const past = (Date.now() - 60_000) / 1000;
    utimesSync(dir, past, past);
  }
  return dir;
}
