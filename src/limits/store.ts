// ---- store: what mcp-task reads back from disk ----
// Handles, the index, settings.json, other clients' MCP files.
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
