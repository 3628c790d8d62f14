// What a connection is opened with (./connect.ts): the environment, the kept generation verdicts, the bounds, a
// saved task's session, a stdio server already starting, the trace, the sign-in's fetch.
import type { PriorDiscovery } from "@modelcontextprotocol/client";
import type { Authorize } from "./http.js";
import type { EarlyStdioTransport } from "./stdio.js";
import type { Trace } from "./trace.js";
import type { ResumeToken } from "./wire.js";

/** Where generation verdicts are remembered between processes. */
export interface VerdictCache {
  /** The verdict last found for a server, and whether it may be used without asking the server (`fresh`). */
  get(key: string): { verdict: PriorDiscovery; fresh: boolean } | undefined;
  set(key: string, verdict: PriorDiscovery): void;
  delete(key: string): void;
}

export interface ConnectOptions {
  env: Record<string, string | undefined>;
  verdicts?: VerdictCache;
  /** Handshake timeout (ms); default: the request timeout. */
  timeoutMs?: number;
  /** How long any request may go unanswered (MCP_TASK_REQUEST_TIMEOUT, parsed by the caller); 0: no limit. */
  requestTimeoutMs?: number;
  /** Display name of the server, for messages. */
  name?: string;
  /** Reach the server (and V1 session) a task was created on, from a saved handle. */
  resume?: ResumeToken;
  /** A stdio server already starting (see stdio.ts): used when the generation is known, else discarded. */
  prestarted?: EarlyStdioTransport;
  /** Where a stdio server's stderr goes besides the tail kept for errors (a broker: its log). */
  serverStderr?: (text: string) => void;
  /** Where the wire trace goes (`--trace`), if anywhere. */
  trace?: Trace;
  /**
   * A connection that lives long (a broker's, which tells its generation to every command it serves): a kept verdict
   * is checked at the start however fresh (one `server/discover`), not taken over later under a command's feet.
   */
  checkVerdict?: boolean;
  /** HTTP: reach the server over legacy HTTP+SSE (set when it refused Streamable HTTP at first contact). */
  legacySse?: boolean;
  /** HTTP: the fetch under the guard that presents the saved sign-in's token (src/auth/fetch.ts). */
  authorize?: Authorize;
  /**
   * Declare `sampling`: a sampling request can be answered on this connection (a person, a reply given ahead, or a
   * process that keeps the question for a later command). Without it a server knows to do without.
   */
  sampling?: boolean;
}
