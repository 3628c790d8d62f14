// The demo server's on-disk store: one JSON file per task (and per V1 HTTP session), each written as temp file
// + fsync + rename, so a crash never leaves a half-written file and a restarted server knows what it knew.
//
//   <dir>/tasks/<taskId>.json        a TaskRecord (runtime.ts)
//   <dir>/sessions/<sessionId>.json  the initialize params of a V1 HTTP session (v1.ts), to revive it after a restart
//   <dir>/.secret-<name>             keys that must survive a restart (the V2 requestState HMAC key)

import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import type { JsonObject, TaskRecord } from "./task.js";

/** Ids this server mints are UUIDs; nothing else is ever turned into a path. */
const SAFE_ID = /^[A-Za-z0-9_-]{1,128}$/;

function writeAtomically(path: string, text: string): void {
  const tmp = `${path}.${process.pid}.${Math.random().toString(36).slice(2, 8)}.tmp`;
  const fd = openSync(tmp, "w", 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

export class DemoStore {
  private readonly tasksDir: string;
  private readonly sessionsDir: string;

  constructor(
    readonly dir: string,
    private readonly log: (line: string) => void = () => {},
  ) {
    this.tasksDir = join(dir, "tasks");
    this.sessionsDir = join(dir, "sessions");
    mkdirSync(this.tasksDir, { recursive: true, mode: 0o700 });
    mkdirSync(this.sessionsDir, { recursive: true, mode: 0o700 });
    for (const folder of [this.tasksDir, this.sessionsDir, dir]) this.sweepTemps(folder);
  }

  /** Removes the temp files (`<file>.<pid>.<random>.tmp`) of writers that died mid-write (a server SIGKILLed). */
  private sweepTemps(folder: string): void {
    for (const name of readdirSync(folder)) {
      const pid = Number(/\.(\d+)\.[a-z0-9]+\.tmp$/.exec(name)?.[1]);
      if (!pid || (pid !== process.pid && alive(pid))) continue;
      try {
        rmSync(join(folder, name), { force: true });
        this.log(`store: removed ${name}, left by a writer that died mid-write`);
      } catch {
        /* ignore */
      }
    }
  }

  private path(folder: string, id: string): string {
    if (!SAFE_ID.test(id)) throw new Error("unsafe id for the demo store");
    return join(folder, `${id}.json`);
  }

  saveTask(task: TaskRecord): void {
    writeAtomically(this.path(this.tasksDir, task.taskId), JSON.stringify(task));
  }

  removeTask(taskId: string): void {
    try {
      rmSync(this.path(this.tasksDir, taskId), { force: true });
    } catch {
      /* ignore */
    }
  }

  loadTasks(): TaskRecord[] {
    return this.loadAll(this.tasksDir).filter(
      (task): task is TaskRecord & JsonObject => typeof task.taskId === "string" && SAFE_ID.test(task.taskId),
    ) as TaskRecord[];
  }

  saveSession(sessionId: string, info: JsonObject): void {
    writeAtomically(this.path(this.sessionsDir, sessionId), JSON.stringify(info));
  }

  loadSession(sessionId: string): JsonObject | undefined {
    if (!SAFE_ID.test(sessionId)) return undefined;
    try {
      const value = JSON.parse(readFileSync(this.path(this.sessionsDir, sessionId), "utf8")) as unknown;
      return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as JsonObject) : undefined;
    } catch {
      return undefined;
    }
  }

  removeSession(sessionId: string): void {
    try {
      rmSync(this.path(this.sessionsDir, sessionId), { force: true });
    } catch {
      /* ignore */
    }
  }

  /** Forgets sessions not used for `maxAgeMs` (their tasks have expired by then too). */
  pruneSessions(maxAgeMs: number): void {
    const cutoff = Date.now() - maxAgeMs;
    for (const name of readdirSync(this.sessionsDir)) {
      if (!name.endsWith(".json")) continue;
      try {
        if (statSync(join(this.sessionsDir, name)).mtimeMs < cutoff)
          rmSync(join(this.sessionsDir, name), { force: true });
      } catch {
        /* ignore */
      }
    }
  }

  /** A value kept across restarts, created on first use. */
  secret(name: string, create: () => string): string {
    if (!SAFE_ID.test(name)) throw new Error("unsafe secret name");
    const path = join(this.dir, `.secret-${name}`);
    try {
      const value = readFileSync(path, "utf8").trim();
      if (value) return value;
    } catch {
      /* create it */
    }
    const value = create();
    writeAtomically(path, value);
    return value;
  }

  private loadAll(folder: string): JsonObject[] {
    const out: JsonObject[] = [];
    for (const name of readdirSync(folder)) {
      if (!name.endsWith(".json")) continue;
      try {
        const value = JSON.parse(readFileSync(join(folder, name), "utf8")) as unknown;
        if (value !== null && typeof value === "object" && !Array.isArray(value)) out.push(value as JsonObject);
      } catch (error) {
        this.log(`store: skipping unreadable ${name}: ${(error as Error).message}`);
      }
    }
    return out;
  }
}
