// The Wire of a server behind a broker: each method is a request over the broker's socket (protocol.ts), and the
// broker's notifications (push updates, questions, withdrawn questions, moved tasks, answers in doubt) are turned
// back into what a direct wire would do. The engine above cannot tell the difference.
import type { Socket } from "node:net";
import { ServerError, ServerExitedError } from "../errors.js";
import type { LogLevel, LogMessage } from "../protocol/logging.js";
import type {
  BrokerFacet,
  CallOptions,
  CallOutcome,
  InputRequest,
  Progress,
  QuestionHolder,
  ResumeToken,
  ServiceInputOptions,
  Snapshot,
  TaskPage,
  ToolInfo,
  UncertainDelivery,
  Wire,
  WireCapabilities,
} from "../protocol/wire.js";
import { Subscribable } from "../protocol/wire-events.js";
import type { Trace, TraceEvent } from "../protocol/trace.js";
import { isRunning, refOf, type ProcessRef } from "./processes.js";
import { decodeError, encodeError, onMessages, send, type Message } from "./protocol.js";
import { ReceivedQuestions } from "./sent-questions.js";
import { capabilitiesOf, type Attaching, type Hello } from "./hello.js";

/** The Wire of a server behind a broker. */
export class BrokerWire extends Subscribable implements Wire {
  serverPid?: number;
  private serverRef?: ProcessRef;
  /** As the broker's own wire has them (its hello, hello.ts), but for keepsAbandonedCalls: see callTool. */
  readonly capabilities!: WireCapabilities;
  /** The broker's trace, and its schema checks (its checker loaded, its schemas compiled). */
  readonly broker: BrokerFacet = {
    /** The broker's wire trace from now on, message by message (the server's connection is the broker's). */
    watchWire: async (listener) => {
      this.traceListener = listener;
      await this.call("tapWire");
    },
    schemaProblem: async (schema, value, what) =>
      ((await this.call("schemaProblem", { schema, value, what })) as string | null) ?? undefined,
  };
  private traceListener?: (event: TraceEvent) => void;
  /** Questions being asked here, by the broker's id: aborted when the server withdraws one. */
  private readonly asking = new Map<number, AbortController>();
  private resume!: ResumeToken;
  /** A moved task's token being saved: replies that follow it wait for it (as a direct wire awaits taskMoved). */
  private moving: Promise<void> = Promise.resolve();
  private next = 1;
  private readonly pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  /** The held questions the broker sent whole, to put its stubs back from (sent-questions.ts). */
  private readonly held = new ReceivedQuestions();
  /** getTask requests whose replies are still to come (read when they come, waited for or not: see receive). */
  private readonly reads = new Set<number>();
  private readonly listeners = new Map<(s: Snapshot) => void, Set<string>>();
  /** Progress listeners of this command's calls, by the id sent with the call (the broker relays each report). */
  private readonly progress = new Map<number, (progress: Progress) => void>();
  /** Tasks whose changes the server has confirmed it pushes (told by the broker). */
  private readonly confirmed = new Set<string>();
  /** Why the server exited, as the broker said before it left (its exit status and the end of its stderr). */
  private exitReason?: Error;
  private resolveClosed!: (error: Error) => void;
  readonly closed = new Promise<Error>((resolve) => (this.resolveClosed = resolve));

  private constructor(
    private readonly socket: Socket,
    /** This command's trace: the broker's wire for this command is relayed to it. */
    private readonly trace?: Trace,
  ) {
    super();
    onMessages(socket, (message) => this.receive(message));
    socket.on("close", () => {
      const error = this.goneError("the connection to the server's broker closed (the broker or its server stopped)");
      for (const waiter of this.pending.values()) waiter.reject(error);
      this.pending.clear();
      // The questions it was given can no longer be answered through it: their prompts stop (they wait in the
      // server, or ended with it).
      for (const asking of this.asking.values()) asking.abort(error);
      this.asking.clear();
      this.resolveClosed(error);
    });
    socket.on("error", () => socket.destroy());
  }

  /** Attaches to the broker at `socket`, saying who this command is (`who`: hello.ts Attaching). */
  static async open(socket: Socket, trace?: Trace, who?: QuestionHolder): Promise<BrokerWire> {
    const wire = new BrokerWire(socket, trace);
    // Asked for only when tracing: nothing is relayed otherwise. A broker older than relaying refuses it: no relay.
    if (trace) {
      // First, how the broker opened its connection (what it declared): it happened before this command attached.
      const started = (await wire.call("trace").catch(() => null)) as { opening?: TraceEvent[] } | null;
      for (const event of started?.opening ?? []) wire.relayed(event);
    }
    const attaching: Attaching = { sentQuestions: true, ...who };
    const hello = (await wire.call("hello", { ...attaching })) as Hello;
    const capabilities = capabilitiesOf(hello);
    Object.assign(wire, {
      capabilities,
      resume: hello.resume,
      serverPid: hello.serverPid,
      // The server as it ran when this command came (pid and start time): whether it still runs, later.
      serverRef: refOf(hello.serverPid),
    });
    return wire;
  }

  private receive(message: Message): void {
    if ("method" in message && message.method === "snapshot") {
      const { snapshot: sent, confirmed } = message.params as { snapshot: Snapshot; confirmed: boolean };
      const snapshot = this.held.snapshot(sent);
      if (!snapshot) return; // a stub of nothing held: never from a broker of this build
      if (confirmed) this.confirmed.add(snapshot.taskId);
      for (const [listener, ids] of this.listeners) if (ids.has(snapshot.taskId)) listener(snapshot);
    } else if ("method" in message && message.method === "trace") {
      this.relayed((message.params as { event: TraceEvent }).event);
    } else if ("method" in message && message.method === "uncertain") {
      const delivery = message.params as Omit<UncertainDelivery, "error"> & { error: never };
      this.hub.emit("uncertainDelivery", { ...delivery, error: decodeError(delivery.error) });
    } else if ("method" in message && message.method === "tap") {
      this.traceListener?.((message.params as { event: TraceEvent }).event);
    } else if ("method" in message && message.method === "log") {
      this.hub.emit("log", (message.params as { log: LogMessage }).log);
    } else if ("method" in message && message.method === "progress") {
      const { progressId, progress } = message.params as { progressId: number; progress: Progress };
      this.progress.get(progressId)?.(progress);
    } else if ("method" in message && message.method === "serverExited") {
      this.exitReason = decodeError((message.params as { error: never }).error);
    } else if ("method" in message && message.method === "elicitationComplete") {
      this.hub.emit("elicitationComplete", String((message.params as { elicitationId: unknown }).elicitationId));
    } else if ("method" in message && message.method === "withdrawn") {
      // The server stopped waiting for a question this command was given: stop asking, and say so.
      const { id, taskId, request } = message.params as { id: number; taskId: string | null; request: InputRequest };
      this.asking.get(id)?.abort();
      this.hub.emit("questionWithdrawn", taskId, request);
    } else if ("method" in message && message.method === "moved") {
      // The broker's wire found a task in a new session (the server forgot the old one): its owner saves the token.
      const { taskId, token } = message.params as { taskId: string; token: ResumeToken };
      this.moving = this.hub.settle("taskMoved", taskId, token).catch(() => {});
    } else if ("method" in message && message.method === "input" && "id" in message) {
      const { request: sent, taskId } = message.params as { request: InputRequest; taskId: string | null };
      const request = this.held.request(taskId, sent);
      const asking = new AbortController();
      this.asking.set(message.id, asking);
      const handler = this.hub.input;
      const answer = !request
        ? Promise.reject(new ServerError("the broker handed over a question it had not sent"))
        : handler
          ? handler(request, taskId, asking.signal)
          : Promise.reject(new ServerError("no input handler"));
      void answer.finally(() => this.asking.delete(message.id)).catch(() => {});
      answer.then(
        (result) => send(this.socket, { id: message.id, result }),
        (error: unknown) => send(this.socket, { id: message.id, error: encodeError(error) }),
      );
    } else if ("id" in message) {
      // A read's snapshot is taken in here, in the order the socket carries it among the pushes, even where nobody
      // waits for it any more: the broker counts it as sent.
      let result = "result" in message ? message.result : undefined;
      if (this.reads.delete(message.id) && result) result = this.held.snapshot(result as Snapshot);
      const waiter = this.pending.get(message.id);
      if (!waiter) return;
      this.pending.delete(message.id);
      void this.moving.then(() => {
        if ("error" in message) waiter.reject(decodeError(message.error));
        else if (result === undefined)
          waiter.reject(new ServerError("the broker sent a stub of a question it had not sent"));
        else waiter.resolve(result);
      });
    }
  }

  /** An event of the broker's wire, relayed to this command: written to its trace, marked. */
  private relayed(event: TraceEvent | undefined): void {
    if (typeof event?.t === "string" && typeof event.dir === "string") this.trace?.write({ ...event, via: "broker" });
  }

  /**
   * Why the broker cannot be asked: a stdio broker leaves when its server exits, and then the server's tasks went
   * with it (ServerExitedError: the hint says to start the task again, not to watch it; the broker's word on how it
   * exited where it said so); otherwise the broker is gone and the server may still be up.
   */
  private goneError(message: string): ServerError {
    // The broker said why its server exited: that is the error, as the requests the exit failed got it.
    if (this.exitReason) return new ServerExitedError(this.exitReason.message);
    if (this.serverRef === undefined || isRunning(this.serverRef)) return new ServerError(message);
    return new ServerExitedError(`${message}: its server exited`);
  }

  /**
   * One request to the broker. `abandon`, where given, decides what an abort does instead of rejecting at once: it
   * is handed the request's id, and stops waiting (calls `stop`) when it sees fit (see callTool).
   */
  call(
    method: string,
    params: Record<string, unknown> = {},
    signal?: AbortSignal,
    abandon?: (id: number, stop: () => void) => void,
  ): Promise<unknown> {
    if (this.socket.destroyed) return Promise.reject(this.goneError("the server's broker is gone"));
    const id = this.next++;
    return new Promise((resolve, reject) => {
      // Stop waiting here; the broker finishes the request on its side.
      const stop = () => {
        if (this.pending.delete(id)) reject(signal!.reason);
      };
      const onAbort = () => (abandon ? abandon(id, stop) : stop());
      // The listener goes with the request: a watch's signal sees thousands of reads.
      const done = () => signal?.removeEventListener("abort", onAbort);
      this.pending.set(id, {
        resolve: (value) => (done(), resolve(value)),
        reject: (error) => (done(), reject(error)),
      });
      signal?.addEventListener("abort", onAbort, { once: true });
      send(this.socket, { id, method, params: abandon ? { ...params, callId: id } : params });
    });
  }

  resumeToken(): ResumeToken {
    return this.resume;
  }
  async listTools(): Promise<ToolInfo[]> {
    return (await this.call("listTools")) as ToolInfo[];
  }
  /**
   * A tools/call made by the broker. Abandoned (the signal aborted) before its reply, the broker is told first: if
   * it takes the call over (its reply is still to come), the broker saves the task the reply creates, under
   * `options.owner`, and this command stops waiting; if the reply was on its way already, it is waited for here
   * (the command saves the task itself). A broker that cannot be told (an older one): this command stops waiting,
   * and the broker saves the task all the same once this command has left.
   */
  async callTool(name: string, args: Record<string, unknown>, options: CallOptions): Promise<CallOutcome> {
    const progressId = options.onProgress ? this.next : undefined;
    if (progressId !== undefined) this.progress.set(progressId, options.onProgress!);
    const abandon = (callId: number, stop: () => void) =>
      void this.call("abandonCall", { callId }).then(
        (answer) => (answer as { taken?: unknown } | null)?.taken !== false && stop(),
        () => stop(),
      );
    return (await this.call(
      "callTool",
      {
        name,
        args,
        options: { task: options.task, ttlMs: options.ttlMs },
        ...(progressId !== undefined && { progressId }),
        ...(options.owner && { owner: options.owner }),
      },
      options.signal,
      abandon,
    )) as CallOutcome;
  }
  async getTask(taskId: string, signal?: AbortSignal): Promise<Snapshot> {
    const id = this.next;
    const reply = this.call("getTask", { taskId }, signal);
    if (this.next > id) this.reads.add(id); // sent (not refused for a closed socket)
    return (await reply) as Snapshot;
  }
  async serviceInput(snapshot: Snapshot, options: ServiceInputOptions): Promise<string[]> {
    // A server that hands its questions over once lists none: what the snapshot carries are the broker's own held
    // questions, which it has (as big as the server made them, they are not sent back on every read).
    const sent =
      this.capabilities.handsQuestionsOnce && snapshot.inputRequests.length > 0
        ? { ...snapshot, inputRequests: [] }
        : snapshot;
    return (await this.call(
      "serviceInput",
      { snapshot: sent, answered: [...options.answered] },
      options.signal,
    )) as string[];
  }
  async setLogLevel(level: LogLevel): Promise<boolean> {
    return (await this.call("setLogLevel", { level })) === true;
  }
  async cancelTask(taskId: string): Promise<Snapshot | undefined> {
    return ((await this.call("cancelTask", { taskId })) as Snapshot | null) ?? undefined;
  }
  async listTasks(cursor?: string): Promise<TaskPage> {
    return (await this.call("listTasks", { cursor })) as TaskPage;
  }
  async watchNotifications(taskIds: string[], listener: (snapshot: Snapshot) => void): Promise<() => void> {
    this.listeners.set(listener, new Set(taskIds));
    const { confirmed } = (await this.call("watch", { taskIds })) as { confirmed: string[] };
    for (const taskId of confirmed) this.confirmed.add(taskId);
    return () => {
      this.listeners.delete(listener);
      if (!this.socket.destroyed) void this.call("unwatch", { taskIds }).catch(() => {});
    };
  }
  pushConfirmed(taskId: string): boolean {
    return this.confirmed.has(taskId);
  }
  async close(): Promise<void> {
    this.socket.end();
  }
}
