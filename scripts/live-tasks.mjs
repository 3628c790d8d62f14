// Starts many live tasks at once, for the dashboard benchmark (scripts/bench-dashboard.mjs): each one is
// `mcp-task call <tool> <args...> --detach -s <url>` run by the built program itself (dist/cli.cjs: runProgram over
// the context main builds, createContext), in this one process: one Node start instead of one per task (1,000
// processes took five minutes on a loaded machine), and every handle exactly what the command saves.
//   node scripts/live-tasks.mjs <home> <url> <count> <tool> [key=value...]
// Runs up to LIVE_TASKS_AT_ONCE calls at a time (default 25); prints the number started; exits 0 if all were.
import { createRequire } from "node:module";
import { join } from "node:path";
import { PassThrough } from "node:stream";

const root = join(import.meta.dirname, "..");
const { runProgram } = createRequire(import.meta.url)(join(root, "dist/cli.cjs"));
// The core's modules by source path, as the built core registers them for its lazy bundle (scripts/build.mjs).
const core = globalThis[Symbol.for("mcp-task.core")];
const { createContext } = core["src/process-context.ts"];
const { exitHoldsSettled } = core["src/protocol/exit-holds.ts"];

const [home, url, countArg, tool, ...pairs] = process.argv.slice(2);
const count = Number(countArg);
const atOnce = Number(process.env.LIVE_TASKS_AT_ONCE ?? 25);

/** One `call --detach` over a context of its own, its output dropped (a failure's message goes to stderr). */
async function callOnce() {
  let stderr = "";
  const interrupt = new AbortController();
  const ctx = createContext({
    io: {
      stdout: { write: () => true },
      stderr: { write: (s) => ((stderr += s), true) },
      stdin: new PassThrough(),
      stdinIsTTY: false,
      stdoutIsTTY: false,
      stderrIsTTY: false,
      color: false,
      interactive: false,
    },
    env: { ...process.env, MCP_TASK_HOME: home },
    home,
    self: [process.execPath, join(root, "bin/mcp-task.js")],
    interrupt: interrupt.signal,
    interruptNow: () => interrupt.abort(),
    secrets: new Map(),
    uid: process.getuid?.(),
  });
  const code = await runProgram(ctx, [process.execPath, "mcp-task", "call", tool, ...pairs, "--detach", "-s", url]);
  if (code !== 0) process.stderr.write(`live-tasks: call exited ${code}: ${stderr.trim()}\n`);
  return code === 0;
}

let started = 0;
let next = 0;
await Promise.all(
  Array.from({ length: Math.min(atOnce, count) }, async () => {
    while (next < count) {
      next++;
      if (await callOnce().catch(() => false)) started++;
    }
  }),
);
await exitHoldsSettled();
console.log(started);
process.exit(started === count ? 0 : 1);
