// A server's saved sign-in: its OAuth client registration, tokens and discovery state, one file per server URL in
// <home>/auth (a private directory, files 0600, read and written through the store's safe-fs). Tokens are
// credentials: they live here and nowhere else (never in a handle, an export or the settings).
//
// Every write is a read, change and write whole (temp file and rename) under the server's lock (proper-lockfile, a
// directory beside the record; the record itself need not exist): a process never writes back a record it read
// before another process's write, so the tokens of a refresh (whose refresh token the authorization server may have
// just rotated) are never overwritten by a stale copy. Readers take no lock: a rename is seen whole or not at all.
import { AsyncLocalStorage } from "node:async_hooks";
import { lstatSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { StoredOAuthTokens } from "@modelcontextprotocol/client";
import { AuthRequiredError } from "../errors.js";
import { AUTH_LOCK_STALE_MS, MAX_AUTH_FILE_BYTES } from "../limits.js";
import { descriptorKey } from "../protocol/server.js";
import { sanitizeLine } from "../sanitize.js";
import { readOwnText, UnsafeFileError, writeOwnFile } from "../store/safe-fs.js";
import { ensurePrivateDir } from "../store/settings.js";
import { boundedRecord, type AuthRecord } from "./record.js";

export type { AuthRecord } from "./record.js";

/** The record paths whose lock the current async flow holds (a write inside `locked` takes no second lock). */
const holding = new AsyncLocalStorage<ReadonlySet<string>>();

export class AuthStore {
  private readonly dir: string;

  constructor(
    home: string,
    private readonly now: () => number = Date.now,
  ) {
    this.dir = join(home, "auth");
  }

  private path(url: string): string {
    return join(this.dir, `${descriptorKey({ transport: "http", url })}.json`);
  }

  /** The record of a server (empty when it never signed in, or the file is not one we wrote for that URL). */
  read(url: string): AuthRecord {
    let text: string;
    try {
      text = readOwnText(this.path(url), MAX_AUTH_FILE_BYTES);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return { url };
      throw error;
    }
    try {
      const record = JSON.parse(text) as AuthRecord;
      return record && typeof record === "object" && record.url === url ? record : { url };
    } catch {
      return { url }; // a torn or foreign file: as if never signed in (the next sign-in rewrites it)
    }
  }

  /**
   * Changes a server's record under its lock: read, change, write whole. What is written is bounded
   * (./record.ts): a record the reader would refuse is never written (AuthRequiredError, exit 8, instead).
   */
  async update(url: string, change: (record: AuthRecord) => void): Promise<AuthRecord> {
    return this.locked(url, async () => {
      const record = this.read(url);
      change(record);
      if (record.tokens && !record.savedAt) record.savedAt = this.now();
      const bounded = boundedRecord(record);
      writeOwnFile(this.path(url), JSON.stringify(bounded));
      return bounded;
    });
  }

  async saveTokens(url: string, tokens: StoredOAuthTokens | undefined): Promise<void> {
    await this.update(url, (record) => {
      record.tokens = tokens;
      record.savedAt = tokens ? this.now() : undefined;
    });
  }

  /**
   * Runs `work` under the server's lock: one writer, and one token renewal, at a time across processes (and across
   * the connections of one process), so that a refresh token used once (rotated) is not spent twice, nor fresh
   * tokens forgotten by a process whose refresh lost the race. Re-entrant within one async flow: the writes of a
   * renewal (the SDK saves tokens and discovery inside it) take no second lock.
   */
  async locked<T>(url: string, work: () => Promise<T>): Promise<T> {
    const path = this.path(url);
    const held = holding.getStore();
    if (held?.has(path)) return work();
    ensurePrivateDir(this.dir, { uid: process.getuid?.() }, true);
    const { default: lockfile } = await import("proper-lockfile");
    let release: () => Promise<void>;
    try {
      release = await lockfile.lock(path, {
        realpath: false, // the lock is a directory beside the record, which need not exist yet
        lockfilePath: `${path.slice(0, -".json".length)}.lock`,
        stale: AUTH_LOCK_STALE_MS,
        retries: { retries: 150, minTimeout: 5, maxTimeout: 100 },
        // A lock taken over as stale while held (this process stalled past AUTH_LOCK_STALE_MS): the work goes on;
        // proper-lockfile's default would throw from a timer and end the process.
        onCompromised: () => {},
      });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ELOCKED") throw error;
      throw new AuthRequiredError(
        `the saved sign-in of ${sanitizeLine(url).slice(0, 300)} stayed locked by another mcp-task process`,
        "try again once the other command has renewed its token",
      );
    }
    try {
      return await holding.run(new Set([...(held ?? []), path]), work);
    } finally {
      await release().catch(() => {}); // released already if it was taken over
    }
  }

  /**
   * Forgets a server's sign-in entirely (under its lock): whether it had tokens, and the reason a record that could
   * not be read was removed all the same (a file larger than MAX_AUTH_FILE_BYTES, a link, another user's...).
   */
  async remove(url: string): Promise<{ hadTokens: boolean; unreadable?: string }> {
    const path = this.path(url);
    if (!lstatSync(path, { throwIfNoEntry: false })) return { hadTokens: false };
    return this.locked(url, async () => {
      let hadTokens = false;
      let unreadable: string | undefined;
      try {
        hadTokens = this.read(url).tokens !== undefined;
      } catch (error) {
        if (!(error instanceof UnsafeFileError)) throw error;
        unreadable = error.reason;
      }
      // A link is removed, never followed; a directory planted there goes too (the auth directory is ours alone).
      rmSync(path, { force: true, recursive: true });
      return { hadTokens, ...(unreadable ? { unreadable } : {}) };
    });
  }
}
