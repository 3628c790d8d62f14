// Command-line options of the V2 test server.

export interface ServerOptions {
  mode: "stdio" | "http";
  /** HTTP port; 0 picks a free one. */
  port: number;
  /** Default `pollIntervalMs` stamped on tasks. */
  pollIntervalMs: number;
  /** Default `ttlMs` stamped on tasks. */
  ttlMs: number;
  /** Directory that persists tasks as JSON files (one per task), or undefined for memory only. */
  storeDir?: string;
  /** Log one stderr line per request (default on). */
  logRequests: boolean;
  /**
   * Fault injection for tests: the process exits on the first `tasks/update`, `before` the server applies it
   * or `after` it applied (and stored) the answers but before the reply goes out.
   */
  crashOnUpdate?: "before" | "after";
  /** Fault injection for tests: the process exits (code 70, saying so on stderr) this long after the first
   *  tools/call came, on its own, with no request of the client's in flight. */
  crashAfterMs?: number;
  /** The same, once this file exists (looked for every 20 ms after the first tools/call): a test opens it when the
   *  client is where it wants it. */
  crashWhen?: string;
}

export const USAGE = `usage: v2-server (--stdio | --port <n>) [--poll-interval <ms>] [--ttl <ms>] [--store <dir>] [--quiet]
                 [--crash-on-update before|after] [--crash-after <ms> | --crash-when <file>]

  --stdio              serve MCP 2026-07-28 over stdin/stdout
  --port <n>           serve Streamable HTTP on http://127.0.0.1:<n>/mcp (0 = pick a free port);
                       prints exactly one line "listening http://127.0.0.1:PORT/mcp" on stdout when ready
  --poll-interval <ms> pollIntervalMs given to tasks (default 200)
  --ttl <ms>           ttlMs given to tasks (default 300000)
  --store <dir>        persist tasks as JSON files in <dir>; a restarted server knows (and resumes) them
  --quiet              no per-request stderr lines (the _stats tool still counts)
  --crash-on-update <before|after>
                       fault injection for tests: exit (code 70) on the first tasks/update, before applying it
                       or after applying and storing it but before replying
  --crash-after <ms>   fault injection for tests: exit (code 70) <ms> after the first tools/call
  --crash-when <file>  fault injection for tests: exit (code 70) once <file> exists, after the first tools/call
`;

function intArg(name: string, value: string | undefined, min: number): number {
  if (value === undefined || !/^\d+$/.test(value)) throw new Error(`${name} needs a non-negative integer`);
  const n = Number(value);
  if (n < min) throw new Error(`${name} must be >= ${min}`);
  return n;
}

export function parseOptions(argv: string[]): ServerOptions {
  const opts: ServerOptions = { mode: "stdio", port: 0, pollIntervalMs: 200, ttlMs: 300_000, logRequests: true };
  let modeSeen = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    switch (arg) {
      case "--stdio":
        opts.mode = "stdio";
        modeSeen = true;
        break;
      case "--port":
        opts.mode = "http";
        opts.port = intArg("--port", argv[++i], 0);
        modeSeen = true;
        break;
      case "--poll-interval":
        opts.pollIntervalMs = intArg("--poll-interval", argv[++i], 1);
        break;
      case "--ttl":
        opts.ttlMs = intArg("--ttl", argv[++i], 1);
        break;
      case "--store": {
        const dir = argv[++i];
        if (!dir) throw new Error("--store needs a directory");
        opts.storeDir = dir;
        break;
      }
      case "--quiet":
        opts.logRequests = false;
        break;
      case "--crash-on-update": {
        const when = argv[++i];
        if (when !== "before" && when !== "after") throw new Error("--crash-on-update needs before or after");
        opts.crashOnUpdate = when;
        break;
      }
      case "--crash-after":
        opts.crashAfterMs = intArg("--crash-after", argv[++i], 0);
        break;
      case "--crash-when": {
        const file = argv[++i];
        if (!file) throw new Error("--crash-when needs a file");
        opts.crashWhen = file;
        break;
      }
      case "-h":
      case "--help":
        process.stderr.write(USAGE);
        process.exit(0);
      // falls through (unreachable)
      default:
        throw new Error(`unknown argument: ${arg}`);
    }
  }
  if (!modeSeen) throw new Error("choose --stdio or --port <n>");
  return opts;
}
