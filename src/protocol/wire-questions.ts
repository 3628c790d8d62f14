// What a server asks of a person through a wire, and how the answers go: the questions (elicitation forms and URL
// pages, sampling), the rule of a task's open questions, the answer handler V1 asks through, and answers whose
// arrival is in doubt. Part of the generation-neutral face of ./wire.ts (which exports all of it).

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
  /**
   * Set by a broker on what it sends one command: the question is handed to another command attached to it (a second
   * `watch`, or the dashboard while a `watch` asks at a terminal), which this one must neither ask a person nor answer.
   * Its fields are what that command said of itself as it attached (absent: unknown, an older build); shown sanitised.
   */
  heldBy?: QuestionHolder;
}

/** The process a question is handed to (InputRequest.heldBy): its pid and a short command line, where it said them. */
export interface QuestionHolder {
  pid?: number;
  command?: string;
}

/**
 * The open questions of a task: those of `requests` not answered yet (asked minus answered, by key). The one rule
 * every reader of "what does this task still ask" follows (engine, watch, respond, the dashboard, the V2 wire).
 */
export function openRequests(
  requests: readonly InputRequest[],
  answered: ReadonlySet<string> | readonly string[],
): InputRequest[] {
  if (requests.length === 0) return [];
  const done = Array.isArray(answered) ? new Set(answered) : (answered as ReadonlySet<string>);
  return requests.filter((request) => !done.has(request.key));
}

export type InputResponse =
  { action: "accept"; content: Record<string, unknown> } | { action: "decline" } | { action: "cancel" };

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
