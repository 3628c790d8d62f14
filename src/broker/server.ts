// The broker: a background process that owns one stdio server and its single MCP connection, so that the
// server's tasks outlive the command that started them. mcp-task commands reach it over a Unix socket in the
// private directory and see the same Wire they would see directly. It follows the tasks it knows (to learn when
// they end), routes the server's questions to the command that asks for them (holding them while nobody does),
// records a crash of its server on the affected handles, and leaves when it is idle.
import { chmodSync, existsSync, rmSync } from "node:fs";
import { MAX_BROKER_RECORD_BYTES } from "../limits.js";
import { readOwnText, writeOwnFile } from "../store/safe-fs.js";
import { createServer, type Socket } from "node:net";
import type { Context } from "../context.js";
import type { ServerDescriptor } from "../protocol/server.js";
import {
  isTerminal,
  questionKeeperOf,
  type InputRequest,
  type InputResponse,
  type ResumeToken,
  type Snapshot,
  type Wire,
} from "../protocol/wire.js";
import { pollInterval } from "../protocol/checks.js";
import { TrackedTask } from "../tasks/tracker.js";
import { ttlEnd } from "../tasks/expiry.js";
import { Recorder } from "../tasks/recorder.js";
import { HELD_CALL_QUESTION_MS, MAX_BROKER_FOLLOW_MS } from "../limits.js";
import { decodeError, encodeError, onMessages, send, type Message } from "./protocol.js";
import { brokerKey, brokerPaths, sessionBrokerKey, type BrokerMeta } from "./paths.js";
import { isRunning, refOf, signalIfSame, type ProcessRef } from "./processes.js";

export interface BrokerSpec {
  name: string;
  descriptor: ServerDescriptor;
  /** A keeper of one session (V1 over HTTP): reconnect to it with this token, never with a new initialize. */
  resume?: ResumeToken;
}

interface Client {
  socket: Socket;
  watching: Set<string>;
}

interface PendingInput {
  id: number;
  request: InputRequest;
  taskId: string | null;
  resolve(response: InputResponse): void;
  reject(error: Error): void;
  assigned?: Client;
  /** Commands that could not answer it (no --input, one that did not fit, Esc...): it is not handed to them again. */
  refused: Set<Client>;
  /** Asked while a call was on its way (taskId null): it belongs to the task that call creates. */
  during?: Promise<unknown>;
}

const DEFAULT_GRACE_MS = 30_000;

/** SIGTERM, then SIGKILL after two seconds, until the process is gone (signalled only while it is that process). */
async function ensureExited(ref: ProcessRef | undefined, ctx: Context): Promise<void> {
  for (const [signal, waitMs] of [
    ["SIGTERM", 2000],
    ["SIGKILL", 1000],
  ] as const) {
    if (!signalIfSame(ref, signal)) return;
    const until = ctx.clock.now() + waitMs;
    while (isRunning(ref) && ctx.clock.now() < until) await ctx.clock.sleep(50);
  }
}

export async function runBroker(ctx: Context, key: string, graceMs = DEFAULT_GRACE_MS): Promise<number> {
  const paths = brokerPaths(ctx.home, key);
  const spec = JSON.parse(readOwnText(`${paths.meta}.spec`, MAX_BROKER_RECORD_BYTES)) as BrokerSpec;
  const keeper = spec.resume && questionKeeperOf(spec.resume);
  if ((keeper !== undefined ? sessionBrokerKey(spec.descriptor, keeper) : brokerKey(spec.descriptor)) !== key)
    throw new Error("the broker spec does not match its key");
  // `direct`: this process is the one that holds the connection (a kept session is resumed, not initialized again).
  const wire: Wire = await ctx.connect(spec.descriptor, spec.name, { resume: spec.resume, direct: true });
  const meta: BrokerMeta = {
    key,
    name: spec.name,
    descriptor: spec.descriptor,
    pid: process.pid,
    serverPid: wire.serverPid,
    process: refOf(process.pid),
    server: refOf(wire.serverPid),
    startedAt: new Date(ctx.clock.now()).toISOString(),
  };

  const clients = new Set<Client>();
  const known = new Map<string, Snapshot | undefined>();
  const owners = new Map<string, Client>();
  const pending: PendingInput[] = [];
  let caller: Client | undefined;
  let nextInput = 1;
  let idleSince = ctx.clock.now();
  let stopping = false;
  const stop = new AbortController();

  // The broker owns its tasks: what it sees of them is written onto their handles (tasks/recorder.ts), so that
  // their outcomes outlive it. It stays while a task runs (within the task's ttl and MAX_BROKER_FOLLOW_MS) or an
  // outcome is still to be written.
  const recorder = new Recorder(wire, ctx.tracker.store, ctx.clock, spec.descriptor);
  // An answer whose delivery is in doubt (the connection failed on its way): the command that gave it settles it.
  wire.onUncertainDelivery = (delivery) => {
    const owner = owners.get(delivery.taskId);
    if (owner && clients.has(owner))
      send(owner.socket, { method: "uncertain", params: { ...delivery, error: encodeError(delivery.error) } });
  };
  // A kept session's task found in a new session (the server forgot the old one): the commands attached save it.
  wire.onTaskMoved = (taskId, token) => {
    for (const client of clients) send(client.socket, { method: "moved", params: { taskId, token } });
  };
  const firstSeen = new Map<string, number>();
  const running = (snapshot: Snapshot | undefined, taskId: string) => {
    if (snapshot && isTerminal(snapshot.status)) return false;
    const now = ctx.clock.now();
    const since = firstSeen.get(taskId) ?? now;
    if (now - since > MAX_BROKER_FOLLOW_MS) return false;
    // The ttl counts as on the handle (tasks/expiry.ts): from the server's createdAt where it is believable.
    const end = ttlEnd({
      createdAt: new Date(since).toISOString(),
      taskCreatedAt: snapshot?.createdAt ?? null,
      ttlMs: snapshot?.ttlMs ?? null,
    });
    return !(end !== undefined && now > end);
  };
  const live = () => [...known].filter(([taskId, s]) => running(s, taskId)).length + recorder.pending;

  // The server's questions go to the command that asked for the task's input (or made the call); while no command
  // is there, they wait here, so that a later `respond` can still answer them.
  //
  // A question is answered or withdrawn by the server, never dropped here: a command that cannot answer it (it
  // answers with an error) leaves it waiting for the next one, and the task reads as input_required meanwhile (heldFor).
  const assign = (input: PendingInput) => {
    if (input.assigned && clients.has(input.assigned)) return;
    const target = input.taskId ? owners.get(input.taskId) : caller;
    input.assigned = target && clients.has(target) && !input.refused.has(target) ? target : undefined;
    if (input.assigned)
      send(input.assigned.socket, {
        id: -input.id,
        method: "input",
        params: { request: input.request, taskId: input.taskId },
      });
  };
  const calls = new Set<Promise<unknown>>();
  wire.inputHandler = (request, taskId, signal) =>
    new Promise<InputResponse>((resolve, reject) => {
      // A question without its task's id (servers that elicit during a task without the related-task metadata)
      // belongs to the task a call on its way creates, else to the newest running task this broker holds.
      const during = taskId === null ? [...calls].at(-1) : undefined;
      const input: PendingInput = {
        id: nextInput++,
        request,
        taskId: taskId ?? (during ? null : newestRunning()),
        resolve,
        reject,
        refused: new Set(),
        during,
      };
      pending.push(input);
      signal?.addEventListener(
        "abort",
        () => {
          // The server withdrew it (it gave up waiting: its own timeout): said once in the log; the task's next state
          // is the server's to tell.
          const at = pending.indexOf(input);
          if (at >= 0) pending.splice(at, 1);
          if (input.assigned && clients.has(input.assigned))
            send(input.assigned.socket, {
              method: "withdrawn",
              params: { id: -input.id, taskId: input.taskId, request: input.request },
            });
          ctx.io.stderr.write(
            `mcp-task broker: the server withdrew a question${input.taskId ? ` of task ${input.taskId}` : ""} before it was answered (it stopped waiting for the answer)\n`,
          );
          reject(new Error("question withdrawn"));
        },
        { once: true },
      );
      assign(input);
    });
  const newestRunning = (): string | null => {
    let best: { taskId: string; at: number } | undefined;
    for (const [taskId, snapshot] of known) {
      const at = firstSeen.get(taskId) ?? 0;
      if (running(snapshot, taskId) && (!best || at >= best.at)) best = { taskId, at };
    }
    return best?.taskId ?? null;
  };
  /** A task with a question held here waits for input, whatever the server's status says (it may not say so). */
  const heldFor = (snapshot: Snapshot): Snapshot =>
    snapshot.status === "working" && pending.some((input) => input.taskId === snapshot.taskId)
      ? { ...snapshot, status: "input_required" }
      : snapshot;

  /** A snapshot seen (from a command's request, the broker's own reading or a push): kept, and written down. */
  const seen = (snapshot: Snapshot) => {
    if (!firstSeen.has(snapshot.taskId)) firstSeen.set(snapshot.taskId, ctx.clock.now());
    known.set(snapshot.taskId, snapshot);
    void recorder.record(snapshot);
    if (isTerminal(snapshot.status)) idleSince = ctx.clock.now();
  };
  const remember = (snapshot: Snapshot) => {
    seen(snapshot);
    if (!isTerminal(snapshot.status)) void follow(snapshot.taskId);
  };
  const broadcast = (given: Snapshot) => {
    const snapshot = heldFor(given);
    seen(snapshot);
    // Whether the server has confirmed it pushes this task's changes travels with each update, so that a command
    // behind the broker relaxes its polling as it would on a direct connection.
    const confirmed = wire.pushConfirmed?.(snapshot.taskId) ?? false;
    for (const client of clients)
      if (client.watching.has(snapshot.taskId))
        send(client.socket, { method: "snapshot", params: { snapshot, confirmed } });
  };
  // The broker's own, unhurried reading of a task: enough to know when it ends (and so when to leave).
  const followed = new Set<string>();
  const follow = async (taskId: string) => {
    if (followed.has(taskId)) return;
    followed.add(taskId);
    void wire.watchNotifications([taskId], broadcast).catch(() => {});
    while (!stop.signal.aborted) {
      const last = known.get(taskId);
      if ((last && isTerminal(last.status)) || !running(last, taskId)) return;
      // At least 5 s apart, and never slower than MAX_POLL_INTERVAL_MS (the interval as parsed is clamped already).
      await ctx.clock.sleep(Math.max(pollInterval(last?.pollIntervalMs) ?? 1000, 5000), stop.signal);
      if (stop.signal.aborted) return;
      try {
        const snapshot = heldFor(await wire.getTask(taskId));
        if (snapshot.status !== known.get(taskId)?.status) broadcast(snapshot);
        else seen(snapshot);
      } catch {
        // Unknown to the server (or it fails to answer): no longer followed, and no longer keeping the broker up.
        firstSeen.set(taskId, -MAX_BROKER_FOLLOW_MS);
        return;
      }
    }
  };

  const handlers: Record<string, (client: Client, params: Record<string, unknown>) => Promise<unknown>> = {
    hello: async () => ({
      generation: wire.generation,
      protocolVersion: wire.protocolVersion,
      serverName: wire.serverName,
      canListTasks: wire.canListTasks,
      resume: wire.resumeToken(),
      serverPid: wire.serverPid,
      handsQuestionsOnce: wire.handsQuestionsOnce,
    }),
    listTools: async () => wire.listTools(),
    callTool: async (client, p) => {
      caller = client;
      const call = wire.callTool(String(p.name), (p.args ?? {}) as Record<string, unknown>, p.options as never);
      calls.add(call);
      try {
        const outcome = await call;
        if (outcome.kind === "task") {
          // Questions asked while the call was on its way are this task's.
          for (const input of pending) if (input.during === call) input.taskId = outcome.snapshot.taskId;
          owners.set(outcome.snapshot.taskId, client);
          remember(outcome.snapshot);
        }
        return outcome;
      } finally {
        calls.delete(call);
        for (const input of pending) if (input.during === call) input.during = undefined;
      }
    },
    getTask: async (_client, p) => {
      const snapshot = heldFor(await wire.getTask(String(p.taskId)));
      remember(snapshot);
      return snapshot;
    },
    serviceInput: async (client, p) => {
      const snapshot = p.snapshot as Snapshot;
      owners.set(snapshot.taskId, client);
      // Asking for the task's input again: this command may be given what it could not answer before.
      for (const input of pending) if (input.taskId === snapshot.taskId) (input.refused.delete(client), assign(input));
      return wire.serviceInput(snapshot, { answered: new Set((p.answered ?? []) as string[]) });
    },
    cancelTask: async (_client, p) => wire.cancelTask(String(p.taskId)) ?? null,
    listTasks: async (_client, p) => wire.listTasks(p.cursor as string | undefined),
    watch: async (client, p) => {
      for (const taskId of p.taskIds as string[]) {
        client.watching.add(taskId);
        if (!known.has(taskId)) known.set(taskId, undefined);
        void follow(taskId);
      }
      return { confirmed: (p.taskIds as string[]).filter((taskId) => wire.pushConfirmed?.(taskId)) };
    },
    unwatch: async (client, p) => {
      for (const taskId of p.taskIds as string[]) client.watching.delete(taskId);
      return null;
    },
    status: async () => ({
      ...meta,
      clients: clients.size,
      tasks: known.size,
      live: live(),
      uptimeMs: ctx.clock.now() - Date.parse(meta.startedAt),
    }),
    shutdown: async () => {
      setImmediate(() => void shutdown(0));
      return null;
    },
  };

  const server = createServer((socket) => {
    const client: Client = { socket, watching: new Set() };
    clients.add(client);
    onMessages(socket, (message: Message) => {
      if ("method" in message && "id" in message) {
        const handler = handlers[message.method];
        if (!handler)
          return send(socket, {
            id: message.id,
            error: { name: "ProtocolViolation", message: `unknown broker method ${message.method}` },
          });
        handler(client, (message.params ?? {}) as Record<string, unknown>).then(
          (result) => send(socket, { id: message.id, result: result ?? null }),
          (error: unknown) => send(socket, { id: message.id, error: encodeError(error) }),
        );
      } else if ("id" in message && message.id < 0) {
        // The client's answer to an input request.
        const at = pending.findIndex((input) => input.id === -message.id);
        if (at < 0) return;
        const input = pending[at];
        if ("error" in message) {
          const refuse = () => {
            const still = pending.indexOf(input);
            if (still >= 0) pending.splice(still, 1);
            input.reject(decodeError(message.error));
          };
          // A server that lists its questions until they are answered (V2) is told at once: it asks again.
          if (!wire.handsQuestionsOnce) return refuse();
          // The command cannot answer (no --input, an answer that does not fit, Esc, --detach): the question stays
          // here for the next command that asks for the task's input; the server is not told anything.
          input.refused.add(client);
          input.assigned = undefined;
          const call = input.during;
          if (!call) return assign(input);
          // Asked while its call was on its way: kept once the call has made a task; a call that ends without one,
          // or whose reply the server holds back for this answer, is the server's to hear about.
          const settled = call.then(
            () => {},
            () => {},
          );
          void Promise.race([settled, ctx.clock.sleep(HELD_CALL_QUESTION_MS)]).then(() =>
            input.taskId === null ? refuse() : assign(input),
          );
          return;
        }
        pending.splice(at, 1);
        input.resolve((message as { result: InputResponse }).result);
      }
    });
    socket.on("close", () => {
      clients.delete(client);
      if (caller === client) caller = undefined;
      for (const [taskId, owner] of owners) if (owner === client) owners.delete(taskId);
      // Questions this client did not answer wait for the next one.
      for (const input of pending) if (input.assigned === client) input.assigned = undefined;
      idleSince = ctx.clock.now();
    });
    socket.on("error", () => socket.destroy());
  });

  async function shutdown(code: number): Promise<void> {
    if (stopping) return;
    stopping = true;
    stop.abort();
    server.close();
    for (const client of clients) client.socket.destroy();
    rmSync(paths.socket, { force: true });
    rmSync(paths.meta, { force: true });
    rmSync(`${paths.meta}.spec`, { force: true });
    // The SDK's close waits on timers that do not keep a process alive, so this process could end mid-close and a
    // server that ignores the end of its input (server-everything does, with a question pending) would outlive
    // its broker. A pending sleep keeps the process alive until the server is surely gone.
    const hold = new AbortController();
    void ctx.clock.sleep(15_000, hold.signal);
    await recorder.flush().catch(() => {});
    await wire.close();
    await ensureExited(meta.server, ctx);
    hold.abort();
    finish(code);
  }
  let finish: (code: number) => void = () => {};
  const done = new Promise<number>((resolve) => (finish = resolve));

  // The server died: the tasks it was running are lost; say so on their handles, then leave.
  void wire.closed.then(async (reason) => {
    if (stopping) return;
    const message = `the server exited while the task was running: ${reason.message}`;
    for (const [taskId, snapshot] of known) {
      if (snapshot && isTerminal(snapshot.status)) continue;
      try {
        const { stem, handle } = await ctx.tracker.store.find(taskId);
        if (handle.taskId === taskId && brokerKey(handle.server.descriptor) === key)
          await new TrackedTask(ctx.tracker.store, ctx.clock, stem, handle).markGone(message);
      } catch {
        /* no saved handle for it */
      }
    }
    await shutdown(1);
  });

  rmSync(paths.socket, { force: true });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(paths.socket, () => resolve());
  });
  chmodSync(paths.socket, 0o600);
  writeOwnFile(paths.meta, JSON.stringify(meta));

  void (async () => {
    while (!stop.signal.aborted) {
      await ctx.clock.sleep(Math.min(1000, graceMs), stop.signal);
      // Its socket or its home removed (the store deleted, a test's home cleaned up): nobody can reach it any more.
      if (!existsSync(paths.socket)) await shutdown(0);
      if (clients.size === 0 && live() === 0 && ctx.clock.now() - idleSince >= graceMs) await shutdown(0);
    }
  })();
  ctx.interrupt.addEventListener("abort", () => void shutdown(0), { once: true });
  if (ctx.interrupt.aborted) void shutdown(0);
  return done;
}
