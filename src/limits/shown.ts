// ---- shown: what a person is shown ----
// Error and trace lines, `list` (its page, remote list and refresh), the dashboard's kept logs and wire view, a
// sampling request, a URL, log lines.
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
/** Log messages the dashboard keeps per server for its detail view (the newest). */
export const MAX_DASHBOARD_LOGS = 20;
/** Messages the dashboard keeps per task for its wire view (the newest): about a screenful (following 1,000 tasks
 *  that each change every second, 50 a task were 46,000 lines, 19 MB). */
export const MAX_WIRE_VIEW_MESSAGES = 30;
/** Characters of a message's summary in the dashboard's wire view (one line). */
export const MAX_WIRE_VIEW_SUMMARY = 200;
/** A sampling request as shown to a person: at most this many messages (the last ones), each cut at this many
 *  characters; the system prompt too. (The reply a person writes is not bounded here: it goes to the server.) */
export const MAX_SAMPLING_MESSAGES_SHOWN = 20;
export const MAX_SAMPLING_TEXT_SHOWN = 4000;
/** A URL-mode elicitation's address, shown at most this long (the rest is cut, saying how much). */
export const MAX_URL_SHOWN = 500;
/** Log messages one command shows (a line each, or a `log` event): a server that floods them (tens of thousands
 *  before a reply) does not flood the terminal or a pipeline; past this, one note says the rest are left out. */
export const MAX_LOG_LINES = 1000;
