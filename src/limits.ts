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

// ---- processes and streams ----
/** How long a stdio server gets to exit by itself once its input ends, before SIGTERM: a user waits on it, and an
 *  idle server with its input closed has nothing left to do (100 ms was 20% of a call; one that must clean up gets
 *  SIGTERM, the usual request to do so). */
export const STDIO_EXIT_GRACE_MS = 50;
/** After SIGTERM, how long a stdio server's process group has to go before SIGKILL (the SDK's own figure). A server
 *  that ignores SIGTERM, or a grandchild holding its pipes, holds a command or a broker this long and no longer. */
export const STDIO_KILL_GRACE_MS = 2000;
/** What `--args -` and `--input -` read from stdin (13 GB were read in 36 s): the value goes out in one message,
 *  which may not pass MAX_MESSAGE_BYTES either. */
export const MAX_STDIN_BYTES = MAX_MESSAGE_BYTES;
/** What `import -` reads from stdin: an export holds many handles (results up to MAX_SAVED_RESULT_CHARS each). */
export const MAX_IMPORT_STDIN_BYTES = 256 * 1024 * 1024;
/** Server text quoted in an error line or a question line (an HTTP error body, a JSON-RPC error message, a stderr
 *  tail) is cut here: one line must stay one line on a terminal (a 500 page of 7 MB was printed whole). */
export const MAX_ERROR_TEXT = 1000;
/** The shortest wait before reconnecting an SSE stream, whatever `retry:` the server sends (`retry: 0` was a
 *  reconnect storm). */
export const SSE_MIN_RETRY_MS = 1000;
/** SSE reconnections a minute without an event in between, past which a stream is not reconnected (a request
 *  waiting on it fails): with the floor above, a storm costs a handful of requests, not a core. */
export const SSE_MAX_RECONNECTS = 5;
/** Bytes of blank lines, comments and field lines without data between two SSE events, past which the stream ends:
 *  what a server can make mcp-task parse without giving it anything (a gzip stream of blank lines kept a core busy
 *  until the request timeout). Generous: keep-alive comments are a few bytes every few seconds. */
export const MAX_SSE_IDLE_BYTES = 1024 * 1024;
