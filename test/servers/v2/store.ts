// Optional on-disk persistence: one JSON file per task, written as temp file + fsync + rename so a
// crash never leaves a half-written task behind.

import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { TaskRecord } from "./runtime.js";
import { log } from "./stats.js";

const SAFE_ID = /^[A-Za-z0-9_-]{1,128}$/;

export class TaskFileStore {
  constructor(readonly dir: string) {
    mkdirSync(dir, { recursive: true });
  }

  private file(taskId: string): string {
    // Task ids are minted by this server (UUIDs); refuse anything else rather than build a path from it.
    if (!SAFE_ID.test(taskId)) throw new Error("unsafe task id for the file store");
    return join(this.dir, `${taskId}.json`);
  }

  save(task: TaskRecord): void {
    const target = this.file(task.taskId);
    const tmp = `${target}.${process.pid}.tmp`;
    const fd = openSync(tmp, "w", 0o600);
    try {
      writeSync(fd, JSON.stringify(task));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, target);
  }

  remove(taskId: string): void {
    try {
      rmSync(this.file(taskId), { force: true });
    } catch {
      /* ignore */
    }
  }

  loadAll(): TaskRecord[] {
    const out: TaskRecord[] = [];
    for (const name of readdirSync(this.dir)) {
      if (!name.endsWith(".json")) continue;
      try {
        const task = JSON.parse(readFileSync(join(this.dir, name), "utf8")) as TaskRecord;
        if (typeof task.taskId === "string" && SAFE_ID.test(task.taskId)) out.push(task);
      } catch (error) {
        log(`store: skipping unreadable ${name}: ${(error as Error).message}`);
      }
    }
    return out;
  }

  /** A value kept across restarts (the requestState HMAC key), created on first use. */
  secret(name: string, create: () => string): string {
    const path = join(this.dir, `.${name}`);
    try {
      return readFileSync(path, "utf8").trim();
    } catch {
      const value = create();
      const fd = openSync(path, "w", 0o600);
      try {
        writeSync(fd, value);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      return value;
    }
  }
}
