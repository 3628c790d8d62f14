// Where a broker lives: everything under <home>/brokers (0700), named by a hash of the server's configuration,
// never by anything a server or user typed. Its socket too, unless <home> is so long that the socket's path would
// not fit in a Unix socket address (see socketPath).
import { mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { ServerDescriptor } from "../protocol/server.js";
import { UsageError } from "../errors.js";
import { sha256Hex } from "../hash.js";
import { parseDuration } from "../duration.js";
import { HELD_CALL_QUESTION_MS, MAX_SOCKET_PATH_BYTES } from "../limits.js";
import { ensurePrivateDir } from "../store/settings.js";
import type { ProcessRef } from "./processes.js";

/** One broker per stdio server configuration: command, arguments, working directory and environment. */
export function brokerKey(descriptor: ServerDescriptor): string {
  return sha256Hex(JSON.stringify(descriptor)).slice(0, 16);
}

/**
 * The broker (keeper) of one session of a server whose questions are handed over once (V1 over HTTP): its tasks and
 * their questions belong to that session, so there is one broker per server and session (`session`: the name
 * protocol/wire.ts questionKeeperOf gives it).
 */
export function sessionBrokerKey(descriptor: ServerDescriptor, session: string): string {
  return `${brokerKey(descriptor)}-${sha256Hex(session).slice(0, 12)}`;
}

export interface BrokerPaths {
  dir: string;
  socket: string;
  /** What `server ps` shows and what the next command needs to clean up after a killed broker. */
  meta: string;
  log: string;
  /** Its trace of its server connection (trace-file.ts), kept like its log; `<trace>.1` holds the part before. */
  trace: string;
  lock: string;
  /** Why the broker could not start (an encoded error, protocol.ts), written by the broker for the starting command. */
  failed: string;
}

export function brokerPaths(home: string, key: string): BrokerPaths {
  const dir = join(home, "brokers");
  ensurePrivateDir(dir, {}, true);
  return {
    dir,
    socket: socketPath(home, dir, key),
    meta: join(dir, `${key}.json`),
    log: join(dir, `${key}.log`),
    trace: join(dir, `${key}.trace`),
    lock: join(dir, `${key}.start`),
    failed: join(dir, `${key}.failed`),
  };
}

/**
 * The broker's socket: `<home>/brokers/<key>.sock` when that path fits in a socket address (MAX_SOCKET_PATH_BYTES:
 * a home of up to 77 bytes on Linux, 73 on macOS; so no socket that fitted before moved), else `/tmp/mcp-task-<uid>/<hash of home and key>.sock` (os.tmpdir() when /tmp
 * cannot be used), a directory of this user's, 0700, checked (a real directory, not a link, owned by this user)
 * before every use.
 *
 * Why /tmp and not $XDG_RUNTIME_DIR or $TMPDIR first: the command that starts a broker and every later command must
 * find the same socket, and those variables differ between a terminal, ssh, cron and sudo of the same user (macOS
 * gives each login a TMPDIR of its own); /tmp is the same for all of them, on Linux and macOS. Not a path relative
 * to a chdir: the working directory belongs to the whole process (and is the stdio server's). Not a Linux abstract
 * socket: it is Linux only and has no permissions, so any local user could connect and drive the user's server.
 */
function socketPath(home: string, dir: string, key: string): string {
  const inHome = join(dir, `${key}.sock`);
  if (Buffer.byteLength(inHome) <= MAX_SOCKET_PATH_BYTES) return inHome;
  const name = `${sha256Hex(`${resolve(home)}\0${key}`).slice(0, 24)}.sock`;
  const uid = process.getuid?.();
  const problems: string[] = [];
  for (const base of new Set(["/tmp", tmpdir()])) {
    const short = join(base, `mcp-task-${uid ?? "user"}`);
    const socket = join(short, name);
    if (Buffer.byteLength(socket) > MAX_SOCKET_PATH_BYTES) continue;
    try {
      mkdirSync(base, { recursive: true });
      ensurePrivateDir(short, { uid }, true);
      return socket;
    } catch (error) {
      problems.push((error as Error).message);
    }
  }
  throw new UsageError(
    `the broker's socket cannot go under ${dir} (a socket's path is at most ${MAX_SOCKET_PATH_BYTES} bytes) nor in a private directory of /tmp${problems.length ? `: ${problems.join("; ")}` : ""}`,
    "set MCP_TASK_HOME to a shorter path",
  );
}

export interface BrokerMeta {
  key: string;
  name: string;
  descriptor: ServerDescriptor;
  pid: number;
  serverPid?: number;
  /** The broker and its server as processes (pid and start time): what proves a pid in this record still theirs. */
  process?: ProcessRef;
  server?: ProcessRef;
  startedAt: string;
}

/** MCP_TASK_BROKER_GRACE: how long an idle broker stays (undefined: its default); a UsageError when not a duration. */
export function brokerGrace(env: Record<string, string | undefined>): number | undefined {
  const value = env.MCP_TASK_BROKER_GRACE;
  return value ? parseDuration(value, "MCP_TASK_BROKER_GRACE") : undefined;
}

/**
 * MCP_TASK_HELD_QUESTION: how long a broker keeps, for its call, a question the call's command could not answer
 * while the server holds back the call's reply (default HELD_CALL_QUESTION_MS); a UsageError when not a duration.
 */
export function heldQuestionWait(env: Record<string, string | undefined>): number {
  const value = env.MCP_TASK_HELD_QUESTION;
  return value ? parseDuration(value, "MCP_TASK_HELD_QUESTION") : HELD_CALL_QUESTION_MS;
}

/** MCP_TASK_BROKER_PACE: the least time between a broker's own reads of a task (undefined: BROKER_FOLLOW_PACE_MS). */
export function brokerPace(env: Record<string, string | undefined>): number | undefined {
  const value = env.MCP_TASK_BROKER_PACE;
  return value ? parseDuration(value, "MCP_TASK_BROKER_PACE") : undefined;
}

/** Every broker setting read once, so that a bad one is said (a UsageError) before a broker is started on it. */
export function checkBrokerSettings(env: Record<string, string | undefined>): void {
  brokerGrace(env);
  heldQuestionWait(env);
  brokerPace(env);
}
