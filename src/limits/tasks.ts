// ---- tasks: timing and identity a server controls ----
// With what is kept of a task's history, and `mcp-task check`'s reads of one task.
/**
 * The fastest mcp-task reads a task, whatever the server's pollInterval says (0 or below was a busy loop: 3-6
 * CPU-seconds for a 10 s task): 200 ms is 5 reads a second per task, the default of our own V2 test server
 * (server-everything asks for 1000), and keeps a 10 s task to ~50 reads (0.5-0.6 CPU-seconds of the CLI, start-up
 * included, measured over HTTP).
 */
export const MIN_POLL_INTERVAL_MS = 200;
/**
 * The slowest: a longer interval (up to 1e12 ms, past what a timer can hold) is read every 2 minutes. That still spares
 * a server that asks for slow polls, tells a watcher of an end within 2 minutes, and reads a result at least twice
 * before the shortest common ttl (5 min, server-everything's) can expire it.
 */
export const MAX_POLL_INTERVAL_MS = 120_000;
/**
 * The longest a timer can wait in one go (setTimeout holds a signed 32-bit count of ms; past it Node fires at once):
 * the Clock sleeps longer waits in steps of this.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;
/**
 * The longest task id accepted (UTF-16 units): a longer one is a protocol violation (exit 4) before it is stored or
 * shown. Real ids are UUIDs or tokens of at most a few hundred characters; 1024 leaves room for those and keeps every
 * status line, hint, error and index entry that names a task short.
 */
export const MAX_TASK_ID_LENGTH = 1024;
/** A ttl longer than this (10 years) means "unlimited" to mcp-task: expiry arithmetic stays far from 2^53. */
export const MAX_TTL_MS = 10 * 365 * 24 * 3600 * 1000;
/**
 * A server's createdAt further than this (1 day) from mcp-task's clock when the task is first seen is not trusted for
 * expiry: the ttl counts from when mcp-task saw the task (a clock a day off is broken, not skewed).
 */
export const MAX_CLOCK_SKEW_MS = 24 * 3600 * 1000;
/** A timestamp string from a server (createdAt, lastUpdatedAt) longer than this is no ISO 8601 time: dropped. */
export const MAX_TIMESTAMP_LENGTH = 64;
/**
 * Changes that are not a new status (a status message, a poll interval or ttl) are written to a task's handle at most
 * once in this long per process; a new status, an answer and the outcome are written at once. A server that changes
 * its message or interval on every read costs one fsync'd write and one index line per 5 s, not one per read.
 */
export const HANDLE_BATCH_MS = 5000;
/**
 * The most batched handle writes (above) a process makes a second, whatever the number of tasks it follows: with
 * more than 25 tasks changing their message, each task's batch waits longer than HANDLE_BATCH_MS (1,000 tasks: one
 * write per task per 200 s). Each write is a lock, a read, an fsync'd write, a rename and an index line: at 20 a second
 * they were a tenth of a dashboard's CPU at 1,000 followed tasks, at 10 a second still a tenth of its main thread's
 * time. What waits is only a message, poll interval or ttl: a new status, an answer and the outcome are written at
 * once, and the dashboard shows every change as it comes.
 */
export const HANDLE_BATCH_WRITES_PER_S = 5;
/**
 * While a server pushes every change, the safety-net reads of the tasks followed on one connection (a read of mcp-task's
 * own now and then: pushes are never the only source of truth) come this often a second in all: each task's every 30 s
 * while there are few, less often past 60 (1,000 tasks: one each 450 to 550 s). A safety read is a whole HTTP request:
 * measured in a dashboard following 1,000 tasks, 5 a second cost about 2.5 points of its CPU (a sixth of it; the SDK's
 * send, fetch's streams, the reply's checks, the collections after). What a safety read catches is a server that
 * pushes a task's changes but not all of them: a push stream that stops is noticed within three poll intervals (a task
 * without pushes is polled at that pace), and a status change that is pushed shows at once.
 */
export const PUSH_SAFETY_READS_PER_S = 2;
/** The most status-history entries a handle keeps: past it the oldest message-only entries go first (then the oldest). */
export const MAX_HISTORY_ENTRIES = 100;
/**
 * The most entries of a handle's history that only changed the status message (the newest are kept): a task whose
 * message changes every second kept 100 of them, the bulk of every handle written and, in a dashboard following
 * 1,000 such tasks, 100,000 entries in memory.
 */
export const MAX_HISTORY_MESSAGES = 20;
/** `mcp-task check`: how many terminal pushes of one task are each compared with a tasks/get right after (a server
 *  that pushes on every read must not make the check read for ever). */
export const MAX_CHECK_PUSH_READS = 5;
/** `mcp-task check`: how many pages of V1 `tasks/list` are read looking for the task it created. */
export const MAX_CHECK_LIST_PAGES = 20;
/** `mcp-task check` without --tool: how many task tools are tried, in turn, until one answers with a task (a V2
 *  server decides per call, so a tool it lists may answer with a result). */
export const MAX_CHECK_TOOL_TRIES = 5;
