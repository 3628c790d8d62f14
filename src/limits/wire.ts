// ---- messages and connections: size of one message from a server, and how a connection is paced ----
// What is kept of one message, and how requests, answers, pushes and SSE streams go over a connection.
/** One JSON-RPC message (a stdio line, an HTTP JSON body, one SSE event): past it the connection ends. */
export const MAX_MESSAGE_BYTES = 32 * 1024 * 1024;
/** A task's status message is cut here before it is shown or stored. */
export const MAX_STATUS_MESSAGE = 4000;
/** How long a request that reports progress may stay open in all: each progress report restarts its timeout
 *  (MCP_TASK_REQUEST_TIMEOUT), but a server that reports progress forever cannot hold a request forever. */
export const MAX_PROGRESS_WAIT_MS = 60 * 60 * 1000;
/** Characters of a log message's data (as JSON) and logger name kept (`notifications/message`): shown in one line,
 *  an NDJSON `log` event and the dashboard's detail view. */
export const MAX_LOG_DATA_CHARS = 2000;
/** Characters of a progress message kept (it is shown in one status line). */
export const MAX_PROGRESS_MESSAGE = 500;
/** The shortest wait before reconnecting an SSE stream, whatever `retry:` the server sends (`retry: 0` was a
 *  reconnect storm). */
export const SSE_MIN_RETRY_MS = 1000;
/** How many tasks/get requests one connection has in flight at once; the rest wait their turn, unsent (over HTTP, each
 *  in flight is a connection of its own: src/protocol/rpc.ts). */
export const READS_AT_ONCE = 16;
/**
 * While pushes flow on a listen stream (a chunk within twice this long of the one before), the stream is read at most
 * about this often: what came meanwhile is read in one go (src/protocol/push-stream.ts). A dashboard's 1,000 tasks push about
 * 1,000 times a second, each in a chunk of its own, and each chunk read on its own cost a socket read, a parse, a web
 * stream's enqueue and read, and their promises. A lone push is read as it comes; under a stream, a push is at most
 * this much later (a dashboard draws its rows once a second). At 150 ms rather than 50, that dashboard used 8.8 %
 * CPU against 10.3-10.4 (in turns, same machine): undici stops reading the socket once 16 KB wait unread, so a
 * longer pause leaves more in the kernel's buffer for one read.
 */
export const PUSH_READ_PAUSE_MS = 150;
/** How many of this client's answers to a server's own requests (pings...) are POSTed at once over HTTP. */
export const ANSWER_POSTS_AT_ONCE = 4;
/** How many wait their turn: past that, an answer is not sent (src/protocol/http.ts, oneAnswerAtATime). */
export const MAX_QUEUED_ANSWERS = 1000;
/** SSE reconnections a minute without an event in between, past which a stream is not reconnected (a request
 *  waiting on it fails): with the floor above, a storm costs a handful of requests, not a core. */
export const SSE_MAX_RECONNECTS = 5;
/** Bytes of blank lines, comments and field lines without data between two SSE events, past which the stream ends:
 *  what a server can make mcp-task parse without giving it anything (a gzip stream of blank lines kept a core busy
 *  until the request timeout). Generous: keep-alive comments are a few bytes every few seconds. */
export const MAX_SSE_IDLE_BYTES = 1024 * 1024;
/**
 * How often, and how far apart, a resumed V1 session's standalone GET stream is tried while the server answers 409
 * (a session has one GET stream, and the previous holder's, the command that handed the session to its keeper, is
 * still being closed): 10 x 200 ms covers a loopback close under load; then the session goes on without it.
 */
export const GET_STREAM_TRIES = 10;
export const GET_STREAM_RETRY_MS = 200;
/** The handshake's timeout over HTTP is at least PROBE_MIN_TIMEOUT_MS, whatever MCP_TASK_REQUEST_TIMEOUT says (a
 *  probe that times out there fails the connection); the version probe (`server/discover`) waits at most
 *  PROBE_MAX_TIMEOUT_MS. */
export const PROBE_MIN_TIMEOUT_MS = 5_000;
export const PROBE_MAX_TIMEOUT_MS = 10_000;
