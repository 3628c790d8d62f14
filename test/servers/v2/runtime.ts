// The task engine. Every task-backed tool is a small state machine ("program") driven by three kinds
// of events: start, a timer waking it, and the answers to its input requests. Keeping the whole state
// in a plain JSON record (no closures, no pending promises) is what lets `--store` persist tasks and a
// restarted server pick them up where they were, timers included.

import { randomUUID } from "node:crypto";
import type { TaskFileStore } from "./store.js";
import { log } from "./stats.js";

export type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";
const TERMINAL: ReadonlySet<TaskStatus> = new Set(["completed", "failed", "cancelled"]);
export const isTerminal = (s: TaskStatus): boolean => TERMINAL.has(s);

export interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}

/** One entry of `inputRequests`: an embedded server-to-client request. */
export interface InputRequest {
  method: "elicitation/create" | "sampling/createMessage" | "roots/list";
  params: Record<string, unknown>;
}

export type JsonObject = Record<string, unknown>;

export interface TaskRecord {
  taskId: string;
  tool: string;
  status: TaskStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number;
  pollIntervalMs: number;
  /** Program state: which step comes next, and when a timer should wake it (epoch ms). */
  phase: string;
  wakeAt?: number;
  /** Program data: the call's arguments plus whatever the program gathered. */
  data: JsonObject;
  /** Key counter: input keys are `<purpose>-<n>`, unique for the task's life. */
  keySeq: number;
  /** Outstanding input requests (key -> request), exactly what tasks/get shows. */
  pending: Record<string, InputRequest>;
  /** key -> purpose, for every key ever issued. */
  keyPurpose: Record<string, string>;
  /** Answers received for the current round (purpose -> response), delivered once the round is complete. */
  collected: JsonObject;
  result?: JsonObject;
  error?: RpcError;
}

export type TaskEvent =
  | { kind: "start" }
  | { kind: "wake" }
  | { kind: "input"; responses: Record<string, JsonObject> };

/** What a program may do with its task. Each call is one transition. */
export interface TaskOps {
  /** Stay (or go back to) `working`; wake up with a `wake` event in `ms`, in `phase`. */
  sleep(ms: number, phase: string, statusMessage?: string): void;
  /** Go `input_required` with these requests (purpose -> request); mints fresh, never-reused keys. */
  ask(requests: Record<string, InputRequest>, phase: string, statusMessage?: string): void;
  /** Update the status message without changing status (still a change: lastUpdatedAt moves). */
  note(statusMessage: string): void;
  complete(result: JsonObject): void;
  fail(error: RpcError): void;
}

export type TaskProgram = (task: TaskRecord, event: TaskEvent, ops: TaskOps) => void;

export interface RuntimeOptions {
  pollIntervalMs: number;
  ttlMs: number;
  store?: TaskFileStore;
  programs: Record<string, TaskProgram>;
}

const iso = (ms = Date.now()): string => new Date(ms).toISOString();
const short = (id: string): string => id.slice(0, 8);

export class TaskRuntime {
  private readonly tasks = new Map<string, TaskRecord>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly listeners = new Set<(task: TaskRecord) => void>();
  private readonly lastCommitted = new Map<string, string>();
  private readonly lastStatus = new Map<string, TaskStatus>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly opts: RuntimeOptions) {
    this.sweeper = setInterval(() => this.sweep(), 10_000);
    this.sweeper.unref();
    if (opts.store) this.restore(opts.store);
  }

  get defaults(): { pollIntervalMs: number; ttlMs: number } {
    return { pollIntervalMs: this.opts.pollIntervalMs, ttlMs: this.opts.ttlMs };
  }

  hasProgram(tool: string): boolean {
    return Object.hasOwn(this.opts.programs, tool);
  }

  /** Subscribe to every task change (status, status message, input requests). */
  onChange(listener: (task: TaskRecord) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Creates a task and runs its program's start step synchronously, so the task exists (and is
   * persisted) before the CreateTaskResult goes out: a tasks/get right after it always resolves.
   */
  create(tool: string, data: JsonObject, overrides: { ttlMs?: number; pollIntervalMs?: number } = {}): TaskRecord {
    const now = iso();
    const task: TaskRecord = {
      taskId: randomUUID(),
      tool,
      status: "working",
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: overrides.ttlMs ?? this.opts.ttlMs,
      pollIntervalMs: overrides.pollIntervalMs ?? this.opts.pollIntervalMs,
      phase: "start",
      data,
      keySeq: 0,
      pending: {},
      keyPurpose: {},
      collected: {},
    };
    this.tasks.set(task.taskId, task);
    log(`task ${short(task.taskId)} created by ${tool}`);
    this.run(task, { kind: "start" });
    this.commit(task);
    return task;
  }

  /** The task, or undefined when unknown or past createdAt + ttlMs (then it is forgotten). */
  get(taskId: string): TaskRecord | undefined {
    const task = this.tasks.get(taskId);
    if (!task) return undefined;
    if (this.expired(task)) {
      this.forget(task);
      return undefined;
    }
    return task;
  }

  /**
   * Applies `inputResponses` (key -> bare response). Keys that are not outstanding (unknown, or
   * already answered) are ignored; so are malformed responses (the key stays outstanding). Once every
   * outstanding key of the round is answered the program continues.
   */
  update(task: TaskRecord, responses: Record<string, unknown>): { accepted: string[]; ignored: string[] } {
    const accepted: string[] = [];
    const ignored: string[] = [];
    if (task.status !== "input_required") return { accepted, ignored: Object.keys(responses) };
    for (const [key, response] of Object.entries(responses)) {
      const request = task.pending[key];
      if (!request || !isValidResponse(request, response)) {
        ignored.push(key);
        continue;
      }
      delete task.pending[key];
      task.collected[task.keyPurpose[key] ?? key] = response as JsonObject;
      accepted.push(key);
    }
    if (accepted.length > 0) {
      task.lastUpdatedAt = iso();
      if (Object.keys(task.pending).length === 0) {
        const responsesByPurpose = task.collected as Record<string, JsonObject>;
        task.collected = {};
        task.status = "working";
        task.statusMessage = "input received";
        this.run(task, { kind: "input", responses: responsesByPurpose });
      }
      this.commit(task);
    }
    return { accepted, ignored };
  }

  /** Cooperative cancel: a non-terminal task becomes `cancelled` at once; a terminal one is left as it is. */
  cancel(task: TaskRecord): void {
    if (isTerminal(task.status)) return;
    this.clearTimer(task.taskId);
    task.status = "cancelled";
    task.statusMessage = "cancelled by the client";
    task.pending = {};
    task.collected = {};
    task.wakeAt = undefined;
    task.lastUpdatedAt = iso();
    this.commit(task);
  }

  close(): void {
    clearInterval(this.sweeper);
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
  }

  // ---- wire projections ----------------------------------------------------------------------

  /** The Task base fields shared by CreateTaskResult, tasks/get and notifications/tasks. */
  base(task: TaskRecord): JsonObject {
    return {
      taskId: task.taskId,
      status: task.status,
      ...(task.statusMessage !== undefined && { statusMessage: task.statusMessage }),
      createdAt: task.createdAt,
      lastUpdatedAt: task.lastUpdatedAt,
      ttlMs: task.ttlMs,
      pollIntervalMs: task.pollIntervalMs,
    };
  }

  /** DetailedTask: the base plus exactly one of inputRequests / result / error, by status. */
  detailed(task: TaskRecord): JsonObject {
    const out = this.base(task);
    if (task.status === "input_required") out.inputRequests = { ...task.pending };
    if (task.status === "completed") out.result = task.result ?? { content: [] };
    if (task.status === "failed") out.error = task.error ?? { code: -32603, message: "Internal error" };
    return out;
  }

  // ---- internals -------------------------------------------------------------------------------

  private ops(task: TaskRecord): TaskOps {
    const guard = (): boolean => !isTerminal(task.status);
    return {
      sleep: (ms, phase, statusMessage) => {
        if (!guard()) return;
        task.status = "working";
        task.phase = phase;
        if (statusMessage !== undefined) task.statusMessage = statusMessage;
        task.wakeAt = Date.now() + Math.max(0, ms);
        task.lastUpdatedAt = iso();
        this.arm(task);
      },
      ask: (requests, phase, statusMessage) => {
        if (!guard()) return;
        this.clearTimer(task.taskId);
        task.wakeAt = undefined;
        task.phase = phase;
        task.pending = {};
        task.collected = {};
        for (const [purpose, request] of Object.entries(requests)) {
          const key = `${purpose}-${++task.keySeq}`;
          task.keyPurpose[key] = purpose;
          task.pending[key] = request;
        }
        task.status = "input_required";
        task.statusMessage = statusMessage ?? "waiting for input";
        task.lastUpdatedAt = iso();
      },
      note: (statusMessage) => {
        if (!guard()) return;
        task.statusMessage = statusMessage;
        task.lastUpdatedAt = iso();
      },
      complete: (result) => {
        if (!guard()) return;
        this.finish(task);
        task.status = "completed";
        task.statusMessage = result.isError === true ? "completed with a tool error" : "completed";
        task.result = result;
      },
      fail: (error) => {
        if (!guard()) return;
        this.finish(task);
        task.status = "failed";
        task.statusMessage = error.message;
        task.error = error;
      },
    };
  }

  private finish(task: TaskRecord): void {
    this.clearTimer(task.taskId);
    task.wakeAt = undefined;
    task.pending = {};
    task.collected = {};
    task.phase = "done";
    task.lastUpdatedAt = iso();
  }

  private run(task: TaskRecord, event: TaskEvent): void {
    const program = this.opts.programs[task.tool];
    if (!program) {
      this.ops(task).fail({ code: -32603, message: `no program for tool ${task.tool}` });
      return;
    }
    try {
      program(task, event, this.ops(task));
    } catch (error) {
      this.ops(task).fail({ code: -32603, message: `task program crashed: ${(error as Error).message}` });
    }
  }

  private arm(task: TaskRecord): void {
    this.clearTimer(task.taskId);
    if (task.wakeAt === undefined) return;
    const expectedPhase = task.phase;
    const timer = setTimeout(() => {
      this.timers.delete(task.taskId);
      const live = this.tasks.get(task.taskId);
      if (!live || live !== task || isTerminal(task.status) || task.phase !== expectedPhase) return;
      task.wakeAt = undefined;
      this.run(task, { kind: "wake" });
      this.commit(task);
    }, Math.max(0, task.wakeAt - Date.now()));
    this.timers.set(task.taskId, timer);
  }

  private clearTimer(taskId: string): void {
    const t = this.timers.get(taskId);
    if (t) clearTimeout(t);
    this.timers.delete(taskId);
  }

  /** Persists and publishes the task's current state, and logs status transitions. */
  private commit(task: TaskRecord): void {
    const key = `${task.status}|${task.statusMessage ?? ""}|${Object.keys(task.pending).join(",")}|${task.lastUpdatedAt}`;
    if (this.lastCommitted.get(task.taskId) === key) return;
    const previous = this.lastStatus.get(task.taskId);
    if (previous !== task.status) log(`task ${short(task.taskId)} ${previous ?? "new"} -> ${task.status}`);
    this.lastStatus.set(task.taskId, task.status);
    this.lastCommitted.set(task.taskId, key);
    try {
      this.opts.store?.save(task);
    } catch (error) {
      log(`store: cannot save task ${short(task.taskId)}: ${(error as Error).message}`);
    }
    for (const listener of this.listeners) {
      try {
        listener(task);
      } catch (error) {
        log(`listener error: ${(error as Error).message}`);
      }
    }
  }
  private expired(task: TaskRecord): boolean {
    return Date.parse(task.createdAt) + task.ttlMs <= Date.now();
  }

  private forget(task: TaskRecord): void {
    this.clearTimer(task.taskId);
    this.tasks.delete(task.taskId);
    this.lastCommitted.delete(task.taskId);
    this.lastStatus.delete(task.taskId);
    this.opts.store?.remove(task.taskId);
    log(`task ${short(task.taskId)} expired (ttl ${task.ttlMs} ms)`);
  }

  private sweep(): void {
    for (const task of [...this.tasks.values()]) if (this.expired(task)) this.forget(task);
  }

  private restore(store: TaskFileStore): void {
    let n = 0;
    for (const task of store.loadAll()) {
      if (this.expired(task)) {
        store.remove(task.taskId);
        continue;
      }
      this.tasks.set(task.taskId, task);
      this.lastStatus.set(task.taskId, task.status);
      if (!isTerminal(task.status) && task.wakeAt !== undefined) this.arm(task);
      n++;
    }
    if (n > 0) log(`store: restored ${n} task(s) from ${store.dir}`);
  }
}

/** Loose shape check of a bare input response against the request it answers. */
function isValidResponse(request: InputRequest, response: unknown): boolean {
  if (response === null || typeof response !== "object" || Array.isArray(response)) return false;
  const r = response as JsonObject;
  switch (request.method) {
    case "elicitation/create":
      if (r.action !== "accept" && r.action !== "decline" && r.action !== "cancel") return false;
      return r.content === undefined || (typeof r.content === "object" && r.content !== null && !Array.isArray(r.content));
    case "sampling/createMessage":
      return typeof r.role === "string" && r.content !== undefined;
    case "roots/list":
      return Array.isArray(r.roots);
  }
}
