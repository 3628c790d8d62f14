// Request counting and stderr logging. stdout is reserved: the MCP channel on stdio, the one
// "listening ..." line on HTTP.

const counts = new Map<string, number>();
/** taskId -> method -> count, for requests whose params name a task (tasks/get, tasks/update, tasks/cancel). */
const perTask = new Map<string, Map<string, number>>();
let logRequests = true;

export function setRequestLogging(on: boolean): void {
  logRequests = on;
}

export function log(message: string): void {
  process.stderr.write(`[v2-server] ${message}\n`);
}

/**
 * Counts one inbound JSON-RPC message by method (requests and notifications; responses have no
 * method and are not counted), and per task when its params carry a `taskId`. Emits
 * `[v2-server] rpc <method> count=<n>` (plus ` task=<first 8 chars of the id> task_count=<n>`) on
 * stderr, so a test can count e.g. the `tasks/get` requests a task of known length received, from the
 * log alone. Counted before any validation: rejected requests count too.
 */
export function countMessage(message: unknown): void {
  if (message === null || typeof message !== "object") return;
  const { method, params } = message as { method?: unknown; params?: { taskId?: unknown } };
  if (typeof method !== "string") return;
  const n = (counts.get(method) ?? 0) + 1;
  counts.set(method, n);
  const taskId = params !== null && typeof params === "object" ? params.taskId : undefined;
  if (typeof taskId === "string") {
    const m = perTask.get(taskId) ?? new Map<string, number>();
    perTask.set(taskId, m);
    const t = (m.get(method) ?? 0) + 1;
    m.set(method, t);
    if (logRequests) log(`rpc ${method} count=${n} task=${taskId.slice(0, 8)} task_count=${t}`);
  } else if (logRequests) log(`rpc ${method} count=${n}`);
}

/** Counts every message of a parsed HTTP body (a single message or a batch array). */
export function countBody(body: unknown): void {
  if (Array.isArray(body)) for (const m of body) countMessage(m);
  else countMessage(body);
}

const sorted = (m: Map<string, number>): Record<string, number> =>
  Object.fromEntries([...m.entries()].sort(([a], [b]) => a.localeCompare(b)));

/** {method: count} over all requests, or over the requests naming one task. */
export function snapshotCounts(taskId?: string): Record<string, number> {
  if (taskId !== undefined) return sorted(perTask.get(taskId) ?? new Map());
  return sorted(counts);
}

export function resetCounts(): void {
  counts.clear();
  perTask.clear();
  log("stats reset");
}
