// Request counting and stderr logging. stdout is reserved: the MCP channel on stdio, the one
// "listening ..." line on HTTP.

const counts = new Map<string, number>();
let logRequests = true;

export function setRequestLogging(on: boolean): void {
  logRequests = on;
}

export function log(message: string): void {
  process.stderr.write(`[v2-server] ${message}\n`);
}

/**
 * Counts one inbound JSON-RPC message by method (requests and notifications; responses have no
 * method and are not counted). Emits `[v2-server] rpc <method> count=<n>` on stderr, so a test can
 * count e.g. the `tasks/get` requests a task of known length received, from the log alone.
 */
export function countMessage(message: unknown): void {
  if (message === null || typeof message !== "object") return;
  const method = (message as { method?: unknown }).method;
  if (typeof method !== "string") return;
  const n = (counts.get(method) ?? 0) + 1;
  counts.set(method, n);
  if (logRequests) log(`rpc ${method} count=${n}`);
}

/** Counts every message of a parsed HTTP body (a single message or a batch array). */
export function countBody(body: unknown): void {
  if (Array.isArray(body)) for (const m of body) countMessage(m);
  else countMessage(body);
}

export function snapshotCounts(): Record<string, number> {
  return Object.fromEntries([...counts.entries()].sort(([a], [b]) => a.localeCompare(b)));
}

export function resetCounts(): void {
  counts.clear();
  log("stats reset");
}
