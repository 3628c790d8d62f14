// The demo server's task engine, shared by both protocol generations.
//
// Every task-backed tool is a small state machine ("program") driven by three kinds of events: start, a timer
// waking it, and the answers to its questions. The whole state of a task is a plain JSON record (task.ts: no closures, no
// pending promises), so the store can keep it on disk and a restarted server picks each task up where it was:
// timers are re-armed from `wakeAt`, and questions still waiting are asked again.
//
// The generations differ only in how this state reaches the client (see v1.ts and v2.ts): V2 shows `pending`
// in tasks/get and takes answers through tasks/update; V1 sends `pending` as elicitation requests on the
// tasks/result stream. Both end in `update()`.

import { randomUUID } from "node:crypto";
import type { DemoStore } from "./store.js";
import { taskOps } from "./task-ops.js";
import {
  isTerminal,
  iso,
  newTaskRecord,
  shortId,
  type InputRequest,
  type JsonObject,
  type TaskEvent,
  type TaskOps,
  type TaskProgram,
  type TaskRecord,
  type TaskStatus,
} from "./task.js";

export interface RuntimeOptions {
  pollIntervalMs: number;
  ttlMs: number;
  store?: DemoStore;
  programs: Record<string, TaskProgram>;
  /**
   * The status of a task whose result is a tool error (`isError: true`): `completed` on V2 (the result says
   * so), `failed` on V1 (its tasks/result then returns that result).
   */
  toolErrorStatus: "completed" | "failed";
  log: (line: string) => void;
}

export class TaskRuntime {
  private readonly tasks = new Map<string, TaskRecord>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly listeners = new Set<(task: TaskRecord) => void>();
  private readonly lastCommitted = new Map<string, string>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly opts: RuntimeOptions) {
    this.sweeper = setInterval(() => this.sweep(), 10_000);
    this.sweeper.unref();
    if (opts.store) this.restore(opts.store);
  }

  get defaults(): { pollIntervalMs: number; ttlMs: number } {
    return { pollIntervalMs: this.opts.pollIntervalMs, ttlMs: this.opts.ttlMs };
  }

  /** Subscribe to every committed change of any task (status, message, questions). */
  onChange(listener: (task: TaskRecord) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Creates a task and runs its program's start step synchronously, so the task exists (and is on disk)
   * before the reply that names it goes out: a tasks/get right after it always resolves.
   */
  create(
    tool: string,
    data: JsonObject,
    extra: { ttlMs?: number; pollIntervalMs?: number; owner?: string } = {},
  ): TaskRecord {
    const task = newTaskRecord(randomUUID(), tool, data, {
      ttlMs: extra.ttlMs ?? this.opts.ttlMs,
      pollIntervalMs: extra.pollIntervalMs ?? this.opts.pollIntervalMs,
      ...(extra.owner !== undefined && { owner: extra.owner }),
    });
    this.tasks.set(task.taskId, task);
    this.opts.log(`task ${shortId(task.taskId)} created by ${tool}`);
    this.run(task, { kind: "start" });
    this.commit(task, undefined);
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

  /** Every live task, oldest first. */
  all(): TaskRecord[] {
    return [...this.tasks.values()]
      .filter((task) => !this.expired(task))
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.taskId.localeCompare(b.taskId));
  }

  /**
   * Applies answers (key -> bare response). Keys that are not outstanding (unknown, or already answered) are
   * ignored, and so are malformed responses (the key stays outstanding). Once every question of the round is
   * answered, the program continues.
   */
  update(task: TaskRecord, responses: Record<string, unknown>): { accepted: string[]; ignored: string[] } {
    const accepted: string[] = [];
    const ignored: string[] = [];
    if (task.status !== "input_required") return { accepted, ignored: Object.keys(responses) };
    const before = task.status;
    for (const [key, response] of Object.entries(responses)) {
      if (!task.pending[key] || !fitsRequest(task.pending[key], response)) {
        ignored.push(key);
        continue;
      }
      delete task.pending[key];
      task.collected[task.keyPurpose[key] ?? key] = response;
      accepted.push(key);
    }
    if (accepted.length > 0) {
      task.lastUpdatedAt = iso();
      if (Object.keys(task.pending).length === 0) {
        const round = task.collected as Record<string, JsonObject>;
        task.collected = {};
        task.status = "working";
        task.statusMessage = "answer received";
        this.run(task, { kind: "input", responses: round });
      }
      this.commit(task, before);
    }
    return { accepted, ignored };
  }

  /** Cooperative cancel: a task still running becomes `cancelled` at once; a terminal one is left as it is. */
  cancel(task: TaskRecord): boolean {
    if (isTerminal(task.status)) return false;
    const before = task.status;
    this.clearTimer(task.taskId);
    task.status = "cancelled";
    task.statusMessage = "cancelled at the client's request";
    task.pending = {};
    task.collected = {};
    task.wakeAt = undefined;
    task.phase = "done";
    task.lastUpdatedAt = iso();
    this.commit(task, before);
    return true;
  }

  close(): void {
    clearInterval(this.sweeper);
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.listeners.clear();
  }

  // ---- internals -------------------------------------------------------------------------------------

  private ops(task: TaskRecord): TaskOps {
    return taskOps(task, {
      arm: (t) => this.arm(t),
      clearTimer: (taskId) => this.clearTimer(taskId),
      toolErrorStatus: this.opts.toolErrorStatus,
    });
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
    const phase = task.phase;
    const timer = setTimeout(
      () => {
        this.timers.delete(task.taskId);
        if (this.tasks.get(task.taskId) !== task || isTerminal(task.status) || task.phase !== phase) return;
        const before = task.status;
        task.wakeAt = undefined;
        this.run(task, { kind: "wake" });
        this.commit(task, before);
      },
      Math.max(0, task.wakeAt - Date.now()),
    );
    this.timers.set(task.taskId, timer);
  }

  private clearTimer(taskId: string): void {
    const timer = this.timers.get(taskId);
    if (timer) clearTimeout(timer);
    this.timers.delete(taskId);
  }

  /** Persists and publishes the task's current state; logs status transitions. */
  private commit(task: TaskRecord, before: TaskStatus | undefined): void {
    const fingerprint = `${task.status}|${task.statusMessage ?? ""}|${Object.keys(task.pending).join(",")}|${task.lastUpdatedAt}`;
    if (this.lastCommitted.get(task.taskId) === fingerprint) return;
    this.lastCommitted.set(task.taskId, fingerprint);
    if (before !== task.status)
      this.opts.log(
        `task ${shortId(task.taskId)} ${before ?? "new"} -> ${task.status}${task.statusMessage ? ` (${task.statusMessage})` : ""}`,
      );
    try {
      this.opts.store?.saveTask(task);
    } catch (error) {
      this.opts.log(`store: cannot save task ${shortId(task.taskId)}: ${(error as Error).message}`);
    }
    for (const listener of this.listeners) {
      try {
        listener(task);
      } catch (error) {
        this.opts.log(`listener error: ${(error as Error).message}`);
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
    this.opts.store?.removeTask(task.taskId);
    this.opts.log(`task ${shortId(task.taskId)} expired (ttl ${task.ttlMs} ms)`);
  }

  private sweep(): void {
    for (const task of [...this.tasks.values()]) if (this.expired(task)) this.forget(task);
  }

  private restore(store: DemoStore): void {
    let restored = 0;
    for (const task of store.loadTasks()) {
      if (this.expired(task)) {
        store.removeTask(task.taskId);
        continue;
      }
      // A program this server does not run (the store was shared with other options): leave it alone.
      if (!Object.hasOwn(this.opts.programs, task.tool)) continue;
      this.tasks.set(task.taskId, task);
      if (!isTerminal(task.status) && task.wakeAt !== undefined) this.arm(task);
      restored++;
    }
    if (restored > 0) this.opts.log(`store: restored ${restored} task(s) from ${store.dir}`);
  }
}

/** Shape check of a bare elicitation response. */
/** A response of the kind the request asked for: a CreateMessageResult for a sampling request, else an ElicitResult. */
function fitsRequest(request: InputRequest, response: unknown): response is JsonObject {
  if (request.method !== "sampling/createMessage") return isElicitResponse(response);
  const r = response as { role?: unknown; model?: unknown; content?: unknown } | null;
  return r !== null && typeof r === "object" && r.role === "assistant" && typeof r.model === "string" && !!r.content;
}

function isElicitResponse(response: unknown): response is JsonObject {
  if (response === null || typeof response !== "object" || Array.isArray(response)) return false;
  const r = response as JsonObject;
  if (r.action !== "accept" && r.action !== "decline" && r.action !== "cancel") return false;
  return r.content === undefined || (typeof r.content === "object" && r.content !== null && !Array.isArray(r.content));
}
