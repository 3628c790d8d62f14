// The suite's one setup and teardown (vitest globalSetup): every process a test starts carries MCP_TASK_TEST_SUITE,
// this run's mark, in its environment (the workers inherit it from here; runCli, the test servers and the stdio
// servers they start pass the environment on, and the terminals of helpers/tmux.ts set it). After the last file,
// any process still carrying the mark (a test server, a broker, a stdio server, an orphan of a killed worker) is
// named, stopped, and fails the run: a suite leaves nothing running.
import { readdirSync, readFileSync } from "node:fs";
import { randomBytes } from "node:crypto";

export const SUITE_MARK = "MCP_TASK_TEST_SUITE";

/**
 * The processes whose environment carries `mark`, and what they started (a stdio server inherits only the SDK's list
 * of variables, so it is found by its parent), but this process: pid and command line.
 */
export function marked(mark: string): Array<{ pid: number; command: string }> {
  const parents = new Map<number, number>();
  const ours = new Set<number>();
  for (const name of readdirSync("/proc")) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      const status = readFileSync(`/proc/${pid}/status`, "utf8");
      if (/^State:\s+Z/m.test(status)) continue; // exited, not yet reaped: nothing runs
      // The tmux server is every terminal's of this user (one started by a test serves the others' sessions too).
      if (/^Name:\s+tmux/m.test(status)) continue;
      parents.set(pid, Number(/^PPid:\s+(\d+)/m.exec(status)?.[1]));
      if (readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").includes(`${SUITE_MARK}=${mark}`)) ours.add(pid);
    } catch {
      /* gone meanwhile, or not ours to read */
    }
  }
  const descends = (pid: number): boolean => {
    for (let at: number | undefined = pid, depth = 0; at && depth < 64; at = parents.get(at), depth++)
      if (ours.has(at)) return true;
    return false;
  };
  return [...parents.keys()].filter(descends).map((pid) => ({ pid, command: commandOf(pid) }));
}

function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim();
  } catch {
    return "?";
  }
}

export default function setup(): () => Promise<void> {
  const mark = `${process.pid}-${randomBytes(4).toString("hex")}`;
  process.env[SUITE_MARK] = mark;
  return async () => {
    // A broker leaves its grace (MCP_TASK_BROKER_GRACE, 1 s in tests) after its last task; a server stopped by the
    // last file may be exiting still. hang-only: a process that is leaving is given 15 s, one that stays is named.
    const until = Date.now() + 15_000;
    let left = marked(mark);
    while (left.length > 0 && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      left = marked(mark);
    }
    if (left.length === 0) return;
    process.exitCode = 1; // vitest reports an error thrown here, but exits 0 for it
    for (const { pid } of left) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        /* gone meanwhile */
      }
    }
    throw new Error(
      `processes the test suite started were still running after its last file (stopped now): ${left
        .map(({ pid, command }) => `${pid} (${command})`)
        .join(", ")}`,
    );
  };
}
