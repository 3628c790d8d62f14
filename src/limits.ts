// Every bound mcp-task puts on what a server, a store file or an input can make it do, in one place. SECURITY.md
// lists them. Each constant says what it bounds and why the figure; code elsewhere imports from here.

// ---- messages: size of one message from a server ----
/** One JSON-RPC message (a stdio line, an HTTP JSON body, one SSE event): past it the connection ends. */
export const MAX_MESSAGE_BYTES = 32 * 1024 * 1024;
/** A task's status message is cut here before it is shown or stored. */
export const MAX_STATUS_MESSAGE = 4000;

// ---- tasks: timing and identity a server controls ----
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

// ---- input: questions and answers ----
/** The most questions one engine answers for one task: a server that never stops asking is stopped here (exit 6). */
export const MAX_ANSWERS_PER_TASK = 32;
/** V2 request-level input rounds before a call is answered. */
export const MAX_INPUT_ROUNDS = 16;
/**
 * A question asked while its call is on its way, that the command cannot answer, is kept for the task the call
 * creates; a server that holds back its reply until the answer comes would hold the command for ever, so after this
 * long without a reply the server is told the question is not answered (as before keeping). 5 s: a reply that is
 * not held back comes within a round trip or two.
 */
export const HELD_CALL_QUESTION_MS = 5000;
/**
 * Questions a broker leaves unanswered at once because none of its tasks or calls could have asked them (a server
 * that sends each question to all its sessions: src/broker/questions.ts). Each waits until the server withdraws it,
 * holding the request as the server sent it; past this many the next is refused, so a server that floods a session
 * with such questions costs the broker at most this many. 16: a server asks one question per task at a time, and
 * a session with no task of its own sees one per task of the other sessions.
 */
export const MAX_UNCLAIMED_QUESTIONS = 16;

/**
 * How long a command gives a V1 question its handle says went out of reach (its keeper stopped, or the task was
 * imported while it waited) to come again before saying it cannot (exit 4, question_lost): a 2025-11-25 server may
 * hand it again to the keeper the command starts, which asks for it once it sees the task wait (a round trip or
 * two); read again every QUESTION_REDELIVERY_STEP_MS meanwhile. A question that never comes costs a command this
 * once, never a wait without bound.
 */
export const QUESTION_REDELIVERY_WAIT_MS = 5000;
export const QUESTION_REDELIVERY_STEP_MS = 500;

// ---- schemas: what a tool or form schema may cost ----
// A schema (a tool's inputSchema/outputSchema, an elicitation's requestedSchema) is measured before anything compiles,
// walks or draws it (src/protocol/schema-bounds.ts); one past a bound is a protocol violation (exit 4) naming it.
/** How deeply a schema nests (JSON levels): real tool schemas nest a dozen; 20,000 levels overflowed the stack. */
export const MAX_SCHEMA_DEPTH = 64;
/**
 * Values in one schema (objects, arrays, strings, numbers...). AJV's compile is not interruptible and costs about
 * 1 ms per property schema on a loaded machine (1,000 properties: 0.9-1.7 s at load 11 on 2 cores): this caps it.
 */
export const MAX_SCHEMA_NODES = 10_000;
/** Keys in one object of a schema (a `properties` map, say): past it a schema is a list of data, not a shape. */
export const MAX_SCHEMA_KEYS = 1_000;
/** Characters in one string or key of a schema (a description, an enum value). */
export const MAX_SCHEMA_STRING = 16_384;
/** Characters in one `pattern` (or `patternProperties` key): compiled by a linear-time engine, but compiled. */
export const MAX_SCHEMA_PATTERN = 1_000;
/** Schema errors named in one complaint (AJV lists them all: 1,900 missing fields made a 78 KB warning line). */
export const MAX_SCHEMA_ERRORS = 5;
/** Fields in one form a person fills in (an elicitation, or a tool's arguments in the dashboard). */
export const MAX_FORM_FIELDS = 100;

// ---- store: what mcp-task reads back from disk ----
/** Results longer than this (as JSON) are not kept in handles; they are read from the server again. */
export const MAX_SAVED_RESULT_CHARS = 1_000_000;
/** A handle file read back (and written): a kept result (1M characters, up to 4 MB as UTF-8) with its arguments and
 *  history fits many times over; a file past it is not one mcp-task wrote, and is skipped, not read into memory. */
export const MAX_HANDLE_BYTES = 32 * 1024 * 1024;
/** The index (tasks/.index.ndjson): ~200 bytes a line, compacted past twice its handles, so 64 MiB is ~150,000
 *  handles; past it the index is rebuilt from the handle files instead of read. */
export const MAX_INDEX_BYTES = 160 * 1024 * 1024;
/** How old the tasks directory's mtime must be for a reader to stamp the index with it (src/store/summary-index.ts,
 *  DirStamp): far past the file system's clock tick (ext4: a few ms), so that no later change can keep that mtime. */
export const DIR_STAMP_MARGIN_MS = 2000;
/** From this size (~5,000 handles) a directory stamp carries the log's hash, and `list --json` copies finished
 *  tasks' rows from the stamped log unparsed (src/store/summary-index.ts): below it, parsing costs less than hashing
 *  (and loading node:zlib). */
export const RAW_INDEX_MIN_BYTES = 1024 * 1024;
/** How far from the index's end a reader looks for its last stamp when lines follow it (tasks saved since: ~200
 *  bytes a line, a few lines a task): the stamped bytes before it are copied as they are, only the lines after it
 *  parsed, and the directory listed (src/store/summary-index.ts raw); farther back, every line is parsed. */
export const STAMP_TAIL_MAX_BYTES = 1024 * 1024;
/** How much of the index a dashboard's rescan reads past where it last read (src/ui/scan.ts): the lines appended
 *  since, parsed alone (1,000 followed tasks: ~25 lines every 5 s, not the whole log of up to 3,000); more than this
 *  and it reads the whole log again. */
export const INDEX_TAIL_MAX_BYTES = 1024 * 1024;
/** From this size of the index (~25,000 handles) the dashboard's first frame is its newest page, the rest read just
 *  after (src/ui/model.ts start): at 100,000 handles ~280 ms instead of ~800; at 10,000 the frame came no sooner
 *  (~212 ms either way) and a key pressed as it showed waited for the rest (174 ms instead of ~94). */
export const PROVISIONAL_MIN_BYTES = 8 * 1024 * 1024;
/** settings.json (saved servers, verdicts, tools' task support): kilobytes in use; past 16 MiB it is refused, and
 *  mcp-task never writes it past that (a change that would is refused, exit 2, nothing written). */
export const MAX_SETTINGS_BYTES = 16 * 1024 * 1024;
/** One saved server as settings.json keeps it (address, headers, command line, arguments, environment, folder and
 *  OAuth client, as JSON), at `server add` and `server import`: real ones are a few hundred bytes, a long command line
 *  a few KB; past 64 KiB it is refused by name. Settings hold 250 servers even at this size. */
export const MAX_SAVED_SERVER_BYTES = 64 * 1024;
/** A server's generation verdict kept in settings.json (its `server/discover` result, which the server writes): a
 *  larger one is not kept (the server is asked again next time), and only the newest MAX_CACHED_VERDICTS are, so
 *  the cache stays a few MiB whatever servers say (a 10 MB discover result made settings.json unreadable). */
export const MAX_CACHED_VERDICT_BYTES = 64 * 1024;
export const MAX_CACHED_VERDICTS = 64;
/** Another client's MCP file read by `server import` (a VS Code settings.json holds other settings too): past it,
 *  exit 2. Larger than settings.json's own limit, so that a settings.json moved aside can be imported back. */
export const MAX_CLIENT_CONFIG_BYTES = 64 * 1024 * 1024;
/** Nesting of objects and arrays in a client file: its parser and the walk over it recurse, and 200,000 levels
 *  overflowed the stack ("internal error"). Real files nest 4 to 6 deep, a VS Code settings.json a few more. */
export const MAX_CLIENT_CONFIG_DEPTH = 64;
/** Servers in one client file: real ones list a few dozen. Past it the file is refused whole (exit 2), before its
 *  entries are read or named one line each. */
export const MAX_IMPORTED_SERVERS = 10_000;
/** The tools whose task support settings.json keeps (per server, and for so many servers): see saveTaskSupport. A
 *  server's tools/list is not trusted to fit. */
export const MAX_CACHED_TOOLS = 500;
export const MAX_CACHED_TOOL_NAME = 128;
export const MAX_CACHED_TOOL_SERVERS = 32;
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

// ---- processes and streams ----
/**
 * The longest a broker keeps a stdio server up for a task that does not end (or whose ttl is unlimited): a server
 * that calls a task working for ever cannot keep its broker for ever. A day covers a human approval left overnight.
 */
export const MAX_BROKER_FOLLOW_MS = 24 * 60 * 60 * 1000;
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
/** What `--args -` and `--input -` read from stdin (13 GB were read in 36 s): the value goes out in one message,
 *  which may not pass MAX_MESSAGE_BYTES either. */
export const MAX_STDIN_BYTES = MAX_MESSAGE_BYTES;
/** What `import` reads (a file, or `-` for stdin): an export holds many handles (results up to MAX_SAVED_RESULT_CHARS
 *  each). */
export const MAX_IMPORT_STDIN_BYTES = 256 * 1024 * 1024;
/** Server text quoted in an error line or a question line (an HTTP error body, a JSON-RPC error message, a stderr
 *  tail) is cut here: one line must stay one line on a terminal (a 500 page of 7 MB was printed whole). */
export const MAX_ERROR_TEXT = 1000;
/** Characters of one message in the readable trace on stderr (`--trace` without a file): a person reads the start of
 *  a message; the NDJSON trace file keeps it whole (each message is bounded by MAX_MESSAGE_BYTES). */
export const MAX_TRACE_LINE = 2000;
/** How often `list --watch` reads the store for changes: each read costs what a `list` costs (10,000 handles: a
 *  few ms from the index), and a person needs no faster. */
export const LIST_WATCH_INTERVAL_MS = 1000;
/**
 * `list --remote`: the most tasks read from a server's `tasks/list`, and the most pages (a page's size is the server's
 * choice, each bounded by MAX_MESSAGE_BYTES). Every row read is kept until the list is printed: a server with endless
 * pages held 1.2 GB. 10,000 tasks is more than a person reads, and a few MB; past either bound (or a cursor given twice:
 * a loop) the reading stops, what was read is printed, and the command exits 4 saying the list was cut.
 */
export const MAX_REMOTE_LIST_ROWS = 10_000;
export const MAX_REMOTE_LIST_PAGES = 100;
/** `list` on a terminal shows the newest this many tasks and the count of the others (`--all`, a pipe or `--json`:
 *  every one): 100,000 lines scroll past a person, and cost ~1 s to make. */
export const LIST_PAGE_ROWS = 50;
/**
 * `list --status` with a live status (working, input_required): the unfinished tasks about to be printed are read
 * again first (src/tasks/refresh.ts), the newest this many (a read each: 100 is seconds at worst, and more than a
 * CI job follows), this many at a time (one connection per server carries them), and only within this long in all
 * (a server that does not answer must not hold the list): the rest are printed as last seen, and a note says so.
 */
export const MAX_LIST_REFRESH_READS = 100;
export const LIST_REFRESH_CONCURRENCY = 4;
export const LIST_REFRESH_MS = 10_000;
/** How long a request that reports progress may stay open in all: each progress report restarts its timeout
 *  (MCP_TASK_REQUEST_TIMEOUT), but a server that reports progress forever cannot hold a request forever. */
export const MAX_PROGRESS_WAIT_MS = 60 * 60 * 1000;
/** Characters of a log message's data (as JSON) and logger name kept (`notifications/message`): shown in one line,
 *  an NDJSON `log` event and the dashboard's detail view. */
export const MAX_LOG_DATA_CHARS = 2000;
/** Log messages the dashboard keeps per server for its detail view (the newest). */
export const MAX_DASHBOARD_LOGS = 20;
/** Messages the dashboard keeps per task for its wire view (the newest): about a screenful (following 1,000 tasks
 *  that each change every second, 50 a task were 46,000 lines, 19 MB). */
export const MAX_WIRE_VIEW_MESSAGES = 30;
/** Characters of a message's summary in the dashboard's wire view (one line). */
export const MAX_WIRE_VIEW_SUMMARY = 200;
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
/** How long a sign-in waits for the browser to come back to the loopback listener (`mcp-task login`, or a command
 *  signing in on demand): a person reads the page and approves; then the command gives up with exit 8. */
export const LOGIN_WAIT_MS = 5 * 60 * 1000;
/** A server's saved sign-in (`<home>/auth/<key>.json`: client registration, tokens, discovery), read at most this
 *  large: tokens are a few KB, discovery documents a few more. A sign-in never writes a larger one
 *  (src/auth/record.ts keeps only the fields mcp-task uses, and refuses the sign-in, exit 8, past this). */
export const MAX_AUTH_FILE_BYTES = 256 * 1024;
/** How long each request of a sign-in may take, its body included: the first unauthenticated one (to read the
 *  server's 401 challenge), discovery, registration, the token request (a refresh inside a command too) and a
 *  revocation. An authorization server answers these at once; one that never answers must not hold `login` or a
 *  command for the network's own timeouts (minutes). Settable with MCP_TASK_AUTH_TIMEOUT (src/auth/net.ts). */
export const AUTH_REQUEST_TIMEOUT_MS = 10_000;
/** The largest body read from an authorization server or a protected resource's metadata (discovery documents,
 *  registration, token and revocation answers), counted after decompression: these are a few KB, and a gzip bomb
 *  sent as metadata must not cost a gigabyte of memory. Past it the sign-in (or the refresh) fails, naming the
 *  endpoint (exit 4). */
export const MAX_AUTH_BODY_BYTES = 1024 * 1024;
/** The longest token, client id or client secret a sign-in saves: an access token goes in an Authorization header,
 *  and common servers refuse request headers past 8 to 16 KiB (Node's limit for all of them is 16 KiB), so a longer
 *  one could never be sent; real ones, JWTs included, are at most a few KB. Past it the sign-in is refused (exit 8)
 *  rather than saved: four of them at this size still fit MAX_AUTH_FILE_BYTES. */
export const MAX_CREDENTIAL_CHARS = 16 * 1024;
/** The handshake's timeout over HTTP is at least PROBE_MIN_TIMEOUT_MS, whatever MCP_TASK_REQUEST_TIMEOUT says (a
 *  probe that times out there fails the connection); the version probe (`server/discover`) waits at most
 *  PROBE_MAX_TIMEOUT_MS. */
export const PROBE_MIN_TIMEOUT_MS = 5_000;
export const PROBE_MAX_TIMEOUT_MS = 10_000;
/** How many times one command signs in again for a wider scope (a 403 `insufficient_scope`, step-up): a server
 *  that asks for more after every sign-in does not make the command sign in forever. */
export const MAX_SCOPE_STEP_UPS = 1;
/** How many times one command signs a person in on a 401 that no refresh cures: the first sign-in, and one more
 *  when the server refuses that token at once (it moved to another authorization server, SEP-2352: signed in again
 *  from fresh discovery, where mcp-task registers anew). A server that refuses every token costs two sign-ins. */
export const MAX_SIGN_INS = 2;
/** How many times one request refused with 401 has its token renewed: a token another command renewed meanwhile is
 *  taken as it is, and with short-lived tokens it may have expired again on the way (many commands at once); each
 *  turn either refreshes (then a refusal stands) or takes a newer token. Bounded so that nothing loops. */
export const MAX_TOKEN_RENEWALS = 3;
/** A server's sign-in lock (one token renewal at a time across commands, brokers and the dashboard): one left by a
 *  process killed while holding it is taken over after this long. */
export const AUTH_LOCK_STALE_MS = 10_000;
/** A sampling request as shown to a person: at most this many messages (the last ones), each cut at this many
 *  characters; the system prompt too. (The reply a person writes is not bounded here: it goes to the server.) */
export const MAX_SAMPLING_MESSAGES_SHOWN = 20;
export const MAX_SAMPLING_TEXT_SHOWN = 4000;
/** `mcp-task check`: how many terminal pushes of one task are each compared with a tasks/get right after (a server
 *  that pushes on every read must not make the check read for ever). */
export const MAX_CHECK_PUSH_READS = 5;
/** `mcp-task check`: how many pages of V1 `tasks/list` are read looking for the task it created. */
export const MAX_CHECK_LIST_PAGES = 20;
/** `mcp-task check` without --tool: how many task tools are tried, in turn, until one answers with a task (a V2
 *  server decides per call, so a tool it lists may answer with a result). */
export const MAX_CHECK_TOOL_TRIES = 5;
/** How long a call refused with -32042 (URLElicitationRequiredError) waits, once its web pages were opened, for the
 *  server's `notifications/elicitation/complete` of each before it gives up (exit 6, the pages listed): a person
 *  signs in or pays in the browser. */
export const URL_ELICITATION_WAIT_MS = 5 * 60 * 1000;
/** How many times one call refused with -32042 is retried after its web pages were visited: a server that asks for
 *  new pages at every retry does not make mcp-task open pages forever. */
export const MAX_URL_ELICITATION_ROUNDS = 3;
/** A URL-mode elicitation's address, shown at most this long (the rest is cut, saying how much). */
export const MAX_URL_SHOWN = 500;
/** After SIGTERM, how long the command has to stop waiting and say so (its error line, the task kept) before the
 *  process exits 143 whatever it is doing: a CI runner that cancels a job kills it soon after. */
export const SIGTERM_EXIT_MS = 5000;
/** After Ctrl-C, SIGTERM or --timeout while a call that may become a task is still unanswered, how long its reply is
 *  waited for (to save the task's handle): a task's create reply is meant to come at once, and SIGTERM_EXIT_MS must
 *  leave time to save it and say so. */
export const CREATE_REPLY_WAIT_MS = 3000;
/** Log messages one command shows (a line each, or a `log` event): a server that floods them (tens of thousands
 *  before a reply) does not flood the terminal or a pipeline; past this, one note says the rest are left out. */
export const MAX_LOG_LINES = 1000;
