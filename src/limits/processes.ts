// ---- processes: brokers, stdio servers, stdin and signals ----
// A broker's records, logs and traces; a stdio server's exit and stderr; stdin read whole; how long a signal leaves a
// command.
import { MAX_MESSAGE_BYTES } from "./wire.js";

/** A broker's records (brokers/<key>.json, .json.spec and .failed: a server descriptor, a pid, a time, an error): a
 * few KB in use. */
export const MAX_BROKER_RECORD_BYTES = 1024 * 1024;
/** A broker's log is emptied when a broker starts with it past this size (it is appended to by every start). */
export const MAX_BROKER_LOG_BYTES = 1024 * 1024;
/** A broker's trace of its server connection (brokers/<key>.trace, `server logs --trace`), always kept: past this size
 *  the file is moved to <key>.trace.1 (replacing the one before) and begun again, so at most twice this is on disk
 *  per broker, and a chatty task cannot grow it further. 256 KiB holds ~500 polls of a task with their replies. */
export const MAX_BROKER_TRACE_BYTES = 256 * 1024;
/** One event of a broker's trace: a longer message is kept as the start of its JSON text (a 4 MB result does not
 *  flush the rest of the trace out). */
export const MAX_BROKER_TRACE_EVENT_BYTES = 16 * 1024;
/** What a broker writes of its stdio server's stderr to its log in its life (`server logs`): a chatty server cannot
 *  fill the disk through a broker that runs for hours. */
export const MAX_SERVER_STDERR_LOG_BYTES = 512 * 1024;
/** The end of a stdio server's stderr kept in memory to explain its exit (the last words, not its whole log). */
export const SERVER_STDERR_TAIL_BYTES = 2000;
/** Of that tail, the characters an error shows (folded into one line, made terminal-safe): the last lines a crash
 *  leaves, within one error line a person reads; `server logs` has the rest. */
export const SERVER_STDERR_TAIL_SHOWN = 400;
/** A Unix socket's path, in bytes: sun_path holds 108 bytes on Linux, 104 on macOS and the BSDs, NUL included.
 *  A broker socket whose path under <home> would be longer is made in a short private directory instead. */
export const MAX_SOCKET_PATH_BYTES = process.platform === "linux" ? 107 : 103;
/**
 * The longest a broker keeps a stdio server up for a task that does not end (or whose ttl is unlimited): a server
 * that calls a task working for ever cannot keep its broker for ever. A day covers a human approval left overnight.
 */
export const MAX_BROKER_FOLLOW_MS = 24 * 60 * 60 * 1000;
/**
 * The least time between a broker's own reads of a task it follows (slower where the server's pollInterval asks):
 * a broker follows its tasks for the record only, and a command following a task reads for it meanwhile. Settable
 * with MCP_TASK_BROKER_PACE (src/broker/paths.ts: brokerPace), as MCP_TASK_BROKER_GRACE sets its idle grace: for a
 * test that must see the broker's pace without sitting through 5 s of it.
 */
export const BROKER_FOLLOW_PACE_MS = 5000;
/**
 * How long a command waits for the broker it started to listen, and the longest that broker waits for that command
 * (while it runs) before its idle grace may count: a short MCP_TASK_BROKER_GRACE (or a loaded machine) must not let a
 * broker leave before the command that started it has attached ("its broker exited without saying why").
 */
export const BROKER_START_WAIT_MS = 30_000;
/** How long a stdio server gets to exit by itself once its input ends, before SIGTERM: a user waits on it, and an
 *  idle server with its input closed has nothing left to do (100 ms was 20% of a call; one that must clean up gets
 *  SIGTERM, the usual request to do so). */
export const STDIO_EXIT_GRACE_MS = 50;
/** After SIGTERM, how long a stdio server's process group has to go before SIGKILL (the SDK's own figure). A server
 *  that ignores SIGTERM, or a grandchild holding its pipes, holds a command or a broker this long and no longer. */
export const STDIO_KILL_GRACE_MS = 2000;
/** How long `server stop` waits for a broker it asked to stop to end its connection (it marks the handles whose
 *  questions it drops, then removes its socket, first): a broker's own stop takes well under a second; one that
 *  never ends the connection is hung, and the command does not wait on it for ever. */
export const BROKER_STOP_WAIT_MS = 10_000;
/** The command line a command tells its broker as it attaches ("mcp-task watch 5348014916be"), shown to the other
 *  commands following the same task while it holds a question: a name, not a record; a longer one is cut. */
export const MAX_HOLDER_COMMAND_CHARS = 120;
/** What `--args -` and `--input -` read from stdin (13 GB were read in 36 s): the value goes out in one message,
 *  which may not pass MAX_MESSAGE_BYTES either. */
export const MAX_STDIN_BYTES = MAX_MESSAGE_BYTES;
/** What `import` reads (a file, or `-` for stdin): an export holds many handles (results up to MAX_SAVED_RESULT_CHARS
 *  each). */
export const MAX_IMPORT_STDIN_BYTES = 256 * 1024 * 1024;
/** After SIGTERM, how long the command has to stop waiting and say so (its error line, the task kept) before the
 *  process exits 143 whatever it is doing: a CI runner that cancels a job kills it soon after. */
export const SIGTERM_EXIT_MS = 5000;
