// Every bound mcp-task puts on what a server, a store file or an input can make it do, in one place. SECURITY.md
// lists them. Each constant says what it bounds and why the figure; code elsewhere imports from here.

// ---- messages: size of one message from a server ----
/** One JSON-RPC message (a stdio line, an HTTP JSON body, one SSE event): past it the connection ends. */
export const MAX_MESSAGE_BYTES = 32 * 1024 * 1024;
/** A task's status message is cut here before it is shown or stored. */
export const MAX_STATUS_MESSAGE = 4000;

// ---- tasks: timing and identity a server controls ----

// ---- input: questions and answers ----
/** The most questions one engine answers for one task: a server that never stops asking is stopped here (exit 6). */
export const MAX_ANSWERS_PER_TASK = 32;
/** V2 request-level input rounds before a call is answered. */
export const MAX_INPUT_ROUNDS = 16;

// ---- schemas: what a tool or form schema may cost ----

// ---- store: what mcp-task reads back from disk ----
/** Results longer than this (as JSON) are not kept in handles; they are read from the server again. */
export const MAX_SAVED_RESULT_CHARS = 1_000_000;
/** A handle file read back (and written): a kept result (1M characters, up to 4 MB as UTF-8) with its arguments and
 *  history fits many times over; a file past it is not one mcp-task wrote, and is skipped, not read into memory. */
export const MAX_HANDLE_BYTES = 32 * 1024 * 1024;
/** The index (tasks/.index.ndjson): ~200 bytes a line, compacted past twice its handles, so 64 MiB is ~150,000
 *  handles; past it the index is rebuilt from the handle files instead of read. */
export const MAX_INDEX_BYTES = 64 * 1024 * 1024;
/** settings.json (saved servers, verdicts, tools' task support): kilobytes in use; past 16 MiB it is refused. */
export const MAX_SETTINGS_BYTES = 16 * 1024 * 1024;
/** A broker's records (brokers/<key>.json and .json.spec: a server descriptor, a pid, a time): a few KB in use. */
export const MAX_BROKER_RECORD_BYTES = 1024 * 1024;
/** How much of a broker's log is read to say why it did not start (the last lines are what is shown). */
export const BROKER_LOG_TAIL_BYTES = 64 * 1024;
/** A broker's log is emptied when a broker starts with it past this size (it is appended to by every start). */
export const MAX_BROKER_LOG_BYTES = 1024 * 1024;
/** A Unix socket's path, in bytes: sun_path holds 108 bytes on Linux, 104 on macOS and the BSDs, NUL included.
 *  A broker socket whose path under <home> would be longer is made in a short private directory instead. */
export const MAX_SOCKET_PATH_BYTES = process.platform === "linux" ? 107 : 103;

// ---- processes and streams ----
