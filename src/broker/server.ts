// The broker: a background process that owns one stdio server and its single MCP connection, so that the
// server's tasks outlive the command that started them. mcp-task commands reach it over a Unix socket in the
// private directory and see the same Wire they would see directly. It follows the tasks it knows (to learn when
// they end, tasks.ts), routes the server's questions to the command that asks for them (holding them while nobody
// does, questions.ts), records a crash of its server on the affected handles, and leaves when it is idle
// (lifecycle.ts). This file starts it, and reports a start that failed to the command waiting for it.
import { chmodSync, rmSync } from "node:fs";
import { MAX_BROKER_RECORD_BYTES } from "../limits.js";
import { readOwnText, writeOwnFile } from "../store/safe-fs.js";
import type { Context } from "../context.js";
import type { ServerDescriptor } from "../protocol/server.js";
import { teeTrace } from "../protocol/trace.js";
import { questionKeeperOf, type ResumeToken, type Snapshot, type Wire } from "../protocol/wire.js";
import { encodeError, send, sendBatched } from "./protocol.js";
import {
  brokerGrace,
  brokerKey,
  brokerPace,
  brokerPaths,
  heldQuestionWait,
  sessionBrokerKey,
  type BrokerMeta,
  type BrokerPaths,
} from "./paths.js";
import { refOf, type ProcessRef } from "./processes.js";
import type { Client } from "./attached.js";
import { Questions } from "./questions.js";
import { holdersOf } from "./holders.js";
import { HeldTasks } from "./tasks.js";
import { brokerServer } from "./requests.js";
import { Lifecycle } from "./lifecycle.js";
import { TraceRelay } from "./relay.js";
import { brokerTraceFile } from "./trace-file.js";

export interface BrokerSpec {
  name: string;
  descriptor: ServerDescriptor;
  /** A keeper of one session (V1 over HTTP): reconnect to it with this token, never with a new initialize. */
  resume?: ResumeToken;
  /** The command that starts it, which it waits for before its grace counts (lifecycle.ts); absent from older builds. */
  starter?: ProcessRef;
}

const DEFAULT_GRACE_MS = 30_000;

/** Runs the broker `key` until it leaves; how long it stays idle is MCP_TASK_BROKER_GRACE (default 30 s). */
export async function runBroker(ctx: Context, key: string): Promise<number> {
  const paths = brokerPaths(ctx.home, key);
  let lifecycle: Lifecycle;
  let graceMs = DEFAULT_GRACE_MS;
  try {
    // Read inside: a bad setting is reported through the .failed file like any other reason not to start.
    graceMs = brokerGrace(ctx.env) ?? DEFAULT_GRACE_MS;
    brokerPace(ctx.env); // read again by its tasks; a bad one is said here, before anything starts
    lifecycle = await startBroker(ctx, key, paths, heldQuestionWait(ctx.env));
  } catch (error) {
    // Why it could not start, as data for the command waiting for it (client.ts); the log, for people, gets the
    // error as any command reports it.
    try {
      writeOwnFile(paths.failed, JSON.stringify(encodeError(error)));
    } catch {
      /* the command says its broker exited without saying why */
    }
    throw error;
  }
  lifecycle.leaveWhenIdle(graceMs);
  return lifecycle.done;
}

/** The spec the starting command wrote for this broker, checked against the key the broker was started with. */
function readSpec(paths: BrokerPaths, key: string): BrokerSpec {
  const spec = JSON.parse(readOwnText(`${paths.meta}.spec`, MAX_BROKER_RECORD_BYTES)) as BrokerSpec;
  const keeper = spec.resume && questionKeeperOf(spec.resume);
  if ((keeper !== undefined ? sessionBrokerKey(spec.descriptor, keeper) : brokerKey(spec.descriptor)) !== key)
    throw new Error("the broker spec does not match its key");
  return spec;
}

/** Connects to the server, and listens on the broker's socket once it is connected. */
async function startBroker(ctx: Context, key: string, paths: BrokerPaths, heldQuestionMs: number): Promise<Lifecycle> {
  const spec = readSpec(paths, key);
  const clients = new Set<Client>();
  // The broker's wire, message by message, to the commands that asked (the dashboard's wire view, tapWire).
  ctx.wireTap = {
    write: (event) => {
      for (const client of clients) if (client.tapped) send(client.socket, { method: "tap", params: { event } });
    },
  };
  // Its connection is traced always, to its own file, and relayed to the commands that trace. The file is redacted
  // of the secrets this process knows (src/secrets.ts: the server's ${env:} values, literal credentials, OAuth
  // tokens), a live map: a token its sign-in refreshes is redacted from then on.
  const secrets = await ctx.secrets.learn(spec.descriptor);
  const relay = new TraceRelay(clients, (taskId) => questions.owners.get(taskId));
  const trace = teeTrace(brokerTraceFile(paths.trace, secrets), relay);
  // `direct`: this process is the one that holds the connection (a kept session is resumed, not initialized again).
  const wire: Wire = await ctx.connect(spec.descriptor, spec.name, { resume: spec.resume, direct: true, trace });
  relay.opened();
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
  const stop = new AbortController();
  const questions: Questions = new Questions(
    wire,
    clients,
    ctx.clock,
    (line) => ctx.io.stderr.write(line),
    () => tasks.runningTasks(),
    heldQuestionMs,
  );
  const heldFor = (snapshot: Snapshot) => questions.heldFor(snapshot);
  const holders = holdersOf(questions.pending, clients);
  const tasks = new HeldTasks(wire, ctx, spec.descriptor, clients, heldFor, stop.signal, holders);
  wire.handleInput((request, taskId, signal) => questions.ask(request, taskId, signal));
  relayEvents(wire, clients, questions);
  const shutdown = (why?: string) => void lifecycle.shutdown(0, why);
  const answering = new Set<Promise<void>>();
  const parts = { wire, clock: ctx.clock, meta, clients, tasks, questions, holders, relay, shutdown, answering };
  const server = brokerServer(parts);
  const lifecycle = new Lifecycle(ctx, paths, key, {
    server,
    wire,
    meta,
    clients,
    tasks,
    stop,
    answering,
    calling: questions.calls,
    held: () => questions.heldTasks(),
    starter: spec.starter,
  });
  lifecycle.leaveWithServer();

  rmSync(paths.socket, { force: true });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(paths.socket, () => resolve());
  });
  chmodSync(paths.socket, 0o600);
  writeOwnFile(paths.meta, JSON.stringify(meta));
  return lifecycle;
}

/** What the server says on the broker's connection, to the commands attached it concerns. */
function relayEvents(wire: Wire, clients: ReadonlySet<Client>, questions: Questions): void {
  // An answer whose delivery is in doubt (the connection failed on its way): the command that gave it settles it.
  wire.on("uncertainDelivery", (delivery) => {
    const owner = questions.owners.get(delivery.taskId);
    if (owner && clients.has(owner))
      send(owner.socket, { method: "uncertain", params: { ...delivery, error: encodeError(delivery.error) } });
  });
  // The server's log messages go to every command attached (the connection is theirs alike).
  wire.on("log", (log) => {
    for (const client of clients) sendBatched(client.socket, { method: "log", params: { log } });
  });
  // A kept session's task found in a new session (the server forgot the old one): the commands attached save it.
  wire.on("taskMoved", (taskId, token) => {
    for (const client of clients) send(client.socket, { method: "moved", params: { taskId, token } });
  });
  // A URL-mode elicitation's page is done: every command attached may be waiting for it (a call refused with -32042).
  wire.on("elicitationComplete", (elicitationId) => {
    for (const client of clients) send(client.socket, { method: "elicitationComplete", params: { elicitationId } });
  });
}
