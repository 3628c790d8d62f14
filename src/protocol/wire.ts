import type { LogLevel, LogMessage } from "./logging.js";
import type { Generation, SpecRevision } from "./revisions.js";
import type { BrokerFacet, WireProbes } from "./wire-facets.js";
import type { ServerDescriptor } from "./server.js";
import type { InputHandler, InputRequest, ServiceInputOptions, UncertainDelivery } from "./wire-questions.js";
// The generation-neutral face of a connected MCP server. Everything above src/protocol sees only this;
// the two adapters (v1.ts for 2025-11-25 core tasks, v2.ts for the 2026-07-28 tasks extension) implement it.

export type { Generation } from "./revisions.js";
export type { BrokerFacet, ProbeAnswer, WireProbes } from "./wire-facets.js";
export { openRequests } from "./wire-questions.js";
export type {
  InputHandler,
  InputRequest,
  InputResponse,
  QuestionHolder,
  ServiceInputOptions,
  UncertainDelivery,
} from "./wire-questions.js";

export const TASK_STATUSES = ["working", "input_required", "completed", "failed", "cancelled"] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];
export const TERMINAL_STATUSES: readonly TaskStatus[] = ["completed", "failed", "cancelled"];
export const isTerminal = (status: TaskStatus): boolean => TERMINAL_STATUSES.includes(status);

/** How a tool may run as a task. `server` means the server decides per call (V2). */
export type TaskSupport = "forbidden" | "optional" | "required" | "server";

export interface ToolInfo {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  taskSupport: TaskSupport;
}

export interface ContentBlock {
  type: string;
  text?: string;
  [key: string]: unknown;
}

export interface CallToolResult {
  content: ContentBlock[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  [key: string]: unknown;
}

export interface TaskError {
  code: number;
  message: string;
  data?: unknown;
}

/** One observed state of a task. */
export interface Snapshot {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  createdAt?: string;
  lastUpdatedAt?: string;
  /** Milliseconds, or null for unlimited; undefined when the server did not say. */
  ttlMs?: number | null;
  pollIntervalMs?: number;
  /** Outstanding input requests, where the wire knows them from the status read (V2). */
  inputRequests: InputRequest[];
  /** True when `inputRequests` is the server's full list of open questions (else they arrive another way). */
  inputListed?: boolean;
  /** The tool result, once completed (and on V1, once failed with a tool error). */
  result?: CallToolResult;
  /** The JSON-RPC error a failed task carries. */
  error?: TaskError;
}

export type CallOutcome = { kind: "result"; result: CallToolResult } | { kind: "task"; snapshot: Snapshot };

export interface CallOptions {
  /** `auto`: run as a task where the server allows; `never`: a plain call (--no-task). */
  task: "auto" | "never";
  ttlMs?: number;
  signal?: AbortSignal;
  /** Progress the server reports (`notifications/progress`), for the call and, where the token lasts, its task. */
  onProgress?: (progress: Progress) => void;
  /**
   * The server as the task's handle names it (its name as given, and its descriptor). A broker that makes the call
   * saves the task's handle under it when the command that asked is gone (or abandoned the call) before the reply
   * came: see WireCapabilities.keepsAbandonedCalls.
   */
  owner?: { name: string; descriptor: ServerDescriptor };
}

/** A `notifications/progress`: how far, out of how much where the server knows, and what it is doing. */
export interface Progress {
  progress: number;
  total?: number;
  /** Server text: not display-safe. */
  message?: string;
}

export interface TaskPage {
  tasks: Snapshot[];
  nextCursor?: string;
}

/**
 * What a later process needs to reach the same server (and, on V1 over HTTP, the same session) again. The store
 * keeps it as JSON and hands it back to `connect`; above src/protocol only `generation` and `protocolVersion` are
 * read (for display), the rest (session, discovery, capabilities) is src/protocol's alone.
 */
export interface ResumeToken {
  generation: Generation;
  protocolVersion: string;
  serverName: string;
  /** V2: the server/discover result, so that reconnecting costs no round trip. */
  discover?: unknown;
  /** V1 over HTTP: tasks are bound to the session. */
  sessionId?: string;
  /** V1: the server's capabilities from initialize (not repeated on a resumed session). */
  capabilities?: Record<string, unknown>;
  /** Legacy HTTP+SSE: the session was the creating command's event stream; nothing reaches its tasks after it. */
  sessionBound?: boolean;
}

/** Ends a subscription (or lets go of the input handler); calling it again does nothing. */
export type Unsubscribe = () => void;

/** The events of a wire, by name: what each subscriber is called with. */
export interface WireEventMap {
  /**
   * The server withdrew a question before it was answered (it stopped waiting: its own timeout); the input
   * handler's signal for it aborts too.
   */
  questionWithdrawn: (taskId: string | null, request: InputRequest) => void;
  /** The server's `notifications/elicitation/complete`: a URL-mode elicitation's page is done. */
  elicitationComplete: (elicitationId: string) => void;
  /** A logging notification (`notifications/message`) the server sent on this connection. */
  log: (log: LogMessage) => void;
  /** Answers whose delivery is in doubt (the connection failed on the way). Without a subscriber, V2 throws it. */
  uncertainDelivery: (delivery: UncertainDelivery) => void;
  /**
   * A task first reached through a new session that the wire opened because the server no longer knew the old one
   * (it restarted, and keeps its tasks but not its sessions): from now on `token` reaches it, so its owner saves it
   * with the handle. Awaited before the read that found the task returns. Never told by a wire without sessions.
   */
  taskMoved: (taskId: string, token: ResumeToken) => Promise<void> | void;
}

export type WireEvent = keyof WireEventMap;

/** What a connection is and can do, fixed by the protocol (read-only: the wire alone knows). */
export interface WireCapabilities {
  readonly generation: Generation;
  /** The spec revision its tasks follow: what `check`'s rules are keyed by (revisions.ts). */
  readonly revision: SpecRevision;
  readonly protocolVersion: string;
  readonly serverName: string;
  /** True when the server can list its tasks (V1 `tasks/list`). */
  readonly canListTasks: boolean;
  /**
   * True when the server hands each question over once, as a request on a stream of this connection (V1): a
   * question nobody answers now must be held by a process that stays connected (the broker), or it is lost.
   */
  readonly handsQuestionsOnce: boolean;
  /**
   * True when a call abandoned before its reply (its signal aborted) is still heard out by a process that stays (a
   * broker): a task the reply creates gets its handle saved there (under CallOptions.owner), and its outcome later.
   */
  readonly keepsAbandonedCalls: boolean;
  /**
   * False where `notifications/elicitation/complete` cannot reach this wire (2026-07-28: no session, no stream to send
   * it on after a refused call): a call refused with -32042 is made again once its pages were opened.
   */
  readonly hearsElicitationComplete: boolean;
  /**
   * Where set, why no task started on this connection can outlive the command (a legacy HTTP+SSE session is the
   * command's own event stream): `--detach` is refused before the call is sent.
   */
  readonly confinedTasks?: string;
}

/** A connected server: the calls every wire has, what it is (`capabilities`), its events, and optional facets. */
export interface Wire {
  readonly capabilities: WireCapabilities;
  /** Resolves (never rejects) with the reason once the connection is gone (a stdio server exited, ...). */
  readonly closed: Promise<Error>;
  /** The process id of a local stdio server, where there is one. */
  serverPid?: number;
  /** Subscribes to one of the wire's events (wire-events.ts); returns the unsubscribe. */
  on<K extends WireEvent>(event: K, listener: WireEventMap[K]): Unsubscribe;
  /**
   * Sets who answers every input request the server makes (before calling tools); returns the function that lets go
   * of it. Throws while another handler is set: one at a time.
   */
  handleInput(handler: InputHandler): Unsubscribe;

  /** How to reach this server (session) again from another process. */
  resumeToken(): ResumeToken;
  listTools(): Promise<ToolInfo[]>;
  callTool(name: string, args: Record<string, unknown>, options: CallOptions): Promise<CallOutcome>;
  getTask(taskId: string, signal?: AbortSignal): Promise<Snapshot>;
  /**
   * Makes the server's outstanding questions reach the input handler and delivers the answers. Returns the keys
   * whose answers were delivered (V1 answers each request as it arrives and returns none).
   */
  serviceInput(snapshot: Snapshot, options: ServiceInputOptions): Promise<string[]>;
  /** Asks the server to cancel. Returns the task as the server reports it, when it does. */
  cancelTask(taskId: string): Promise<Snapshot | undefined>;
  listTasks(cursor?: string): Promise<TaskPage>;
  /** Push updates: calls `listener` with each task state the server sends. Returns an unsubscribe function. */
  watchNotifications(taskIds: string[], listener: (snapshot: Snapshot) => void): Promise<() => void>;
  close(): Promise<void>;

  /** Why a tool the server listed was left out of `listTools` and will not be called (V2 over HTTP: SEP-2243). */
  toolExclusion?(name: string): string | undefined;
  /** True once the server has confirmed it will push this task's changes (V2 subscriptions acknowledge). */
  pushConfirmed?(taskId: string): boolean;
  /**
   * Asks the server to send log messages at `level` and above (`logging/setLevel`), where it declares the `logging`
   * capability; false where it does not (nothing sent).
   */
  setLogLevel?(level: LogLevel): Promise<boolean>;
  /**
   * The task's final state, once it has ended, where the server can be asked to answer only then (V1's
   * `tasks/result`, then one `tasks/get`): a broker, which keeps one connection per server, waits on it beside its
   * unhurried polls, and passes the end on as a push. Absent where the server pushes changes instead (V2).
   */
  awaitEnd?(taskId: string, signal?: AbortSignal): Promise<Snapshot>;
  /** For `mcp-task check`: requests a client must not send. */
  readonly probes?: WireProbes;
  /** A wire behind a broker: the broker's trace, and schema checks made there. */
  readonly broker?: BrokerFacet;
}

/** What tells apart the connections a server's saved tasks need (a V1 session each; one for all on V2): "" if one. */
export function connectionScope(token: ResumeToken): string {
  return token.sessionId ?? "";
}

/**
 * Where the questions of the tasks a resume token reaches must be held while no command is there: the name of the
 * session they belong to (V1: the server hands each question over once, on a stream of that session), or undefined
 * (V2: the server lists a question until it is answered). See WireCapabilities.handsQuestionsOnce.
 */
export function questionKeeperOf(token: ResumeToken): string | undefined {
  if (token.sessionBound) return undefined; // no session left to keep: connect says so
  return token.generation === "v1" ? (token.sessionId ?? "") : undefined;
}
