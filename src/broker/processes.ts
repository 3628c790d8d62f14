// Which processes are ours. A pid is a number the system hands out again once its process is gone, so a pid read
// from a record (a broker's, left by a broker that was killed) may now be any process of the user's. mcp-task
// signals such a pid only when the process there is the one recorded: the same pid with the same start time.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

/** A process as recorded: its pid and when it started (opaque; only compared with a fresh reading). */
export interface ProcessRef {
  pid: number;
  start: string;
}

/**
 * When the process with this pid started, or undefined when there is none (or it cannot be told). Linux: field 22
 * of /proc/<pid>/stat (clock ticks since boot; the command name before it is in parentheses and may hold spaces).
 * Elsewhere: `ps -o lstart=` (to the second; with the pid, unique enough).
 */
export function startOf(pid: number): string | undefined {
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // A zombie (state Z: exited, not yet reaped) runs no more.
    if (fields[0] === "Z" || fields[0] === "X") return undefined;
    return fields[19] && /^\d+$/.test(fields[19]) ? `proc:${fields[19]}` : undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT" && process.platform === "linux") return undefined;
  }
  try {
    const started = execFileSync("ps", ["-o", "lstart=", "-p", String(pid)], {
      encoding: "utf8",
      timeout: 2000,
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
    return started ? `ps:${started}` : undefined;
  } catch {
    return undefined;
  }
}

/** The reference of a running process (undefined when its start cannot be read: then it is never signalled). */
export function refOf(pid: number | undefined): ProcessRef | undefined {
  const start = pid ? startOf(pid) : undefined;
  return pid && start ? { pid, start } : undefined;
}

/** True when the recorded process still runs: a process has its pid, and started when it did. */
export function isRunning(ref: ProcessRef | undefined): boolean {
  return ref !== undefined && typeof ref.start === "string" && startOf(ref.pid) === ref.start;
}

/** Signals the recorded process if it is still that process; false when it is not (gone, or the pid reused). */
export function signalIfSame(ref: ProcessRef | undefined, signal: NodeJS.Signals): boolean {
  if (!isRunning(ref)) return false;
  try {
    process.kill(ref!.pid, signal);
    return true;
  } catch {
    return false;
  }
}
