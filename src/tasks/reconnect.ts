// Reaching saved tasks' servers again from a later process (their V1 session where they have one; on stdio, the
// server's broker): one connection per server and session, shared by every task followed through it.
import type { Clock, Handle } from "../model.js";
import { McpTaskError, ServerError, TaskNotFoundError } from "../errors.js";
import { ttlEnd } from "./expiry.js";
import { descriptorKey, type ServerDescriptor } from "../protocol/server.js";
import { connectionScope, type ResumeToken, type Wire } from "../protocol/wire.js";
import { TaskEngine } from "./engine.js";
import { withdrawnNote, type InputProvider } from "./input.js";
import { saveMoves } from "./handle-events.js";
import { heldElsewhere } from "./away.js";
import type { TrackedTask } from "./tracker.js";
import type { WireTap } from "../protocol/trace.js";

/**
 * Why a stdio task whose broker is gone cannot be reached. What was recorded first stays the cause (the broker marks
 * the tasks it held when their server exits; the broker's last read, that the server no longer knows one), whatever
 * time has passed since; else, past the task's ttl, it has expired (the server may drop it then); else undefined.
 */
function lostWithBroker(handle: Handle, now: number, error: ServerError): McpTaskError | undefined {
  const { taskId, gone } = handle;
  if (gone)
    return gone.notFound
      ? new TaskNotFoundError(gone.reason, undefined, taskId)
      : new ServerError(gone.reason, error.hint, taskId);
  const end = ttlEnd({
    createdAt: handle.createdAt,
    taskCreatedAt: handle.last.createdAt ?? null,
    ttlMs: handle.ttlMs ?? null,
  });
  if (end === undefined || now <= end) return undefined;
  return new TaskNotFoundError(
    `task ${taskId} has expired: its ttl passed at ${new Date(end).toISOString()} before its outcome was read, and its server (with its broker) is gone`,
    undefined,
    taskId,
  );
}

/** What reaching a server needs of the context. */
export interface ReconnectContext {
  connect(
    server: ServerDescriptor,
    name?: string,
    how?: { resume?: ResumeToken; outlive?: boolean; sampling?: boolean },
  ): Promise<Wire>;
  clock: Clock;
  /** The jitter's source (Context.random; default Math.random). */
  random?: () => number;
  /** Hears the log messages of every server reached (the dashboard's detail view). */
  wireTap?: WireTap;
}

export interface Link {
  readonly wire: Wire;
  readonly engine: TaskEngine;
}

/**
 * The connections of the saved tasks a command follows: one per server (per V1 session: its tasks are bound to it),
 * opened on first use. `note` hears, in a line for the user, when a task is found in a new session (the server forgot
 * the old one) and its handle moves to it, and when the server withdraws a question.
 */
export class ServerLinks {
  private readonly links = new Map<string, Promise<Link>>();
  private readonly tracked = new Map<string, TrackedTask>();

  constructor(
    private readonly ctx: ReconnectContext,
    private readonly input: InputProvider,
    private readonly note?: (text: string) => void,
  ) {}

  /** The connection and engine that reach `tracked`'s task (followed through it: its moves are saved). */
  async linkFor(tracked: TrackedTask): Promise<Link> {
    const { server } = tracked.handle;
    this.tracked.set(`${descriptorKey(server.descriptor)}|${tracked.taskId}`, tracked);
    return this.linkOf(tracked);
  }

  /** No longer follows `tracked` (its moves are not saved through these connections any more). */
  release(tracked: TrackedTask): void {
    this.tracked.delete(`${descriptorKey(tracked.handle.server.descriptor)}|${tracked.taskId}`);
  }

  /** The connection for new calls to `server` (their tasks outlive the command: see Context.connect). */
  linkTo(server: { name: string; descriptor: ServerDescriptor }): Promise<Link> {
    return this.shared(`${descriptorKey(server.descriptor)}|`, server.name, () =>
      this.ctx.connect(server.descriptor, server.name, { outlive: true }),
    );
  }

  /** The connection that reaches a saved task (`tracked`: to mark it gone when its stdio broker is). */
  async linkOf(tracked: TrackedTask | { handle: Handle; markGone?: undefined }): Promise<Link> {
    const { server, resume } = tracked.handle;
    // A stdio task imported from another home runs in that home's broker: said, never marked gone (away.ts).
    const away = heldElsewhere(tracked.handle);
    if (away) throw away;
    try {
      return await this.shared(`${descriptorKey(server.descriptor)}|${connectionScope(resume)}`, server.name, () =>
        this.ctx.connect(server.descriptor, server.name, { resume, sampling: this.input.sampling }),
      );
    } catch (error) {
      // A stdio task whose broker (and so its server) is gone, and whose outcome the broker did not write, is lost:
      // record it on the handle. (A broker writes the outcome of every task it held before it leaves.) Where the
      // server had said it no longer knows the task, or its ttl has passed, that is what this command says too.
      if (server.descriptor.transport === "stdio" && error instanceof ServerError && !tracked.handle.outcome) {
        const lost = lostWithBroker(tracked.handle, this.ctx.clock.now(), error);
        if (!tracked.handle.gone) await tracked.markGone?.((lost ?? error).message, Boolean(lost)).catch(() => {});
        if (lost) throw lost;
      }
      // The error is about this task (`get --json` names it in its error line).
      if (error instanceof McpTaskError && error.taskId === null) error.taskId = tracked.handle.taskId;
      throw error;
    }
  }

  /** One connection per key, opened on first use; one that failed is opened again by the next that needs it. */
  private shared(key: string, name: string, connect: () => Promise<Wire>): Promise<Link> {
    let link = this.links.get(key);
    if (!link) {
      const serverKey = key.slice(0, key.indexOf("|"));
      link = connect().then((wire) => this.engineOver(wire, serverKey, name));
      this.links.set(key, link);
      link.catch(() => this.links.delete(key));
    }
    return link;
  }

  /** Closes every connection opened. */
  async close(): Promise<void> {
    const links = [...this.links.values()];
    this.links.clear();
    await Promise.all(links.map((link) => link.then((l) => l.wire.close()).catch(() => {})));
  }

  private engineOver(wire: Wire, serverKey: string, name: string): Link {
    saveMoves(wire, (taskId) => this.tracked.get(`${serverKey}|${taskId}`), this.note);
    wire.on("questionWithdrawn", (_taskId, request) => this.note?.(withdrawnNote(request)));
    const tap = this.ctx.wireTap;
    if (tap?.log) wire.on("log", (log) => tap.log!(name, log, new Date(this.ctx.clock.now())));
    // A broker's connection is traced there: its trace comes over (the dashboard's wire view of a V1 task).
    if (tap && wire.broker) void wire.broker.watchWire((event) => tap.write(event)).catch(() => {});
    return { wire, engine: new TaskEngine(wire, this.ctx.clock, this.input, this.ctx.random) };
  }
}

/** Reconnects to one opened task's server (see ServerLinks); closing the wire closes the connection. */
export async function reconnect(
  tracked: TrackedTask,
  ctx: ReconnectContext,
  input: InputProvider,
  note?: (text: string) => void,
): Promise<Link> {
  return new ServerLinks(ctx, input, note).linkFor(tracked);
}
