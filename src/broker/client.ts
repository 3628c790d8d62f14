// Reaching a stdio server through its broker: find (or start) the broker, and speak to it as to a Wire. The
// engine above cannot tell the difference.
import { spawn } from "node:child_process";
import { existsSync, rmSync, closeSync } from "node:fs";
import { connect as netConnect, type Socket } from "node:net";
import lockfile from "proper-lockfile";
import type { Clock } from "../context.js";
import { ServerError } from "../errors.js";
import type { ServerDescriptor } from "../protocol/server.js";
import type {
  CallOptions,
  CallOutcome,
  Generation,
  InputHandler,
  InputRequest,
  ResumeToken,
  ServiceInputOptions,
  Snapshot,
  TaskPage,
  ToolInfo,
  UncertainDelivery,
  Wire,
} from "../protocol/wire.js";
import { decodeError, encodeError, onMessages, send, type Message } from "./protocol.js";
import { brokerKey, brokerPaths, sessionBrokerKey, type BrokerMeta, type BrokerPaths } from "./paths.js";
import { questionKeeperOf } from "../protocol/wire.js";
import { isRunning, signalIfSame } from "./processes.js";
import type { BrokerSpec } from "./server.js";
import { BROKER_LOG_TAIL_BYTES, MAX_BROKER_LOG_BYTES, MAX_BROKER_RECORD_BYTES } from "../limits.js";
import { openOwnAppend, readOwnTail, readOwnText, UnsafeFileError, writeOwnFile } from "../store/safe-fs.js";

export interface BrokerOptions {
  home: string;
  descriptor: ServerDescriptor;
  name: string;
  /** Start a broker when none runs (a new task); else a missing broker means the server is gone. */
  start: boolean;
  /**
   * A session to keep (V1 over HTTP): the broker reconnects to it with this token (no new initialize), holds its
   * streams open and the questions that come on them.
   */
  session?: ResumeToken;
  /** How to run mcp-task itself: [node, script]. */
  self: readonly string[];
  /** The broker's environment (the context's: the real process's, or a test's); default this process's. */
  env?: Record<string, string | undefined>;
  clock: Clock;
}

const START_TIMEOUT_MS = 30_000;

export async function connectBroker(options: BrokerOptions): Promise<Wire> {
  const keeper = options.session && questionKeeperOf(options.session);
  const key = keeper !== undefined ? sessionBrokerKey(options.descriptor, keeper) : brokerKey(options.descriptor);
  const paths = brokerPaths(options.home, key);
  const socket = await dial(paths.socket);
  if (socket) return BrokerWire.open(socket);
  if (!options.start) {
    cleanUpAfter(paths);
    throw new ServerError(
      `the server exited while the task was running (${options.name}: its broker is not running)`,
      "start the task again",
    );
  }
  const release = await lockfile.lock(paths.lock, {
    realpath: false,
    stale: START_TIMEOUT_MS,
    retries: { retries: 300, minTimeout: 50, maxTimeout: 200 },
  });
  try {
    // Another command may have started it while we waited for the lock: then there is one broker, not two.
    const raced = await dial(paths.socket);
    if (raced) return BrokerWire.open(raced);
    cleanUpAfter(paths);
    const spec: BrokerSpec = {
      name: options.name,
      descriptor: options.descriptor,
      ...(options.session ? { resume: options.session } : {}),
    };
    writeOwnFile(`${paths.meta}.spec`, JSON.stringify(spec)); // never through a link planted there
    const log = openLog(paths.log);
    // Detached and in a session of its own: closing the terminal that started it does not end it.
    const child = spawn(options.self[0], [...options.self.slice(1), "broker", key], {
      detached: true,
      stdio: ["ignore", log, log],
      env: options.env ?? process.env,
    });
    closeSync(log);
    let exited: number | null = null;
    child.on("exit", (code) => (exited = code ?? 1));
    child.unref();
    const until = options.clock.now() + START_TIMEOUT_MS;
    while (options.clock.now() < until) {
      const ready = await dial(paths.socket);
      if (ready) return BrokerWire.open(ready);
      if (exited !== null) break;
      await options.clock.sleep(50);
    }
    // The broker's own report, as the reason (its "mcp-task: error:" prefix, its repeat of what failed and its hint
    // are this error's own).
    const tail = logTail(paths.log)
      .trim()
      .split("\n")
      .filter((line) => !line.startsWith("hint:"))
      .slice(-3)
      .map((line) => line.replace(/^mcp-task: (error: )?/, "").replace(/^cannot start the server: /, ""))
      .join(" ");
    if (options.descriptor.transport === "http") {
      throw new ServerError(
        `cannot reach the session of ${options.name}${tail ? `: ${tail}` : ""}`,
        "check that the server is running and the URL is right",
      );
    }
    throw new ServerError(
      `cannot start the server ${options.name}${tail ? `: ${tail}` : ""}`,
      'check the command with: mcp-task tools --stdio "..."',
    );
  } finally {
    await release();
  }
}

/** Opens a broker's log for its stdio; a link or FIFO planted under its name is removed, never written through. */
function openLog(path: string): number {
  try {
    return openOwnAppend(path, MAX_BROKER_LOG_BYTES);
  } catch (error) {
    if (!(error instanceof UnsafeFileError)) throw error;
    rmSync(path, { force: true });
    return openOwnAppend(path, MAX_BROKER_LOG_BYTES);
  }
}

/** The end of a broker's log ("" when there is none, or it is not a file of ours). */
function logTail(path: string): string {
  try {
    return readOwnTail(path, BROKER_LOG_TAIL_BYTES);
  } catch {
    return "";
  }
}

/** Connects to a broker's socket; undefined when nobody listens there (no file, or a stale one). */
function dial(path: string): Promise<Socket | undefined> {
  return new Promise((resolve) => {
    if (!existsSync(path)) return resolve(undefined);
    const socket = netConnect(path);
    socket.once("connect", () => resolve(socket));
    socket.once("error", () => resolve(undefined));
  });
}

/**
 * After a broker that died without cleaning up: the stale socket, its record, and its server if it still runs. The
 * record's pids are acted on only while they are provably the broker's and the server's (processes.ts): a pid
 * handed out again since belongs to someone else, and a record without start times proves nothing.
 */
function cleanUpAfter(paths: BrokerPaths): void {
  try {
    const meta = JSON.parse(readOwnText(paths.meta, MAX_BROKER_RECORD_BYTES)) as BrokerMeta;
    if (!isRunning(meta.process)) signalIfSame(meta.server, "SIGTERM");
  } catch {
    /* no record */
  }
  rmSync(paths.socket, { force: true });
  rmSync(paths.meta, { force: true });
}

/** The Wire of a server behind a broker. */
class BrokerWire implements Wire {
  inputHandler?: InputHandler;
  serverPid?: number;
  generation!: Generation;
  protocolVersion!: string;
  serverName!: string;
  canListTasks!: boolean;
  handsQuestionsOnce?: boolean;
  onUncertainDelivery?: (delivery: UncertainDelivery) => void;
  onQuestionWithdrawn?: (taskId: string | null, request: InputRequest) => void;
  /** Questions being asked here, by the broker's id: aborted when the server withdraws one. */
  private readonly asking = new Map<number, AbortController>();
  onTaskMoved?: (taskId: string, token: ResumeToken) => Promise<void> | void;
  private resume!: ResumeToken;
  /** A moved task's token being saved: replies that follow it wait for it (as a direct wire awaits onTaskMoved). */
  private moving: Promise<void> = Promise.resolve();
  private next = 1;
  private readonly pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  private readonly listeners = new Map<(s: Snapshot) => void, Set<string>>();
  /** Tasks whose changes the server has confirmed it pushes (told by the broker). */
  private readonly confirmed = new Set<string>();
  private resolveClosed!: (error: Error) => void;
  readonly closed = new Promise<Error>((resolve) => (this.resolveClosed = resolve));

  private constructor(private readonly socket: Socket) {
    onMessages(socket, (message) => this.receive(message));
    socket.on("close", () => {
      const error = new ServerError("the connection to the server's broker closed (the broker or its server stopped)");
      for (const waiter of this.pending.values()) waiter.reject(error);
      this.pending.clear();
      this.resolveClosed(error);
    });
    socket.on("error", () => socket.destroy());
  }

  static async open(socket: Socket): Promise<BrokerWire> {
    const wire = new BrokerWire(socket);
    const hello = (await wire.call("hello")) as {
      generation: Generation;
      protocolVersion: string;
      serverName: string;
      canListTasks: boolean;
      resume: ResumeToken;
      serverPid?: number;
      handsQuestionsOnce?: boolean;
    };
    Object.assign(wire, {
      generation: hello.generation,
      protocolVersion: hello.protocolVersion,
      serverName: hello.serverName,
      canListTasks: hello.canListTasks,
      resume: hello.resume,
      serverPid: hello.serverPid,
      handsQuestionsOnce: hello.handsQuestionsOnce,
    });
    return wire;
  }

  private receive(message: Message): void {
    if ("method" in message && message.method === "snapshot") {
      const { snapshot, confirmed } = message.params as { snapshot: Snapshot; confirmed: boolean };
      if (confirmed) this.confirmed.add(snapshot.taskId);
      for (const [listener, ids] of this.listeners) if (ids.has(snapshot.taskId)) listener(snapshot);
    } else if ("method" in message && message.method === "uncertain") {
      const delivery = message.params as Omit<UncertainDelivery, "error"> & { error: never };
      this.onUncertainDelivery?.({ ...delivery, error: decodeError(delivery.error) });
    } else if ("method" in message && message.method === "withdrawn") {
      // The server stopped waiting for a question this command was given: stop asking, and say so.
      const { id, taskId, request } = message.params as { id: number; taskId: string | null; request: InputRequest };
      this.asking.get(id)?.abort();
      this.onQuestionWithdrawn?.(taskId, request);
    } else if ("method" in message && message.method === "moved") {
      // The broker's wire found a task in a new session (the server forgot the old one): its owner saves the token.
      const { taskId, token } = message.params as { taskId: string; token: ResumeToken };
      this.moving = Promise.resolve(this.onTaskMoved?.(taskId, token)).catch(() => {});
    } else if ("method" in message && message.method === "input" && "id" in message) {
      const { request, taskId } = message.params as { request: never; taskId: string | null };
      const asking = new AbortController();
      this.asking.set(message.id, asking);
      const answer = this.inputHandler
        ? this.inputHandler(request, taskId, asking.signal)
        : Promise.reject(new ServerError("no input handler"));
      void answer.finally(() => this.asking.delete(message.id)).catch(() => {});
      answer.then(
        (result) => send(this.socket, { id: message.id, result }),
        (error: unknown) => send(this.socket, { id: message.id, error: encodeError(error) }),
      );
    } else if ("id" in message) {
      const waiter = this.pending.get(message.id);
      if (!waiter) return;
      this.pending.delete(message.id);
      void this.moving.then(() => {
        if ("error" in message) waiter.reject(decodeError(message.error));
        else waiter.resolve((message as { result: unknown }).result);
      });
    }
  }

  /** One request to the broker. */
  call(method: string, params: Record<string, unknown> = {}, signal?: AbortSignal): Promise<unknown> {
    if (this.socket.destroyed) return Promise.reject(new ServerError("the server's broker is gone"));
    const id = this.next++;
    return new Promise((resolve, reject) => {
      // Stop waiting here; the broker finishes the request on its side.
      const onAbort = () => {
        if (this.pending.delete(id)) reject(signal!.reason);
      };
      // The listener goes with the request: a watch's signal sees thousands of reads.
      const done = () => signal?.removeEventListener("abort", onAbort);
      this.pending.set(id, {
        resolve: (value) => (done(), resolve(value)),
        reject: (error) => (done(), reject(error)),
      });
      signal?.addEventListener("abort", onAbort, { once: true });
      send(this.socket, { id, method, params });
    });
  }

  resumeToken(): ResumeToken {
    return this.resume;
  }
  async listTools(): Promise<ToolInfo[]> {
    return (await this.call("listTools")) as ToolInfo[];
  }
  async callTool(name: string, args: Record<string, unknown>, options: CallOptions): Promise<CallOutcome> {
    return (await this.call(
      "callTool",
      { name, args, options: { task: options.task, ttlMs: options.ttlMs } },
      options.signal,
    )) as CallOutcome;
  }
  async getTask(taskId: string, signal?: AbortSignal): Promise<Snapshot> {
    return (await this.call("getTask", { taskId }, signal)) as Snapshot;
  }
  async serviceInput(snapshot: Snapshot, options: ServiceInputOptions): Promise<string[]> {
    return (await this.call("serviceInput", { snapshot, answered: [...options.answered] }, options.signal)) as string[];
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

/** What `server ps` shows: the brokers that run, with what they say of themselves. */
export async function listBrokers(
  home: string,
): Promise<Array<BrokerMeta & { clients?: number; live?: number; uptimeMs?: number; responding: boolean }>> {
  const { readdirSync } = await import("node:fs");
  const dir = brokerPaths(home, "x").dir;
  const out = [];
  for (const name of readdirSync(dir).filter((n) => n.endsWith(".json"))) {
    const paths = brokerPaths(home, name.slice(0, -5));
    let meta: BrokerMeta;
    try {
      meta = JSON.parse(readOwnText(paths.meta, MAX_BROKER_RECORD_BYTES)) as BrokerMeta;
    } catch {
      continue;
    }
    if (typeof meta?.name !== "string" || !Number.isInteger(meta.pid)) continue; // not a record a broker wrote
    const socket = await dial(paths.socket);
    if (!socket) {
      out.push({ ...meta, responding: false });
      continue;
    }
    const wire = await BrokerWire.open(socket);
    try {
      const status = (await wire.call("status")) as { clients: number; live: number; uptimeMs: number };
      // This very connection counts as a client: leave it out.
      out.push({
        ...meta,
        clients: status.clients - 1,
        live: status.live,
        uptimeMs: status.uptimeMs,
        responding: true,
      });
    } finally {
      await wire.close();
    }
  }
  return out;
}

/** Asks a broker to stop (it stops its server). */
export async function stopBroker(home: string, key: string): Promise<boolean> {
  const socket = await dial(brokerPaths(home, key).socket);
  if (!socket) return false;
  const wire = await BrokerWire.open(socket);
  await wire.call("shutdown");
  await wire.close();
  return true;
}
