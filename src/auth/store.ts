// A server's saved sign-in: its OAuth client registration, tokens and discovery state, one file per server URL in
// <home>/auth (a private directory, files 0600, read and written through the store's safe-fs). Tokens are
// credentials: they live here and nowhere else (never in a handle, an export or the settings).
import { rmSync } from "node:fs";
import { join } from "node:path";
import type {
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from "@modelcontextprotocol/client";
import { AUTH_LOCK_STALE_MS, MAX_AUTH_FILE_BYTES } from "../limits.js";
import { descriptorKey } from "../protocol/server.js";
import { readOwnText, writeOwnFile } from "../store/safe-fs.js";
import { ensurePrivateDir } from "../store/settings.js";

export interface AuthRecord {
  /** The server URL this record is for (a check on the file name's hash). */
  url: string;
  /** A dynamically registered client (a pre-registered one lives in the settings, its secret as a reference). */
  client?: StoredOAuthClientInformation;
  tokens?: StoredOAuthTokens;
  /** When the tokens were saved (ms since epoch): with `expires_in`, when they expire. */
  savedAt?: number;
  discovery?: OAuthDiscoveryState;
}

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

  /** Changes a server's record (read, change, write whole: temp file and rename). */
  update(url: string, change: (record: AuthRecord) => void): AuthRecord {
    ensurePrivateDir(this.dir, { uid: process.getuid?.() }, true);
    const record = this.read(url);
    change(record);
    if (record.tokens && !record.savedAt) record.savedAt = this.now();
    writeOwnFile(this.path(url), JSON.stringify(record));
    return record;
  }

  saveTokens(url: string, tokens: StoredOAuthTokens | undefined): void {
    this.update(url, (record) => {
      record.tokens = tokens;
      record.savedAt = tokens ? this.now() : undefined;
    });
  }

  /**
   * Runs `work` under the server's lock (proper-lockfile, as the handles are): one token renewal at a time across
   * processes, so that a refresh token used once (rotated) is not spent twice, nor fresh tokens forgotten by a
   * process whose refresh lost the race.
   */
  async locked<T>(url: string, work: () => Promise<T>): Promise<T> {
    const path = this.path(url);
    this.update(url, () => {}); // the lock needs its file
    const { default: lockfile } = await import("proper-lockfile");
    const release = await lockfile.lock(path, {
      realpath: false,
      lockfilePath: `${path.slice(0, -".json".length)}.lock`,
      stale: AUTH_LOCK_STALE_MS,
      retries: { retries: 150, minTimeout: 5, maxTimeout: 100 },
    });
    try {
      return await work();
    } finally {
      await release();
    }
  }

  /** Forgets a server's sign-in entirely. */
  remove(url: string): boolean {
    const path = this.path(url);
    const had = this.read(url).tokens !== undefined;
    rmSync(path, { force: true });
    return had;
  }
}
