// Work that must finish before the process exits: the stopping of a stdio server (its SIGKILL escalation above
// all). bin/mcp-task.js exits soon after `main` returns, whatever timers are left, so `main` waits for these first.
// A module of its own, without imports, so that the core holds it without loading node:child_process.
const holds = new Set<Promise<unknown>>();

/** Keeps the process from exiting (through `main`) until `work` settles. */
export function holdExit(work: Promise<unknown>): void {
  holds.add(work);
  void work.finally(() => holds.delete(work)).catch(() => {});
}

/** Resolves once every held piece of work has settled (each is bounded by the grace that started it). */
export async function exitHoldsSettled(): Promise<void> {
  while (holds.size > 0) await Promise.allSettled([...holds]);
}
