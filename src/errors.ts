// The typed errors of mcp-task. Each class carries its exit code (see docs/cli.md#exit-codes), a stable code string
// and an optional hint (the next command to run). `describeError` is the one place that turns any thrown value
// into what the user sees; nothing classifies an error by matching its message text.

import { dirname } from "node:path";
import { MAX_ERROR_TEXT } from "./limits.js";

export const ExitCode = {
  ok: 0,
  failed: 1,
  usage: 2,
  cancelled: 3,
  server: 4,
  notFound: 5,
  inputRequired: 6,
  stillRunning: 7,
  authRequired: 8,
  storeUnwritable: 9,
  interrupted: 130,
  terminated: 143,
} as const;
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

export class McpTaskError extends Error {
  readonly exitCode: ExitCodeValue = ExitCode.failed;
  readonly code: string = "failed";
  constructor(
    message: string,
    /** The next command to run (a command may add one once it knows the task, see `withResumeHint`). */
    public hint?: string,
    /** The task the error concerns; set by the command when it happens after the task was created. */
    public taskId: string | null = null,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** Bad arguments, unknown server names, unreadable files: exit 2. */
export class UsageError extends McpTaskError {
  override readonly exitCode = ExitCode.usage;
  override readonly code = "usage";
}

/**
 * The server does not offer an optional request (V1 `tasks/cancel`): a usage error (exit 2, code "usage") as any
 * request the user should not make; its own class lets `check` tell "not offered" from a refusal.
 */
export class NotOfferedError extends UsageError {}

/** The server cannot be reached, exited, or answered something that is not valid MCP: exit 4. */
export class ServerError extends McpTaskError {
  override readonly exitCode = ExitCode.server;
  override readonly code: string = "server";
  /** True when waiting and trying again may help (connection refused, reset, timeout). */
  transient = false;
}

/** The server's reply does not match the protocol: exit 4. */
export class ProtocolViolation extends ServerError {
  override readonly code = "protocol";
}

/**
 * The connection dropped while an answer was on its way and the server could not be reached again to see whether
 * it took it: the answer is not counted as delivered (exit 4, the server is unreachable).
 */
export class AnswerNotDeliveredError extends ServerError {
  override readonly code = "answer_not_delivered";
}

/**
 * The server no longer knows the HTTP session a request was sent in (a 404 to a request carrying Mcp-Session-Id, as
 * the Streamable HTTP transport specifies, or a 400 saying the session is not valid): it restarted, or dropped the
 * session. src/protocol then opens a new session and asks again there; this reaches the user only when it cannot
 * (exit 4).
 */
export class SessionLostError extends ServerError {
  override readonly code = "session_lost";
}

/**
 * A stdio server exited (or closed its output) while requests waited on it: the tasks it ran went with it, and its
 * broker says so on their handles (exit 4).
 */
export class ServerExitedError extends ServerError {}

/** A stdio server's saved tasks were to be reached through its broker, and none runs (nothing is started then). */
export class NoBrokerError extends ServerError {}

/**
 * A task held by a process this home cannot reach: a stdio task imported from another home runs in that home's
 * broker (a stdio task lives in the process that runs its server). Nothing is marked on its handle (exit 4).
 */
export class HeldElsewhereError extends ServerError {
  override readonly code = "held_elsewhere";
}

/**
 * A task waits for the answer to a V1 question that cannot come here: the keeper that held it stopped (the server
 * hands a question over once), or it was handed to the keeper of the home the task was imported from (exit 4).
 */
export class QuestionLostError extends ServerError {
  override readonly code = "question_lost";
}

/**
 * A server's `tasks/list` (`list --remote`) read only in part: it went on past MAX_REMOTE_LIST_ROWS tasks or
 * MAX_REMOTE_LIST_PAGES pages, or gave a cursor it had given before (a loop). What was read is printed first; the
 * exit code (4) keeps a script from taking the list for the whole of it.
 */
export class ListCutError extends ServerError {
  override readonly code = "list_cut";
}

/** A JSON-RPC error returned by the server for a request (other than the classified cases). */
export class RpcError extends ServerError {
  override readonly code = "rpc";
  constructor(
    message: string,
    readonly rpcCode: number,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** The server requires authorization (HTTP 401) or refused what was given (403): exit 8. */
export class AuthRequiredError extends McpTaskError {
  override readonly exitCode = ExitCode.authRequired;
  override readonly code: string = "auth_required";
  /** A 403 `insufficient_scope`: the scope the server asked for (step-up), where it named one. */
  scope?: string;
}

/**
 * A page mcp-task was to open in a browser, or an endpoint it was to send a token or secret to, that is neither
 * https nor plain http on this machine (src/secure-url.ts): refused before anything is registered, sent or opened
 * (exit 8: the sign-in, or the page, cannot go ahead).
 */
export class UnsafeUrlError extends AuthRequiredError {
  override readonly code = "unsafe_url";
}

/** The task is unknown or expired on the server, or no saved handle matches: exit 5. */
export class TaskNotFoundError extends McpTaskError {
  override readonly exitCode = ExitCode.notFound;
  override readonly code = "not_found";
}

/** Input is required and no answer is available, or the answer does not fit the requested schema: exit 6. */
export class InputRequiredError extends McpTaskError {
  override readonly exitCode = ExitCode.inputRequired;
  override readonly code = "input_required";
}

/** Stopped waiting (--timeout) while the task still runs: exit 7. */
export class StillRunningError extends McpTaskError {
  override readonly exitCode = ExitCode.stillRunning;
  override readonly code = "still_running";
}

/**
 * Why the store's folder cannot be written, from the errno of the write that failed (never from its message text):
 * the words the user sees, and a hint that can work.
 */
export type StoreFault = "ENOSPC" | "inodes" | "EDQUOT" | "EROFS" | "EACCES" | "EPERM" | "EIO";

const ELSEWHERE = "or set MCP_TASK_HOME to a folder on another disk";
const FAULTS: Record<StoreFault, { cause: string; hint: string }> = {
  ENOSPC: { cause: "no space left on the device", hint: `free some space on that disk, ${ELSEWHERE}` },
  inodes: {
    cause: "no free inodes left on the device (no file can be created there)",
    hint: `remove some files on that disk, ${ELSEWHERE}`,
  },
  EDQUOT: { cause: "your disk quota is used up", hint: `free some of your space on that disk, ${ELSEWHERE}` },
  EROFS: { cause: "the file system is read-only", hint: `remount it read-write, ${ELSEWHERE}` },
  EACCES: {
    cause: "permission denied",
    hint: "give yourself write access to it, or set MCP_TASK_HOME to a folder of your own",
  },
  EPERM: {
    cause: "the operation is not permitted (an immutable or append-only file or folder?)",
    hint: "give yourself write access to it, or set MCP_TASK_HOME to a folder of your own",
  },
  EIO: { cause: "an input/output error (the disk may be failing)", hint: `check the disk, ${ELSEWHERE}` },
};

/**
 * The store (<home>: handles, index, settings, sign-ins, brokers' files) cannot be written: a full disk, no inodes,
 * a quota, a read-only file system, no permission, a failing disk: exit 9. What could be done without writing was
 * done; `lead` says what was not kept (a task created but its handle not saved: the error names the task).
 */
export class StoreUnwritableError extends McpTaskError {
  override readonly exitCode = ExitCode.storeUnwritable;
  override readonly code = "store_unwritable";
  /** The folder that could not be written and why (unknown once the error has crossed a broker's socket). */
  folder?: string;
  fault?: StoreFault;

  /** "cannot write in <folder>: <cause>", after `lead` (what was not kept), with the fault's hint unless given. */
  static of(
    folder: string,
    fault: StoreFault,
    lead?: string,
    hint?: string,
    taskId: string | null = null,
  ): StoreUnwritableError {
    const text = `${lead ? `${lead}: ` : ""}cannot write in ${folder}: ${FAULTS[fault].cause}`;
    return Object.assign(new StoreUnwritableError(text, hint ?? FAULTS[fault].hint, taskId), { folder, fault });
  }

  /** The same fault, saying what was not kept (and about which task). */
  about(lead: string, taskId: string | null = this.taskId, hint?: string): StoreUnwritableError {
    if (this.folder !== undefined && this.fault !== undefined)
      return StoreUnwritableError.of(this.folder, this.fault, lead, hint, taskId);
    return new StoreUnwritableError(`${lead}: ${this.message}`, hint ?? this.hint, taskId);
  }

  /** The hint for the fault alone (to build on). */
  get remedy(): string {
    return this.fault ? FAULTS[this.fault].hint : (this.hint ?? "free some space, or set MCP_TASK_HOME elsewhere");
  }
}

/** Interrupted by the user (Ctrl-C); the task keeps running: exit 130. */
export class InterruptedError extends McpTaskError {
  override readonly exitCode: ExitCodeValue = ExitCode.interrupted;
  override readonly code: string = "interrupted";
}

/** Asked to stop with SIGTERM (a CI runner cancelling a job): as Ctrl-C, the task keeps running, but exit 143. */
export class TerminatedError extends InterruptedError {
  override readonly exitCode: ExitCodeValue = ExitCode.terminated;
  override readonly code: string = "terminated";
}

export interface ErrorReport {
  exitCode: ExitCodeValue;
  code: string;
  message: string;
  hint?: string;
  taskId: string | null;
}

/** Turns anything thrown into the one-line report the user sees. Unknown errors are internal failures (exit 1). */
export function describeError(error: unknown): ErrorReport {
  if (error instanceof McpTaskError) {
    return {
      exitCode: error.exitCode,
      code: error.code,
      message: cutText(error.message),
      hint: error.hint,
      taskId: error.taskId,
    };
  }
  // A write that failed for want of room or a writable file system, where no writer of the store told it (they do:
  // src/store/unwritable.ts): named all the same, from its errno and path. Only the codes no read can give.
  const { code, path } = (error ?? {}) as NodeJS.ErrnoException;
  if ((code === "ENOSPC" || code === "EDQUOT" || code === "EROFS") && typeof path === "string")
    return describeError(StoreUnwritableError.of(dirname(path), code));
  const message = error instanceof Error ? error.message : String(error);
  return { exitCode: ExitCode.failed, code: "internal", message: cutText(`internal error: ${message}`), taskId: null };
}

/** Server text in an error or a question, cut at MAX_ERROR_TEXT characters (saying how much was left out). */
export function cutText(text: string, limit = MAX_ERROR_TEXT): string {
  if (text.length <= limit) return text;
  return `${text.slice(0, limit)}… (${text.length - limit} more characters)`;
}
