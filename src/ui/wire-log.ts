// What the dashboard's detail view shows of the wire: the last messages about each task (its tasks/* requests and
// their replies, its status notifications, the questions tagged with it) and the last log messages of each server,
// each as one line made safe. A sink of the wire trace (src/protocol/trace.ts) of the dashboard's own connections,
// so it sees what a trace file would, with nothing more to plumb (a broker, which holds a V1 task's connection,
// sends its own trace over: Wire.broker.watchWire); the log messages come from every connection's wire (a broker relays
// them), through `log`. Bounded: MAX_WIRE_VIEW_MESSAGES per task, MAX_DASHBOARD_LOGS per
// server, and as many tasks and pending request ids as WIRE_VIEW_TASKS.
import { MAX_DASHBOARD_LOGS, MAX_WIRE_VIEW_MESSAGES, MAX_WIRE_VIEW_SUMMARY } from "../limits.js";
import type { LogMessage } from "../protocol/logging.js";
import { TASK_NOTIFICATIONS } from "../protocol/push-stream.js";
import type { TraceEvent, WireTap } from "../protocol/trace.js";
import { logText } from "../output/printer.js";
import { safeJson, sanitizeLine } from "../sanitize.js";

/** Tasks (and request ids awaiting their reply) kept at most: the oldest go first. */
const WIRE_VIEW_TASKS = 2000;
const RELATED = "io.modelcontextprotocol/related-task";

type Message = {
  id?: unknown;
  method?: unknown;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code?: unknown; message?: unknown };
};

const str = (value: unknown) => (typeof value === "string" ? value : undefined);

/** The task a message is about, where it says (its params, its related-task metadata, its result). */
export function taskOf(message: Message): string | undefined {
  const p = message.params;
  const r = message.result;
  const related = (p?._meta as Record<string, { taskId?: unknown }> | undefined)?.[RELATED];
  return (
    str(p?.taskId) ??
    str(related?.taskId) ??
    str((p?.task as { taskId?: unknown } | undefined)?.taskId) ??
    str(r?.taskId) ??
    str((r?.task as { taskId?: unknown } | undefined)?.taskId)
  );
}

/** Text within MAX_WIRE_VIEW_SUMMARY, a longer one cut with `mark` (a kept wire line's is "...": see `shown`). */
const cut = (text: string, mark = "…") =>
  text.length > MAX_WIRE_VIEW_SUMMARY ? `${text.slice(0, MAX_WIRE_VIEW_SUMMARY)}${mark}` : text;

/** One message as a line: time, direction, method or reply id, and a short safe summary. */
export function wireLine(t: string, dir: "out" | "in", message: Message): string {
  return shown(keptLine(t, dir, message));
}

// A line is kept with its direction as ">" or "<" and a cut as "...", and shown with an arrow and "…": a string with
// an arrow or "…" in it is stored two bytes a character, and a dashboard following 1,000 tasks keeps tens of
// thousands of these lines (a task notification's line is always cut).
const shown = (kept: string) =>
  kept
    .replace(/^(.{12}) ([<>])/, (_all, time: string, dir: string) => `${time} ${dir === ">" ? "→" : "←"}`)
    .replace(/\.\.\.$/, "…");

function keptLine(t: string, dir: "out" | "in", message: Message, count = 1): string {
  const time = t.slice(11, 23);
  const arrow = dir === "out" ? ">" : "<";
  const id = message.id === undefined ? "" : ` #${safeJson(message.id)}`;
  let summary: string;
  if (typeof message.method === "string") {
    const { _meta: _drop, ...params } = message.params ?? {};
    summary = `${message.method}${id}${count > 1 ? ` x${count}` : ""} ${safeJson(params)}`;
  } else if (message.error) {
    summary = `${id.trim()} error ${safeJson(message.error.code)} ${str(message.error.message) ?? ""}`;
  } else {
    const r = message.result ?? {};
    const task = (r.task as Record<string, unknown> | undefined) ?? r;
    const status = str(task.status);
    const text = status ? `${status}${str(task.statusMessage) ? ` "${task.statusMessage}"` : ""}` : safeJson(r);
    summary = `${id.trim()} ${text}`;
  }
  return sanitizeLine(cut(`${time} ${arrow} ${summary}`, "..."));
}

/**
 * Status notifications of a task in a row that say the same status (a status message that changes each second):
 * one entry, its latest message and how many, made a line only when shown or once another entry follows. A
 * dashboard following 1,000 such tasks made and kept 1,000 lines a second, nearly all alike.
 */
interface Run {
  t: string;
  dir: "out" | "in";
  message: Message;
  count: number;
}

type Entry = string | Run;

const lineOf = (entry: Entry) =>
  typeof entry === "string" ? entry : keptLine(entry.t, entry.dir, entry.message, entry.count);

/** Adds a line to the list under `key`, which keeps its newest `max`; past WIRE_VIEW_TASKS keys the oldest goes. */
function append<T>(map: Map<string, T[]>, key: string, line: T, max: number): void {
  const list = map.get(key);
  if (list) {
    list.push(line);
    if (list.length > max) list.splice(0, list.length - max);
    return;
  }
  map.set(key, [line]);
  bound(map);
}

/** A Map iterates in insertion order: its first key is its oldest. */
const bound = (map: Map<string, unknown>) => map.size > WIRE_VIEW_TASKS && map.delete(map.keys().next().value!);

export class WireLog implements WireTap {
  private readonly byTask = new Map<string, Entry[]>();
  private readonly byServer = new Map<string, string[]>();
  /** Our requests awaiting their reply: their id (as JSON) → the task they are about. */
  private readonly pending = new Map<string, string>();

  write(event: TraceEvent): void {
    if (event.dir === "http") return;
    const message = event.message as Message;
    // Log messages come through `log`, from every connection (a broker's too), not from the trace.
    if (message.method === "notifications/message") return;
    const key = message.id === undefined ? undefined : safeJson(message.id);
    let taskId = taskOf(message);
    if (key !== undefined && typeof message.method === "string") {
      // A request: its reply (which need not name the task) is about the same task.
      if (taskId) (this.pending.set(key, taskId), bound(this.pending));
    } else if (key !== undefined) {
      taskId ??= this.pending.get(key);
      this.pending.delete(key);
    }
    if (taskId) this.add(taskId, event.t, event.dir, message);
  }

  private add(taskId: string, t: string, dir: "out" | "in", message: Message): void {
    const list = this.byTask.get(taskId);
    const last = list?.at(-1);
    // A task's status, pushed (V1's method, or the 2026-07-28 extension's; an acknowledgement says none).
    const status = TASK_NOTIFICATIONS.has(message.method as string) ? message.params?.status : undefined;
    if (typeof last === "object") {
      if (status !== undefined && last.message.params?.status === status) {
        last.t = t;
        last.dir = dir;
        last.message = message;
        last.count++;
        return;
      }
      list![list!.length - 1] = lineOf(last);
    }
    const entry = status === undefined ? keptLine(t, dir, message) : { t, dir, message, count: 1 };
    append(this.byTask, taskId, entry, MAX_WIRE_VIEW_MESSAGES);
  }

  /** A log message of a server (by the name its connection was opened with), seen `at`. */
  log(server: string, log: LogMessage, at: Date): void {
    append(
      this.byServer,
      server,
      sanitizeLine(cut(`${at.toISOString().slice(11, 19)} ${logText(log)}`)),
      MAX_DASHBOARD_LOGS,
    );
  }

  /** The last messages about a task, oldest first. */
  messages(taskId: string): readonly string[] {
    return (this.byTask.get(taskId) ?? []).map((entry) => shown(lineOf(entry)));
  }

  /** The last log messages of a server (by the name its connection was opened with), oldest first. */
  logs(server: string): readonly string[] {
    return this.byServer.get(server) ?? [];
  }
}
