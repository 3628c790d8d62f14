// A scripted Wire (src/protocol/wire.ts) on a FakeClock: what the server answers is queued per request, every
// request is recorded with the clock's time, and verify() fails on anything queued and never asked for (as gh's
// httpmock registry does), or on a request nothing was queued for.
//
//   const wire = new FakeWire(clock, { tools: [tool("slow")] });
//   wire.onCall(created("t1"));                       // tools/call: a task
//   wire.onGet("t1", working("t1"), transient(), done("t1"));   // tasks/get of t1, in turn
//   wire.pushAt(300, working("t1", { statusMessage: "half" }));  // a push, at t=300 on the clock
//   wire.onServiceInput("t1", ANSWER);                // hand the snapshot's open questions to the input handler
//   ...run the program...
//   expect(wire.times("getTask")).toEqual([0, 200, 400]); wire.verify();
//
// A queued reply is a value, an Error (thrown), HANG (never answers; rejects with the signal's reason on abort) or
// a function of the request's signal (for a reply that waits on the clock, or counts). Nothing is repeated: a
// request whose queue is empty fails (recorded in `unexpected`, and thrown to the program).
import { ServerError } from "../../src/errors.js";
import type {
  CallOptions,
  CallOutcome,
  Generation,
  InputRequest,
  ResumeToken,
  ServiceInputOptions,
  Snapshot,
  TaskPage,
  ToolInfo,
  InputHandler,
  Unsubscribe,
  Wire,
  WireCapabilities,
  WireEvent,
  WireEventMap,
} from "../../src/protocol/wire.js";
import type { SpecRevision } from "../../src/protocol/revisions.js";
import { Subscribable } from "../../src/protocol/wire-events.js";
import type { FakeClock } from "./fake-clock.js";

/** A reply that never comes (until the request's signal aborts). */
export const HANG = Symbol("hang");
/** serviceInput: hand the snapshot's open questions to the input handler, return the keys answered. */
export const ANSWER = Symbol("answer");

export type Reply<T> = T | Error | typeof HANG | ((signal?: AbortSignal) => T | Promise<T>);

export interface Request {
  /** Monotonic time on the fake clock. */
  at: number;
  method: "callTool" | "getTask" | "serviceInput" | "cancelTask" | "listTasks" | "watchNotifications" | "close";
  taskId?: string;
  tool?: string;
}

/** A transient failure (the server unreachable): the engine backs off and tries again. */
export function transient(message = "connection refused"): ServerError {
  const error = new ServerError(message);
  error.transient = true;
  return error;
}

/** A snapshot of `taskId` (working unless said). */
export function snap(taskId: string, fields: Partial<Snapshot> = {}): Snapshot {
  return { taskId, status: "working", inputRequests: [], ...fields };
}

/** A completed snapshot with a text result. */
export function done(taskId: string, text = "done", fields: Partial<Snapshot> = {}): Snapshot {
  return snap(taskId, { status: "completed", result: { content: [{ type: "text", text }] }, ...fields });
}

/** tools/call's reply: a task. */
export function created(taskId: string, fields: Partial<Snapshot> = {}): CallOutcome {
  return { kind: "task", snapshot: snap(taskId, fields) };
}

/** A tool that may run as a task. */
export function tool(name: string): ToolInfo {
  return { name, inputSchema: { type: "object" }, taskSupport: "optional" };
}

export interface FakeWireOptions {
  generation?: Generation;
  tools?: ToolInfo[];
  /** The server confirms push subscriptions (V2): the watch polls at PUSH_GRACE intervals. */
  pushConfirmed?: boolean;
}

export class FakeWire extends Subscribable implements Wire {
  readonly generation: Generation;
  readonly protocolVersion: string;
  readonly serverName = "fake";
  readonly capabilities: WireCapabilities;
  readonly closed: Promise<Error> = new Promise(() => {});
  /** Every request, in order, with its time. */
  readonly requests: Request[] = [];
  /** Requests with nothing queued for them. */
  readonly unexpected: string[] = [];
  private readonly calls: Array<Reply<CallOutcome>> = [];
  private readonly gets = new Map<string, Array<Reply<Snapshot>>>();
  private readonly services = new Map<string, Array<Reply<string[]> | typeof ANSWER>>();
  private readonly cancels = new Map<string, Array<Reply<Snapshot | undefined>>>();
  private readonly listeners = new Map<string, Set<(snapshot: Snapshot) => void>>();
  /** Pushes scheduled and not yet sent. */
  private pushesLeft = 0;
  private readonly pushesLost: string[] = [];

  constructor(
    private readonly clock: FakeClock,
    private readonly options: FakeWireOptions = {},
  ) {
    super();
    this.generation = options.generation ?? "v2";
    this.protocolVersion = this.generation === "v2" ? "2026-07-28" : "2025-11-25";
    this.capabilities = {
      generation: this.generation,
      revision: this.protocolVersion as SpecRevision,
      protocolVersion: this.protocolVersion,
      serverName: this.serverName,
      canListTasks: false,
      handsQuestionsOnce: this.generation === "v1",
      keepsAbandonedCalls: false,
      hearsElicitationComplete: true,
    };
  }

  onCall(...replies: Array<Reply<CallOutcome>>): this {
    this.calls.push(...replies);
    return this;
  }

  onGet(taskId: string, ...replies: Array<Reply<Snapshot>>): this {
    queue(this.gets, taskId).push(...replies);
    return this;
  }

  onServiceInput(taskId: string, ...replies: Array<Reply<string[]> | typeof ANSWER>): this {
    queue(this.services, taskId).push(...replies);
    return this;
  }

  onCancel(taskId: string, ...replies: Array<Reply<Snapshot | undefined>>): this {
    queue(this.cancels, taskId).push(...replies);
    return this;
  }

  /** Sends `snapshot` as a push at monotonic time `at` (to whoever listens for its task then: verify fails if none). */
  pushAt(at: number, snapshot: Snapshot): this {
    this.pushesLeft++;
    this.clock.at(at, () => {
      this.pushesLeft--;
      const listeners = this.listeners.get(snapshot.taskId);
      if (!listeners?.size) return void this.pushesLost.push(`push of ${snapshot.taskId} at t=${at}`);
      for (const listener of listeners) listener(snapshot);
    });
    return this;
  }

  /** The times of the requests of `method` (of `taskId`, if given). */
  times(method: Request["method"], taskId?: string): number[] {
    return this.requests
      .filter((r) => r.method === method && (taskId === undefined || r.taskId === taskId))
      .map((r) => r.at);
  }

  /** Fails on a request nothing was queued for, and on anything queued and never asked for. */
  verify(): void {
    const left: string[] = [...this.unexpected.map((what) => `unexpected ${what}`), ...this.pushesLost];
    if (this.calls.length) left.push(`${this.calls.length} tools/call reply(ies) never asked for`);
    for (const [what, map] of [
      ["tasks/get", this.gets],
      ["serviceInput", this.services],
      ["tasks/cancel", this.cancels],
    ] as const)
      for (const [taskId, replies] of map)
        if (replies.length) left.push(`${replies.length} ${what} reply(ies) of ${taskId} never asked for`);
    if (this.pushesLeft) left.push(`${this.pushesLeft} push(es) never sent (the clock did not reach them)`);
    if (left.length) throw new Error(`FakeWire: ${left.join("; ")}`);
  }

  // The Wire.

  resumeToken(): ResumeToken {
    return { generation: this.generation, protocolVersion: this.protocolVersion, serverName: this.serverName };
  }

  async listTools(): Promise<ToolInfo[]> {
    return this.options.tools ?? [];
  }

  callTool(name: string, _args: Record<string, unknown>, options: CallOptions): Promise<CallOutcome> {
    this.record({ method: "callTool", tool: name });
    return this.answer(this.calls, `tools/call ${name}`, options.signal);
  }

  getTask(taskId: string, signal?: AbortSignal): Promise<Snapshot> {
    this.record({ method: "getTask", taskId });
    return this.answer(this.gets.get(taskId), `tasks/get ${taskId}`, signal);
  }

  async serviceInput(snapshot: Snapshot, options: ServiceInputOptions): Promise<string[]> {
    this.record({ method: "serviceInput", taskId: snapshot.taskId });
    const replies = this.services.get(snapshot.taskId);
    if (replies?.[0] === ANSWER) {
      replies.shift();
      const keys: string[] = [];
      for (const request of snapshot.inputRequests.filter((r: InputRequest) => !options.answered.has(r.key))) {
        await this.hub.input!(request, snapshot.taskId, options.signal);
        keys.push(request.key);
      }
      return keys;
    }
    return this.answer(
      replies as Array<Reply<string[]>> | undefined,
      `serviceInput ${snapshot.taskId}`,
      options.signal,
    );
  }

  cancelTask(taskId: string): Promise<Snapshot | undefined> {
    this.record({ method: "cancelTask", taskId });
    return this.answer(this.cancels.get(taskId), `tasks/cancel ${taskId}`);
  }

  async listTasks(): Promise<TaskPage> {
    this.record({ method: "listTasks" });
    this.unexpected.push("tasks/list");
    throw new Error("FakeWire: tasks/list is not scripted");
  }

  pushConfirmed(taskId: string): boolean {
    return this.options.pushConfirmed === true && (this.listeners.get(taskId)?.size ?? 0) > 0;
  }

  async watchNotifications(taskIds: string[], listener: (snapshot: Snapshot) => void): Promise<() => void> {
    this.record({ method: "watchNotifications", taskId: taskIds.join(",") });
    for (const id of taskIds) (this.listeners.get(id) ?? this.listeners.set(id, new Set()).get(id)!).add(listener);
    return () => {
      for (const id of taskIds) this.listeners.get(id)?.delete(listener);
    };
  }

  /**
   * A command's connection ends: what it subscribed and its input handler go with it, as with a real wire, so that
   * the next command's connection (the same FakeWire: it plays the server and each connection to it) starts bare.
   */
  async close(): Promise<void> {
    this.record({ method: "close" });
    for (const release of this.holds.splice(0)) release();
  }

  /** What the connection's users hold on it (let go at close). */
  private readonly holds: Unsubscribe[] = [];

  override on<K extends WireEvent>(event: K, listener: WireEventMap[K]): Unsubscribe {
    const release = super.on(event, listener);
    this.holds.push(release);
    return release;
  }

  override handleInput(handler: InputHandler): Unsubscribe {
    const release = super.handleInput(handler);
    this.holds.push(release);
    return release;
  }

  private record(request: Omit<Request, "at">): void {
    this.requests.push({ at: this.clock.monotonic(), ...request });
  }

  private async answer<T>(queue: Array<Reply<T>> | undefined, what: string, signal?: AbortSignal): Promise<T> {
    if (!queue?.length) {
      this.unexpected.push(`${what} at t=${this.clock.monotonic()}`);
      throw new Error(`FakeWire: nothing queued for ${what}`);
    }
    const reply = queue.shift();
    if (reply === HANG)
      return new Promise<T>((_, reject) => {
        if (signal?.aborted) return reject(signal.reason);
        signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
      });
    if (reply instanceof Error) throw reply;
    if (typeof reply === "function") return (reply as (signal?: AbortSignal) => T | Promise<T>)(signal);
    return reply as T;
  }
}

function queue<T>(map: Map<string, T[]>, key: string): T[] {
  return map.get(key) ?? map.set(key, []).get(key)!;
}
