// Reaching a stdio server (or a kept HTTP session) through its broker: find the broker, or start one and report why
// it could not start; and `server ps` / `server stop`. What speaks to it as a Wire is wire.ts.
import { spawn } from "node:child_process";
import { existsSync, rmSync, closeSync } from "node:fs";
import { connect as netConnect, type Socket } from "node:net";
import lockfile from "proper-lockfile";
import type { Clock } from "../context.js";
import { InterruptedError, McpTaskError, NoBrokerError, ServerError } from "../errors.js";
import type { ServerDescriptor } from "../protocol/server.js";
import type { QuestionHolder, ResumeToken, Wire } from "../protocol/wire.js";
import type { Trace } from "../protocol/trace.js";
import { decodeError, type WireError } from "./protocol.js";
import { BrokerWire } from "./wire.js";
import {
  brokerKey,
  brokerPaths,
  checkBrokerSettings,
  sessionBrokerKey,
  type BrokerMeta,
  type BrokerPaths,
} from "./paths.js";
import { questionKeeperOf } from "../protocol/wire.js";
import { isRunning, refOf, signalIfSame } from "./processes.js";
import type { BrokerSpec } from "./server.js";
import { BROKER_START_WAIT_MS, BROKER_STOP_WAIT_MS, MAX_BROKER_LOG_BYTES, MAX_BROKER_RECORD_BYTES } from "../limits.js";
import { openOwnAppend, readOwnText, UnsafeFileError, writeOwnFile } from "../store/safe-fs.js";

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
  /** This command's wire trace, if on: the broker relays to it what its connection carries for this command. */
  trace?: Trace;
  /** Who this command is, told to the broker as it attaches (hello.ts Attaching). */
  who?: QuestionHolder;
}

export async function connectBroker(options: BrokerOptions): Promise<Wire> {
  const keeper = options.session && questionKeeperOf(options.session);
  const key = keeper !== undefined ? sessionBrokerKey(options.descriptor, keeper) : brokerKey(options.descriptor);
  const paths = brokerPaths(options.home, key);
  const running = await attach(paths.socket, options);
  if (running) return running;
  if (!options.start) {
    cleanUpAfter(paths);
    throw new NoBrokerError(
      `the server exited while the task was running (${options.name}: its broker is not running)`,
      "start the task again",
    );
  }
  // A broker would refuse to start on it (and say so only in its log): said here first, as a usage error.
  checkBrokerSettings(options.env ?? process.env);
  const release = await lockfile.lock(paths.lock, {
    realpath: false,
    stale: BROKER_START_WAIT_MS,
    retries: { retries: 300, minTimeout: 50, maxTimeout: 200 },
    onCompromised: () => {}, // as for a handle's lock (store/handle-write.ts)
  });
  try {
    // Another command may have started it while we waited for the lock: then there is one broker, not two.
    const raced = await attach(paths.socket, options);
    if (raced) return raced;
    cleanUpAfter(paths);
    const spec: BrokerSpec = {
      name: options.name,
      descriptor: options.descriptor,
      ...(options.session ? { resume: options.session } : {}),
      starter: refOf(process.pid),
    };
    writeOwnFile(`${paths.meta}.spec`, JSON.stringify(spec)); // never through a link planted there
    const log = openLog(paths.log);
    // Detached and in a session of its own: closing the terminal that started it does not end it.
    const child = spawn(options.self[0], [...options.self.slice(1), "broker", key], {
      detached: true,
      stdio: ["ignore", log, log],
      // Not MCP_TASK_TRACE: a broker keeps its own trace (`server logs --trace`) and relays to each tracing command
      // what concerns it; writing the command's file too would write each event there twice.
      env: { ...(options.env ?? process.env), MCP_TASK_TRACE: undefined },
    });
    closeSync(log);
    let exited: number | null = null;
    child.on("exit", (code) => (exited = code ?? 1));
    child.unref();
    const until = options.clock.monotonic() + BROKER_START_WAIT_MS;
    while (options.clock.monotonic() < until) {
      const ready = await attach(paths.socket, options);
      if (ready) return ready;
      if (exited !== null) break;
      await options.clock.sleep(50);
    }
    throw startFailure(options, paths, exited);
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

/**
 * Why a broker did not start, from what it reported (server.ts writes its error, encoded, to `paths.failed`): its
 * class, unless it is a failure of the server's (then a ServerError saying which server could not be started), or an
 * interruption of the broker, which is not this command's. Its log holds the same for people.
 */
function startFailure(options: BrokerOptions, paths: BrokerPaths, exited: number | null): Error {
  const report = readReport(paths.failed);
  const cause = report && decodeError(report);
  // The reason names no server; the broker's own "cannot start the server: " before it is this error's.
  const reason = report
    ? report.message.replace(/^cannot start the server: /, "")
    : `its broker ${exited === null ? `did not start in ${BROKER_START_WAIT_MS / 1000} s` : "exited"} without saying why (its log: ${paths.log})`;
  const http = options.descriptor.transport === "http";
  const message = http
    ? `cannot reach the session of ${options.name}: ${reason}`
    : `cannot start the server ${options.name}: ${reason}`;
  const hint = http
    ? "check that the server is running and the URL is right"
    : 'check the command with: mcp-task tools --stdio "..."';
  if (
    report &&
    cause instanceof McpTaskError &&
    !(cause instanceof ServerError) &&
    !(cause instanceof InterruptedError)
  )
    return decodeError({ ...report, message, hint: cause.hint ?? hint });
  return new ServerError(message, hint);
}

/** A broker's report of why it could not start (undefined when there is none, or it is not a file of ours). */
function readReport(path: string): WireError | undefined {
  try {
    const report = JSON.parse(readOwnText(path, MAX_BROKER_RECORD_BYTES)) as WireError;
    return typeof report?.name === "string" && typeof report.message === "string" ? report : undefined;
  } catch {
    return undefined;
  } finally {
    rmSync(path, { force: true });
  }
}

/**
 * The broker at a socket, attached; undefined when none listens there, or when the one there left before it answered.
 * A broker leaving after its grace closes the connections it has not yet taken, removing its socket as it does, so
 * a command that came at that moment finds none and starts one, as if it had come a moment later. (Such a command
 * got "the connection to the server's broker closed" as its error, on a loaded machine, between two calls.)
 */
async function attach(
  path: string,
  { trace, who }: Pick<BrokerOptions, "trace" | "who"> = {},
): Promise<BrokerWire | undefined> {
  const socket = await dial(path);
  if (!socket) return undefined;
  try {
    return await BrokerWire.open(socket, trace, who);
  } catch (error) {
    if (socket.destroyed) return undefined;
    throw error;
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
  rmSync(paths.failed, { force: true });
}

/** What `server ps` shows: the brokers that run, with what they say of themselves. */
export async function listBrokers(
  home: string,
): Promise<
  Array<BrokerMeta & { clients?: number; live?: number; uptimeMs?: number; held?: string[]; responding: boolean }>
> {
  const { readdirSync } = await import("node:fs");
  const dir = brokerPaths(home, "x").dir;
  const out = [];
  for (const name of readdirSync(dir).filter((n) => n.endsWith(".json"))) {
    const key = name.slice(0, -5);
    const paths = brokerPaths(home, key);
    let meta: BrokerMeta;
    try {
      // The key is the file's name, never the record's word for it (a record naming "../x" would send a shutdown to
      // whatever socket that names).
      meta = { ...(JSON.parse(readOwnText(paths.meta, MAX_BROKER_RECORD_BYTES)) as BrokerMeta), key };
    } catch {
      continue;
    }
    if (typeof meta?.name !== "string" || !Number.isInteger(meta.pid)) continue; // not a record a broker wrote
    const wire = await attach(paths.socket);
    if (!wire) {
      // One that left as it was reached (its record removed as it went) is not listed.
      if (existsSync(paths.meta)) out.push({ ...meta, responding: false });
      continue;
    }
    try {
      const status = (await wire.call("status")) as {
        clients: number;
        live: number;
        uptimeMs: number;
        held?: unknown;
      };
      // The tasks whose questions it holds (a broker of an older build does not say).
      const held = Array.isArray(status.held) ? status.held.filter((id) => typeof id === "string") : [];
      // This very connection counts as a client: leave it out.
      out.push({
        ...meta,
        clients: status.clients - 1,
        live: status.live,
        uptimeMs: status.uptimeMs,
        held,
        responding: true,
      });
    } finally {
      await wire.close();
    }
  }
  return out;
}

/** Asks a broker to stop (it stops its server). */
/**
 * Stops a broker, and returns once it has left: it ends its commands' connections only after marking the handles
 * whose questions it drops and removing its socket, so a command run next neither reaches the stopping broker (and
 * reads its task as still alive) nor misses those marks. A broker that never ends the connection (hung) is left
 * after BROKER_STOP_WAIT_MS, reported stopped as asked.
 */
export async function stopBroker(home: string, key: string, clock: Clock): Promise<boolean> {
  const wire = await attach(brokerPaths(home, key).socket);
  if (!wire) return false;
  await wire.call("shutdown");
  const waiting = new AbortController();
  await Promise.race([wire.closed, clock.sleep(BROKER_STOP_WAIT_MS, waiting.signal).catch(() => {})]);
  waiting.abort();
  await wire.close();
  return true;
}
