// Where a broker lives: everything under <home>/brokers (0700), named by a hash of the server's configuration,
// never by anything a server or user typed.
import { join } from "node:path";
import type { ServerDescriptor } from "../protocol/server.js";
import { sha256Hex } from "../hash.js";
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
  lock: string;
}

export function brokerPaths(home: string, key: string): BrokerPaths {
  const dir = join(home, "brokers");
  ensurePrivateDir(dir);
  return {
    dir,
    socket: join(dir, `${key}.sock`),
    meta: join(dir, `${key}.json`),
    log: join(dir, `${key}.log`),
    lock: join(dir, `${key}.start`),
  };
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
