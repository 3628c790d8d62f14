// The broker's side of its socket: what each request of a command does with the wire, the tasks and the questions
// the broker holds, and the connection of each command (its requests, its answers to questions, its leaving).
import { createServer, type Server } from "node:net";
import type { Clock } from "../context.js";
import type { CallOptions, Progress, Snapshot, Wire } from "../protocol/wire.js";
import { isLogLevel } from "../protocol/logging.js";
import type { BrokerMeta } from "./paths.js";
import { encodeError, onMessages, send, type Message } from "./protocol.js";
import type { Client } from "./attached.js";
import type { Answer, Questions } from "./questions.js";
import type { HeldTasks } from "./tasks.js";
import { sentTo } from "./holders.js";
import { SentQuestions } from "./sent-questions.js";
import type { Holders } from "./holders.js";
import { helloOf, holderOf } from "./hello.js";
import { requestScope, type TraceRelay } from "./relay.js";
import { schemaProblem } from "../tasks/schema.js";

export interface BrokerParts {
  wire: Wire;
  clock: Clock;
  meta: BrokerMeta;
  clients: Set<Client>;
  tasks: HeldTasks;
  questions: Questions;
  /** Marks the questions another command holds on what each command is sent (holders.ts). */
  holders?: Holders;
  relay: TraceRelay;
  /** Stops the broker (its server with it); `why`: what the handles of the questions it drops say. */
  shutdown(why?: string): void;
  /** The commands' requests being handled, until answered (a broker whose server died answers them, then leaves). */
  answering: Set<Promise<void>>;
}

/** A request's handler: its result, or a function that makes it as the reply is written (see getTask). */
type Handler = (client: Client, params: Record<string, unknown>) => Promise<unknown>;

/** A command's tools/call in flight (until its reply is in: then it is on its way to the command): abandoned or not. */
interface CallState {
  abandoned: boolean;
}
/** The calls in flight of each command, by the id the command gave its request. */
type Calls = WeakMap<Client, Map<number, CallState>>;

/**
 * A command's tools/call, through the broker's connection. Where its reply makes a task and the command is gone, or
 * abandoned the call before the reply (abandonCall), the broker saves the task's handle: the command never will.
 */
async function callTool(
  parts: BrokerParts,
  calls: Calls,
  client: Client,
  p: Record<string, unknown>,
): Promise<unknown> {
  const { wire, tasks, questions, clients } = parts;
  const state: CallState = { abandoned: false };
  const callId = typeof p.callId === "number" ? p.callId : undefined;
  if (callId !== undefined) {
    if (!calls.has(client)) calls.set(client, new Map());
    calls.get(client)!.set(callId, state);
  }
  // Progress of the call (and of its task, where the token lasts) goes to the command that made it, and once
  // there is a task onto its handle (the command may have left: --detach, Ctrl-C), so a later watch shows it.
  const progressId = typeof p.progressId === "number" ? p.progressId : undefined;
  let taskId: string | undefined;
  const onProgress = (progress: Progress) => {
    if (progressId !== undefined) send(client.socket, { method: "progress", params: { progressId, progress } });
    if (taskId !== undefined) tasks.progressed(taskId, progress);
  };
  const options = { ...(p.options as CallOptions), onProgress };
  const args = (p.args ?? {}) as Record<string, unknown>;
  const call = wire.callTool(String(p.name), args, options);
  questions.calls.set(call, client);
  try {
    const outcome = await call.finally(() => {
      // From here the reply goes to the command (abandonCall says so): decided in the same turn as it is sent.
      if (callId !== undefined) calls.get(client)?.delete(callId);
    });
    if (outcome.kind === "task") {
      taskId = outcome.snapshot.taskId;
      questions.madeTask(call, outcome.snapshot.taskId, client);
      const gone = !clients.has(client);
      if (gone) questions.owners.delete(taskId);
      // Saved before it is remembered: the outcome the broker records then has its handle.
      if (gone || state.abandoned)
        await tasks.saveAbandoned(p.owner as CallOptions["owner"], String(p.name), args, outcome.snapshot);
      tasks.remember(outcome.snapshot);
    }
    return outcome;
  } finally {
    questions.callEnded(call);
  }
}

/**
 * A command stops waiting for its call (Ctrl-C, --timeout, past the wait for the reply): taken over when the reply
 * is still to come (the broker saves the task it makes), else not (the reply is on its way to the command).
 */
function abandonCall(calls: Calls, client: Client, p: Record<string, unknown>): { taken: boolean } {
  const state = calls.get(client)?.get(Number(p.callId));
  if (!state) return { taken: false };
  state.abandoned = true;
  return { taken: true };
}

function requestHandlers(parts: BrokerParts): Record<string, Handler> {
  const { wire, tasks, questions, clients, meta, clock } = parts;
  const calls: Calls = new WeakMap();
  return {
    // A command that puts stubs of questions back (sent-questions.ts) says so; one of an older build is sent them whole.
    // It says who it is too (hello.ts Attaching), for the others following a task whose question it holds.
    hello: async (client, p) => {
      if (p.sentQuestions === true) client.sentQuestions ??= new SentQuestions();
      client.who = holderOf(p);
      return helloOf(wire);
    },
    listTools: async () => wire.listTools(),
    schemaProblem: async (_client, p) =>
      (await schemaProblem(p.schema as Record<string, unknown>, p.value, String(p.what))) ?? null,
    callTool: (client, p) => callTool(parts, calls, client, p),
    abandonCall: async (client, p) => abandonCall(calls, client, p),
    getTask: async (client, p) => {
      const taskId = String(p.taskId);
      // One reader per task: a read on its way, or one just made, is this command's too (reads.ts).
      const snapshot = questions.heldFor(await tasks.reads.read(taskId, () => wire.getTask(taskId)));
      tasks.remember(snapshot);
      // Made as the reply is written: in the order the command reads it, among the pushes (sent-questions.ts).
      return () => sentTo(client, snapshot, parts.holders);
    },
    serviceInput: async (client, p) => {
      const snapshot = p.snapshot as Snapshot;
      questions.askedBy(client, snapshot.taskId);
      // What was read before the answers went is stale once they have (reads.ts).
      return wire
        .serviceInput(snapshot, { answered: new Set((p.answered ?? []) as string[]) })
        .finally(() => tasks.reads.stale(snapshot.taskId));
    },
    tapWire: async (client) => ((client.tapped = true), null),
    cancelTask: async (_client, p) =>
      (await wire.cancelTask(String(p.taskId)).finally(() => tasks.reads.stale(String(p.taskId)))) ?? null,
    setLogLevel: async (_client, p) => (isLogLevel(p.level) ? ((await wire.setLogLevel?.(p.level)) ?? false) : false),
    listTasks: async (_client, p) => wire.listTasks(p.cursor as string | undefined),
    watch: async (client, p) => {
      tasks.watch(client, p.taskIds as string[]);
      return { confirmed: (p.taskIds as string[]).filter((taskId) => wire.pushConfirmed?.(taskId)) };
    },
    unwatch: async (client, p) => {
      for (const taskId of p.taskIds as string[]) client.watching.delete(taskId);
      return null;
    },
    status: async () => ({
      ...meta,
      clients: clients.size,
      tasks: tasks.known.size,
      live: tasks.live(),
      // The tasks whose questions it holds: `server stop` says it drops them.
      held: questions.heldTasks(),
      uptimeMs: clock.now() - Date.parse(meta.startedAt),
    }),
    shutdown: async () => {
      setImmediate(() => parts.shutdown("the keeper that held it was stopped (mcp-task server stop)"));
      return null;
    },
    // The command traces its wire: what the broker's connection carries for it is relayed (relay.ts).
    trace: async (client) => {
      client.traced = true;
      return { opening: parts.relay.openingEvents };
    },
  };
}

/**
 * Requests that only look at the broker (`server ps`, `server stop`, a command's hello before any work): a
 * connection that made nothing else does not restart its grace as it leaves, or watching for a broker to leave
 * (`server ps` in a loop) would keep it, and its server, up for ever.
 */
const LOOKS: ReadonlySet<string> = new Set(["hello", "status", "trace", "shutdown"]);

/** The broker's socket server: each connection is a command, speaking the protocol of protocol.ts. */
export function brokerServer(parts: BrokerParts): Server {
  const handlers = requestHandlers(parts);
  return createServer((socket) => {
    const client: Client = { socket, watching: new Set() };
    parts.clients.add(client);
    onMessages(socket, (message: Message) => {
      if ("method" in message && "id" in message) {
        const handler = handlers[message.method];
        if (!LOOKS.has(message.method)) client.worked = true;
        if (!handler)
          return send(socket, {
            id: message.id,
            error: { name: "ProtocolViolation", message: `unknown broker method ${message.method}` },
          });
        // In the command's scope: the messages this request sends to the server are traced for it (relay.ts).
        const answered: Promise<void> = requestScope
          .run(client, () => handler(client, (message.params ?? {}) as Record<string, unknown>))
          .then(
            (result) =>
              send(socket, { id: message.id, result: (typeof result === "function" ? result() : result) ?? null }),
            (error: unknown) =>
              parts.tasks.settled().then(() => send(socket, { id: message.id, error: encodeError(error) })),
          )
          .finally(() => parts.answering.delete(answered));
        parts.answering.add(answered);
      } else if ("id" in message && message.id < 0) {
        // The client's answer to an input request.
        client.worked = true;
        requestScope.run(client, () => parts.questions.answer(client, message as Answer));
        // Its task may move on at once: the next read asks the server (reads.ts).
        parts.tasks.reads.staleAll();
      }
    });
    socket.on("close", () => {
      parts.clients.delete(client);
      parts.questions.left(client);
      // A command that worked here leaving is activity (the grace counts from it); a look is not.
      if (client.worked) parts.tasks.idleSince = parts.clock.monotonic();
    });
    socket.on("error", () => socket.destroy());
  });
}
