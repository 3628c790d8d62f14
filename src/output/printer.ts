// One printer writes either human text (status to stderr, result to stdout) or NDJSON events (stdout only), so
// commands never branch on the format. Event shapes are the contract of docs/cli.md#json-events.
import type { IO } from "../context.js";
import { cutText, type ErrorReport } from "../errors.js";
import type { Generation, InputRequest, Progress, QuestionHolder, Snapshot, TaskStatus } from "../protocol/wire.js";
import { heldElsewhereNote } from "../tasks/input.js";
import { MAX_HOLDER_COMMAND_CHARS } from "../limits.js";
import type { FinalOutcome } from "../model.js";
import type { LogMessage } from "../protocol/logging.js";
import { renderResult } from "./render.js";
import { ProgressPace, progressLine } from "./progress-bar.js";
import { safeJson, sanitizeLine } from "../sanitize.js";
import { paint } from "./style.js";

/** The task a command follows, as its printer announces it (the JSON `task` event). */
export interface TaskInfo {
  taskId: string;
  server: string;
  tool: string;
  generation: Generation;
  status: TaskStatus;
  ttlMs?: number | null;
  pollIntervalMs?: number;
}

export interface Printer {
  /** The task being followed; `resumed` when it was started by an earlier command. */
  task(info: TaskInfo, resumed?: boolean): void;
  status(snapshot: Snapshot, at: Date): void;
  input(taskId: string, request: InputRequest): void;
  /** Progress the server reports (`taskId` null: a plain call's), seen `at`. */
  progress(taskId: string | null, progress: Progress, at: Date): void;
  /** A log message the server sent (`notifications/message`), seen `at` while following `taskId` (null: none yet). */
  log(taskId: string | null, log: LogMessage, at: Date): void;
  result(outcome: FinalOutcome): void;
  error(report: ErrorReport): void;
  /** A side remark for a person (stderr; nothing in JSON mode). */
  note(text: string): void;
  /** A single JSON document (get, list, cancel, export) or its text form. */
  document(value: unknown, text: () => string): void;
}

export function createPrinter(io: IO, json: boolean): Printer {
  return json ? jsonPrinter(io) : textPrinter(io);
}

/** Server text in a line on stderr: without control characters, and cut at MAX_ERROR_TEXT (a 10 MB question is one line). */
const clip = (text: string) => cutText(sanitizeLine(text));

/** Said beside a question the server asked without saying which task asks it (InputRequest.unattributed). */
export const UNATTRIBUTED_NOTE =
  "(the server did not say which task asks this: it may be another running task's question)";

/** Who holds a question (InputRequest.heldBy) as the JSON `input` event says it: a pid, a command line made safe. */
const heldByOf = ({ pid, command }: QuestionHolder) => ({
  pid: Number.isSafeInteger(pid) ? pid : null,
  command: typeof command === "string" ? cutText(sanitizeLine(command), MAX_HOLDER_COMMAND_CHARS) : null,
});

/** A log message as one line of text: "warning [logger] the data" (data that is not a string as JSON); not yet safe. */
export function logText(log: LogMessage): string {
  const data = typeof log.data === "string" ? log.data : JSON.stringify(log.data);
  return `${log.level}${log.logger ? ` [${log.logger}]` : ""} ${data}`;
}

/** The columns a status line of progress keeps to (stderr's width is not known; a terminal has at least these). */
const STATUS_COLUMNS = 80;

const short = (taskId: string) => sanitizeLine(taskId.length > 12 ? `${taskId.slice(0, 8)}…` : taskId);

function textPrinter(io: IO): Printer {
  const p = paint(io.color);
  const err = (line: string) => io.stderr.write(`${line}\n`);
  const pace = new ProgressPace();
  return {
    task(info, resumed) {
      err(
        `${p.dim("mcp-task:")} ${resumed ? "following" : "started"} task ${sanitizeLine(info.taskId)} (${sanitizeLine(info.tool)} on ${sanitizeLine(info.server)}, ${info.generation.toUpperCase()})`,
      );
    },
    status(snapshot) {
      const message = snapshot.statusMessage ? ` ${p.dim("-")} ${sanitizeLine(snapshot.statusMessage)}` : "";
      err(`${p.dim("mcp-task:")} ${short(snapshot.taskId)} ${p.status(snapshot.status)}${message}`);
    },
    input(taskId, request) {
      const asked =
        request.method === "sampling/createMessage" ? "a model's reply (sampling/createMessage)" : request.method;
      const message = clip(typeof request.params.message === "string" ? request.params.message : asked);
      err(
        `${p.dim("mcp-task:")} ${short(taskId)} asks: ${message}${request.unattributed ? ` ${UNATTRIBUTED_NOTE}` : ""}`,
      );
      if (request.heldBy) err(`${p.dim("mcp-task:")} ${heldElsewhereNote(taskId, request.heldBy)}`);
    },
    progress(taskId, progress, at) {
      // "mcp-task: 1234abcd… progress 3/5 ▕████████████    ▏ 60 % · 1.2/s · ~2s left - server text", in 80 columns.
      const count = progress.total === undefined ? "" : `${progress.progress}/${progress.total} `;
      const head = `mcp-task: ${taskId ? `${short(taskId)} ` : ""}progress ${count}`;
      const rate = pace.see(taskId ?? "", progress, at.getTime());
      const line = progressLine(progress, { width: STATUS_COLUMNS - head.length, rate });
      err(`${p.dim("mcp-task:")}${head.slice("mcp-task:".length)}${line}`);
    },
    log(_taskId, log) {
      err(`${p.dim("mcp-task: log")} ${clip(logText(log))}`);
    },
    result(outcome) {
      if (outcome.result) {
        const text = renderResult(outcome.result);
        if (text) io.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
      }
      if (outcome.outputProblem) err(`${p.yellow("warning:")} ${clip(outcome.outputProblem)}`);
      if (outcome.status === "failed") {
        const why = outcome.error
          ? `${clip(outcome.error.message)} (code ${outcome.error.code})`
          : "the tool reported an error";
        err(`${p.inStatus("failed", "failed:")} ${why}`);
      } else if (outcome.result?.isError) {
        err(`${p.inStatus("failed", "failed:")} the tool reported an error`);
      } else if (outcome.status === "cancelled") {
        err(`${p.inStatus("cancelled", "cancelled:")} the task was cancelled`);
      }
    },
    error(report) {
      err(`${p.red("mcp-task: error:")} ${clip(report.message)}`);
      // Not cut: a hint names a command to run, with an id of up to MAX_TASK_ID_LENGTH characters in it.
      if (report.hint) err(`${p.dim("hint:")} ${sanitizeLine(report.hint)}`);
    },
    note(text) {
      err(`${p.dim("mcp-task:")} ${clip(text)}`);
    },
    document(_value, text) {
      const out = text();
      io.stdout.write(out.endsWith("\n") || out === "" ? out : `${out}\n`);
    },
  };
}

function jsonPrinter(io: IO): Printer {
  const line = (event: Record<string, unknown>) => io.stdout.write(`${safeJson(event)}\n`);
  // A task's last line is its result or error: progress and log messages that come after it (a broker relays them
  // on their own path) are not printed for it, nor those of no task once any task has ended.
  const ended = new Set<string | null>();
  const after = (taskId: string | null) => ended.has(taskId) || (taskId === null && ended.size > 0);
  return {
    task(info) {
      line({ type: "task", ...info });
    },
    status(snapshot, at) {
      line({
        type: "status",
        taskId: snapshot.taskId,
        status: snapshot.status,
        statusMessage: snapshot.statusMessage ?? null,
        at: at.toISOString(),
      });
    },
    input(taskId, request) {
      line({
        type: "input",
        taskId,
        key: request.key,
        request: { method: request.method, params: request.params },
        ...(request.unattributed && { unattributed: true }),
        ...(request.heldBy && { heldBy: heldByOf(request.heldBy) }),
      });
    },
    progress(taskId, progress, at) {
      if (after(taskId)) return;
      line({
        type: "progress",
        taskId,
        progress: progress.progress,
        total: progress.total ?? null,
        message: progress.message ?? null,
        at: at.toISOString(),
      });
    },
    log(taskId, log, at) {
      if (after(taskId)) return;
      line({ type: "log", taskId, level: log.level, logger: log.logger ?? null, data: log.data, at: at.toISOString() });
    },
    result(outcome) {
      ended.add(outcome.taskId);
      line({
        type: "result",
        taskId: outcome.taskId,
        status: outcome.status,
        result: outcome.result ?? null,
        error: outcome.error ?? null,
        ...(outcome.outputProblem ? { outputSchemaError: outcome.outputProblem } : {}),
      });
    },
    error(report) {
      ended.add(report.taskId);
      line({
        type: "error",
        taskId: report.taskId,
        exitCode: report.exitCode,
        code: report.code,
        message: report.message,
        ...(report.hint ? { hint: report.hint } : {}),
      });
    },
    note() {},
    document(value) {
      // One line, so that every --json output parses line by line.
      io.stdout.write(`${safeJson(value)}\n`);
    },
  };
}
