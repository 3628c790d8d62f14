import type { LogLevel, LogMessage } from "./logging.js";
import type { TraceEvent } from "./trace.js";
import type { ServerDescriptor } from "./server.js";
// The generation-neutral face of a connected MCP server. Everything above src/protocol sees only this;
// the two adapters (v1.ts for 2025-11-25 core tasks, v2.ts for the 2026-07-28 tasks extension) implement it.

export type Generation = "v1" | "v2";

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

/** A question the server asks: an elicitation form, or a sampling request mcp-task cannot serve. */
export interface InputRequest {
  /** Unique for the task's life (V2 input key; V1 the elicitation request's id). */
  key: string;
  method: string;
  params: Record<string, unknown>;
  /**
   * false: the protocol has no way to decline it (a 2026-07-28 sampling or roots request: only a reply lets the
   * task go on), so no hint or prompt offers to. Absent (a handle saved before it was known): it can be.
   */
  declinable?: boolean;
  /**
   * true: the server did not say which task asks it (no related-task metadata) and more than one task of its
   * connection could have; a broker shows it on each of those tasks (src/broker/questions.ts), and whoever answers
   * it is told so.
   */
  unattributed?: boolean;
}

export type InputResponse =
  { action: "accept"; content: Record<string, unknown> } | { action: "decline" } | { action: "cancel" };

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
   * came: see Wire.keepsAbandonedCalls.
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

/**
 * Answers one input request. Throws to refuse (the error propagates to the caller of the wire method that
 * asked). `taskId` is null for input asked before any task exists.
 */
export type InputHandler = (
  request: InputRequest,
  taskId: string | null,
  signal?: AbortSignal,
) => Promise<InputResponse>;

/**
 * Answers whose arrival is in doubt: the connection failed while they were on their way, so the server may or may
 * not have taken them. The engine settles it with the next read of the task.
 */
export interface UncertainDelivery {
  taskId: string;
  answers: Array<{ request: InputRequest; response: InputResponse }>;
  /**
   * True when the keys are the server's own and last the task's life (V2 input keys): an answer it took is recorded
   * as answered, and one it did not take can be sent again under the same key. False when each question is a new
   * request of its own (V1): the server asks again if it did not take the answer.
   */
  stableKeys: boolean;
  /** The transport failure. */
  error: Error;
}

export interface ServiceInputOptions {
  /** Keys already answered (in this or an earlier process): never answered twice. */
  answered: ReadonlySet<string>;
  signal?: AbortSignal;
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

/** How a server answered a probe: refused (with which JSON-RPC error, and whether it is the one the spec names). */
export interface ProbeAnswer {
  refused: boolean;
  code?: number;
  expected?: boolean;
  /** Server text: not display-safe. */
  message?: string;
}

/** Requests a client must not send, to see the server refuse them (`mcp-task check`); V2 only (probes.ts). */
export interface WireProbes {
  /** A tasks/get of `taskId` without the tasks extension declared: -32021 expected. */
  undeclared(taskId: string, signal?: AbortSignal): Promise<ProbeAnswer>;
  /** Over HTTP, a tasks/get of `taskId` whose Mcp-Name header names another task: -32020 expected. */
  misrouted?: (taskId: string, signal?: AbortSignal) => Promise<ProbeAnswer>;
}

export interface Wire {
  readonly generation: Generation;
  readonly protocolVersion: string;
  readonly serverName: string;
  /** True when the server can list its tasks (V1 `tasks/list`). */
  readonly canListTasks: boolean;
  /**
   * True when the server hands each question over once, as a request on a stream of this connection (V1): a
   * question nobody answers now must be held by a process that stays connected (the broker), or it is lost.
   */
  readonly handsQuestionsOnce?: boolean;
  /**
   * True when a call abandoned before its reply (its signal aborted) is still heard out by a process that stays (a
   * broker): a task the reply creates gets its handle saved there (under CallOptions.owner), and its outcome later.
   */
  readonly keepsAbandonedCalls?: boolean;
  /**
   * Where set, why no task started on this connection can outlive the command (a legacy HTTP+SSE session is the
   * command's own event stream): `--detach` is refused before the call is sent.
   */
  readonly confinedTasks?: string;
  /** Called for every input request the server makes (set it before calling tools). */
  inputHandler?: InputHandler;
  /**
   * Told when the server withdraws a question before it was answered (it stopped waiting: its own timeout); the
   * input handler's signal for it aborts too.
   */
  onQuestionWithdrawn?: (taskId: string | null, request: InputRequest) => void;
  /** Told of the server's `notifications/elicitation/complete`: a URL-mode elicitation's page is done. */
  onElicitationComplete?: (elicitationId: string) => void;
  /**
   * False where that notification cannot reach this wire (2026-07-28: no session, no stream to send it on after a
   * refused call): a call refused with -32042 is made again once its pages were opened. Undefined: it can (V1).
   */
  readonly hearsElicitationComplete?: boolean;
  /** Told of each logging notification (`notifications/message`) the server sends on this connection. */
  onLog?: (log: LogMessage) => void;
  /**
   * Asks the server to send log messages at `level` and above (`logging/setLevel`), where it declares the `logging`
   * capability; false where it does not (nothing sent).
   */
  setLogLevel?(level: LogLevel): Promise<boolean>;
  /** A wire whose connection is another process's (a broker's): that connection's trace from now on, to `listener`. */
  watchWire?(listener: (event: TraceEvent) => void): Promise<void>;
  /** Told of answers whose delivery is in doubt (the connection failed on the way). Without it, V2 throws the failure. */
  onUncertainDelivery?: (delivery: UncertainDelivery) => void;
  /**
   * Told when a task is first reached through a new session that the wire opened because the server no longer knew
   * the old one (it restarted, and keeps its tasks but not its sessions): from now on `token` reaches the task, so
   * the owner saves it with the handle. Awaited before the read that found the task returns. Never called by a wire
   * without sessions.
   */
  onTaskMoved?: (taskId: string, token: ResumeToken) => Promise<void> | void;
  /** Resolves (never rejects) with the reason once the connection is gone (a stdio server exited, ...). */
  readonly closed: Promise<Error>;
  /** The process id of a local stdio server, where there is one. */
  serverPid?: number;

  /** How to reach this server (session) again from another process. */
  resumeToken(): ResumeToken;
  listTools(): Promise<ToolInfo[]>;
  /** Why a tool the server listed was left out of `listTools` and will not be called (V2 over HTTP: SEP-2243). */
  toolExclusion?(name: string): string | undefined;
  callTool(name: string, args: Record<string, unknown>, options: CallOptions): Promise<CallOutcome>;
  getTask(taskId: string, signal?: AbortSignal): Promise<Snapshot>;
  /**
   * Makes the server's outstanding questions reach `inputHandler` and delivers the answers. Returns the keys
   * whose answers were delivered (V1 answers each request as it arrives and returns none).
   */
  serviceInput(snapshot: Snapshot, options: ServiceInputOptions): Promise<string[]>;
  /** Asks the server to cancel. Returns the task as the server reports it, when it does. */
  cancelTask(taskId: string): Promise<Snapshot | undefined>;
  listTasks(cursor?: string): Promise<TaskPage>;
  /** True once the server has confirmed it will push this task's changes (V2 subscriptions acknowledge). */
  pushConfirmed?(taskId: string): boolean;
  /** Requests a client must not send, for `mcp-task check` (V2). */
  readonly probes?: WireProbes;
  /**
   * What is wrong with `value` against `schema` (undefined: it fits), checked where the connection is kept: a
   * broker has its checker loaded and its schemas compiled, which a command would load anew for one call.
   * Absent where the checking is this process's own (tasks/schema.ts schemaProblem).
   */
  schemaProblem?(schema: Record<string, unknown>, value: unknown, what: string): Promise<string | undefined>;
  /**
   * The task's final state, once it has ended, where the server can be asked to answer only then (V1's
   * `tasks/result`, then one `tasks/get`): a broker, which keeps one connection per server, waits on it beside its
   * unhurried polls, and passes the end on as a push. Absent where the server pushes changes instead (V2).
   */
  awaitEnd?(taskId: string, signal?: AbortSignal): Promise<Snapshot>;
  /**
   * For `mcp-task check` (V1): opens `tasks/result` on a task that has not ended, as mcp-task does to take a task's
   * questions (the questions that come on it are left unanswered), to see whether the server waits for the end.
   */
  probeResult?(taskId: string): void;
  /**
   * V1: what the server answered to a `tasks/result` for a task that had not ended, once seen (the spec has it wait
   * for the end); undefined while not seen.
   */
  resultAnsweredEarly?(): string | undefined;
  /** Push updates: calls `listener` with each task state the server sends. Returns an unsubscribe function. */
  watchNotifications(taskIds: string[], listener: (snapshot: Snapshot) => void): Promise<() => void>;
  close(): Promise<void>;
}

/** What tells apart the connections a server's saved tasks need (a V1 session each; one for all on V2): "" if one. */
export function connectionScope(token: ResumeToken): string {
  return token.sessionId ?? "";
}

/**
 * Where the questions of the tasks a resume token reaches must be held while no command is there: the name of the
 * session they belong to (V1: the server hands each question over once, on a stream of that session), or undefined
 * (V2: the server lists a question until it is answered). See Wire.handsQuestionsOnce.
 */
export function questionKeeperOf(token: ResumeToken): string | undefined {
  if (token.sessionBound) return undefined; // no session left to keep: connect says so
  return token.generation === "v1" ? (token.sessionId ?? "") : undefined;
}
