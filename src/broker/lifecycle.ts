// A broker's life once it listens: it leaves after its grace once no command is attached, no task runs, no call of a
// command's is without its reply and every outcome is written (or at once when its socket is removed, or on an interrupt), and
// when its server dies (after saying so on the handles of the tasks that server was running). Leaving removes its
// socket and records and stops its server for sure.
import { existsSync, rmSync } from "node:fs";
import type { Server } from "node:net";
import type { Context } from "../context.js";
import { BROKER_START_WAIT_MS } from "../limits.js";
import type { Wire } from "../protocol/wire.js";
import type { BrokerMeta, BrokerPaths } from "./paths.js";
import { isRunning, signalIfSame, type ProcessRef } from "./processes.js";
import { encodeError, send } from "./protocol.js";
import type { Client } from "./attached.js";
import type { HeldTasks } from "./tasks.js";

export interface Running {
  server: Server;
  wire: Wire;
  meta: BrokerMeta;
  clients: Set<Client>;
  tasks: HeldTasks;
  /** Aborted when the broker starts to leave: its own following of tasks stops. */
  stop: AbortController;
  /** The commands' requests being handled (requests.ts). */
  answering: Set<Promise<void>>;
  /** The commands' tools/call requests still without their reply (a command may have left them to the broker). */
  calling: ReadonlySet<unknown>;
  /** The tasks whose questions it holds (questions.ts): dropped as it leaves, and said so on their handles. */
  held?: () => string[];
  /** The command that started it (BrokerSpec.starter): its grace waits for that command while it may come. */
  starter?: ProcessRef;
}

/** How long a broker whose server died waits for the requests that death failed to be answered. */
const ANSWER_BEFORE_LEAVING_MS = 2000;

/** SIGTERM, then SIGKILL after two seconds, until the process is gone (signalled only while it is that process). */
async function ensureExited(ref: ProcessRef | undefined, ctx: Context): Promise<void> {
  for (const [signal, waitMs] of [
    ["SIGTERM", 2000],
    ["SIGKILL", 1000],
  ] as const) {
    if (!signalIfSame(ref, signal)) return;
    const until = ctx.clock.monotonic() + waitMs;
    while (isRunning(ref) && ctx.clock.monotonic() < until) await ctx.clock.sleep(50);
  }
}

export class Lifecycle {
  private stopping = false;
  /** Why its server exited, once it did: said to every command attached as the broker leaves (shutdown). */
  private serverExit?: Error;
  /** When it began listening (monotonic), and whether any command has reached it since. */
  private readonly startedAt: number;
  reached = false;
  private finish: (code: number) => void = () => {};
  /** The broker's exit code, once it has left. */
  readonly done = new Promise<number>((resolve) => (this.finish = resolve));

  constructor(
    private readonly ctx: Context,
    private readonly paths: BrokerPaths,
    private readonly key: string,
    private readonly running: Running,
  ) {
    this.startedAt = ctx.clock.monotonic();
    running.server.once("connection", () => (this.reached = true));
  }

  /**
   * Until a command has reached it, it waits for the one that started it (on its way: a loaded machine may take
   * seconds to attach), whatever its grace, while that command runs and for as long as it waits for a broker
   * (BROKER_START_WAIT_MS). A short MCP_TASK_BROKER_GRACE, or load, let it leave first, and the command said "its
   * broker exited without saying why" (exit 4).
   */
  private awaitingStarter(): boolean {
    if (this.reached || this.ctx.clock.monotonic() - this.startedAt >= BROKER_START_WAIT_MS) return false;
    return isRunning(this.running.starter);
  }

  async shutdown(code: number, why = "the keeper that held it stopped"): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    const { server, clients, tasks, wire, meta, stop } = this.running;
    // The questions it holds go with it (a V1 server hands each over once): said on their tasks' handles first, so
    // that a later respond or watch says so at once instead of waiting for them (src/tasks/away.ts).
    const held = this.running.held?.() ?? [];
    stop.abort();
    await tasks.markDropped(held, why);
    server.close();
    // Every attached command hears why its server exited before its connection ends, those that attached after the
    // death too (a command between two of its connections): the exit status and stderr tail its own error line
    // shows (BrokerWire.goneError), as a later `get` shows them from the handle. Ended, not destroyed: what was
    // written reaches it first.
    for (const client of clients) {
      if (this.serverExit)
        send(client.socket, { method: "serverExited", params: { error: encodeError(this.serverExit) } });
      client.socket.end();
    }
    rmSync(this.paths.socket, { force: true });
    rmSync(this.paths.meta, { force: true });
    rmSync(`${this.paths.meta}.spec`, { force: true });
    // The SDK's close waits on timers that do not keep a process alive, so this process could end mid-close and a
    // server that ignores the end of its input (server-everything does, with a question pending) would outlive
    // its broker. A pending sleep keeps the process alive until the server is surely gone.
    const hold = new AbortController();
    void this.ctx.clock.sleep(15_000, hold.signal);
    await tasks.flush().catch(() => {});
    await wire.close();
    await ensureExited(meta.server, this.ctx);
    for (const client of clients) client.socket.destroy();
    hold.abort();
    this.finish(code);
  }

  /** The server died: the tasks it was running are lost; say so on their handles, then leave. */
  leaveWithServer(): void {
    void this.running.wire.closed.then(async (reason) => {
      if (this.stopping) return;
      await this.running.tasks.markLost(reason, this.key);
      // The commands' requests that the death failed are answered first (after these marks: HeldTasks.settled).
      const stop = new AbortController();
      await Promise.race([
        Promise.allSettled(this.running.answering),
        this.ctx.clock.sleep(ANSWER_BEFORE_LEAVING_MS, stop.signal),
      ]);
      stop.abort();
      this.serverExit = reason;
      await this.shutdown(1);
    });
  }

  /** Leaves once idle for `graceMs`, when its socket is removed, or on an interrupt. */
  leaveWhenIdle(graceMs: number): void {
    const { clients, tasks, stop, calling } = this.running;
    void (async () => {
      while (!stop.signal.aborted) {
        await this.ctx.clock.sleep(Math.min(1000, graceMs), stop.signal);
        // Its socket or its home removed (the store deleted, a test's home cleaned up): nobody can reach it any more.
        if (!existsSync(this.paths.socket)) await this.shutdown(0);
        // A call still without its reply keeps it too: one whose command left may yet create a task, which the
        // broker saves and follows (requests.ts). Only calls: another request a command left (a V1 tasks/result,
        // which waits for the task's end) must not hold a broker past its tasks' ttl.
        const idle = clients.size === 0 && tasks.live() === 0 && calling.size === 0;
        if (idle && !this.awaitingStarter() && this.ctx.clock.monotonic() - tasks.idleSince >= graceMs)
          await this.shutdown(0);
      }
    })();
    this.ctx.interrupt.addEventListener("abort", () => void this.shutdown(0), { once: true });
    if (this.ctx.interrupt.aborted) void this.shutdown(0);
  }
}
