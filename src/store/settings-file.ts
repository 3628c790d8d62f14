// settings.json as a file (read by ./settings.ts): read each time, whole, and only if it is a regular file of this
// user within MAX_SETTINGS_BYTES (safe-fs.ts); written whole as a temp file renamed over it, and only if the reader
// will read it back. Every way it cannot be read says how to go on without losing a saved server.
import { join } from "node:path";
import type { PriorDiscovery } from "@modelcontextprotocol/client";
import { UsageError } from "../errors.js";
import { MAX_SETTINGS_BYTES } from "../limits.js";
import { checkOwnFile, formatBytes, readOwnText, UnsafeFileError, writeOwnFile } from "./safe-fs.js";
import type { ServerDescriptor } from "../protocol/server.js";
import { shellValue } from "../sanitize.js";
import { ensurePrivateDir } from "./home.js";

export interface SavedVerdict {
  verdict: PriorDiscovery;
  /** When it was found (ms since epoch): a verdict is trusted only for a while (Settings.verdict). */
  at: number;
}

/** How a server signs in: a pre-registered OAuth client (without one, mcp-task registers itself dynamically) and
 *  the scopes to ask for. The secret is kept as a `${env:NAME}` reference, resolved when used. */
export interface OAuthClientSettings {
  clientId?: string;
  clientSecret?: string;
  /** A client ID metadata document at an https URL: the client id where the authorization server supports them. */
  clientMetadataUrl?: string;
  scope?: string;
  /** "client_credentials": signs in without a person (CI); otherwise the authorization code flow in a browser. */
  grant?: "authorization_code" | "client_credentials";
}

/** What settings.json holds. */
export interface SettingsData {
  servers: Record<string, ServerDescriptor>;
  defaultServer?: string;
  verdicts: Record<string, SavedVerdict>;
  /** Per server: each tool's task support as last listed (decides whether a stdio call needs a broker). */
  taskSupport?: Record<string, Record<string, string>>;
  /** Per saved server: the pre-registered OAuth client it signs in with (`server add --client-id`). */
  clients?: Record<string, OAuthClientSettings>;
}

/** "`bytes`, past the `limit`", in sizes that differ as shown (17 MiB past 16 MiB; in bytes where both round alike). */
export function pastLimit(bytes: number, limit: number): string {
  const [size, bound] = [formatBytes(bytes), formatBytes(limit)];
  return size === bound ? `${bytes} bytes, past the ${limit}` : `${size}, past the ${bound}`;
}

/** A change that would make settings.json larger than mcp-task reads it (MAX_SETTINGS_BYTES): nothing is written. */
export class SettingsFullError extends UsageError {
  constructor(
    readonly path: string,
    /** What the file would have been. */
    readonly bytes: number,
  ) {
    super(
      `not saved: ${path} would be ${pastLimit(bytes, MAX_SETTINGS_BYTES)} mcp-task reads it at`,
      "remove saved servers you no longer use (mcp-task server list; mcp-task server remove <name>), then try again",
    );
  }
}

export class SettingsFile {
  private readonly file: string;

  constructor(home: string) {
    ensurePrivateDir(home);
    this.file = join(home, "settings.json");
    // A link followed, a FIFO waited on, /dev/zero read until memory runs out: refused before anything is read.
    try {
      checkOwnFile(this.file, MAX_SETTINGS_BYTES);
    } catch (error) {
      if (error instanceof UnsafeFileError)
        throw new UsageError(
          `cannot read ${this.file}: it is ${error.reason}`,
          this.onlyTooLarge()
            ? this.moveAside("import its servers back")
            : "remove it or put your settings back in a regular file",
        );
      /* missing (written on the first change) or unreadable (said below) */
    }
    this.read();
  }

  /** Whether the settings file would be read but for its size (a regular file of this user). */
  private onlyTooLarge(): boolean {
    try {
      checkOwnFile(this.file, Number.MAX_SAFE_INTEGER);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * The way forward from a settings file that cannot be read, losing nothing: moved aside, it is kept whole, and a
   * settings file (its "servers" object) is a file `server import` reads, so the servers come back; a file that is not
   * JSON is fixed where the error says first.
   */
  private moveAside(then: string): string {
    const old = `${this.file}.old`;
    return `move it aside and ${then}: mv ${shellValue(this.file)} ${shellValue(old)} && mcp-task server import ${shellValue(old)}`;
  }

  /** The settings as the file has them now (read each time: another command may have changed them). */
  read(): SettingsData {
    let text: string;
    try {
      text = readOwnText(this.file, MAX_SETTINGS_BYTES);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return { servers: {}, verdicts: {} };
      throw new UsageError(
        `cannot read ${this.file}: ${(error as Error).message}`,
        this.moveAside("import its servers back"),
      );
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new UsageError(
        `cannot read ${this.file}: ${(error as Error).message}`,
        `fix it where the error says (it is JSON), or ${this.moveAside("import its servers back once fixed")}`,
      );
    }
    const isObject = (value: unknown) => typeof value === "object" && value !== null && !Array.isArray(value);
    const data = parsed as Partial<SettingsData>;
    const wrong = !isObject(parsed)
      ? "not a JSON object"
      : (["servers", "verdicts", "taskSupport", "clients"] as const).find(
          (key) => data[key] !== undefined && !isObject(data[key]),
        );
    if (wrong)
      throw new UsageError(
        `cannot read ${this.file}: ${wrong === "not a JSON object" ? wrong : `its "${wrong}" is not an object`}`,
        `fix it (it is JSON), or move it aside to start again without it: mv ${shellValue(this.file)} ${shellValue(`${this.file}.old`)}`,
      );
    return { ...data, servers: data.servers ?? {}, verdicts: data.verdicts ?? {} };
  }

  /**
   * Writes the settings whole, if the reader will read them back: past MAX_SETTINGS_BYTES nothing is written and
   * SettingsFullError is thrown (a file past it made every later command exit 2).
   */
  write(data: Partial<SettingsData>): void {
    const text = `${JSON.stringify(data, null, "\t")}\n`;
    const bytes = Buffer.byteLength(text);
    if (bytes > MAX_SETTINGS_BYTES) throw new SettingsFullError(this.file, bytes);
    writeOwnFile(this.file, text);
  }
}
