// Settings: saved servers, the default server, and the cached generation verdicts, in settings.json, read and
// written whole with the store's own owner-only files (safe-fs.ts: read only if a regular file of this user; written
// as a temp file renamed over it). Task handles do not live here: one file rewritten per change loses concurrent
// writes (see docs/stack.md#conf). `conf` did this before; it loads AJV (300 KB, for a schema option not used
// here) and semver on import, a quarter of what a warm-broker call loaded.
import { chmodSync, lstatSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import envPaths from "env-paths";
import type { PriorDiscovery } from "@modelcontextprotocol/client";
import { StoreUnwritableError, UsageError } from "../errors.js";
import { MAX_CACHED_TOOL_NAME, MAX_CACHED_TOOL_SERVERS, MAX_CACHED_TOOLS, MAX_SETTINGS_BYTES } from "../limits.js";
import { checkOwnFile, readOwnText, UnsafeFileError, writeOwnFile } from "./safe-fs.js";
import { makeDirs, unwritable } from "./unwritable.js";
import { sameServer, type ServerDescriptor } from "../protocol/server.js";

export interface SavedVerdict {
  verdict: PriorDiscovery;
  /** When it was found (ms since epoch): a legacy verdict is trusted only for a while. */
  at: number;
}

interface SettingsData {
  servers: Record<string, ServerDescriptor>;
  defaultServer?: string;
  verdicts: Record<string, SavedVerdict>;
  /** Per server: each tool's task support as last listed (decides whether a stdio call needs a broker). */
  taskSupport?: Record<string, Record<string, string>>;
  /** Per saved server: the pre-registered OAuth client it signs in with (`server add --client-id`). */
  clients?: Record<string, OAuthClientSettings>;
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

/** A legacy verdict goes stale silently (an upgraded server still answers initialize): re-probe daily. */
const LEGACY_VERDICT_MAX_AGE_MS = 24 * 60 * 60 * 1000;

export function homeDir(env: Record<string, string | undefined>): string {
  return env.MCP_TASK_HOME || envPaths("mcp-task", { suffix: "" }).config;
}

export interface PrivacyCheck {
  /** The user's id: a directory owned by anyone else is refused. */
  uid?: number;
  /** Told (one line) when a directory others could enter was made private. */
  onRepair?: (message: string) => void;
}

/**
 * Makes `dir` a private directory (0700), creating it if need be. One owned by another user is refused: its owner
 * could read the handles, whose arguments, answers and results may be sensitive. One that others could enter is
 * made private, with the files in it (0600), and `onRepair` is told. `inside`: a directory mcp-task makes inside
 * the home (tasks, brokers), which must be a real directory: a link there is refused, not followed (the home
 * itself may be a link the user made).
 */
export function ensurePrivateDir(dir: string, check: PrivacyCheck = {}, inside = false): void {
  makeDirs(dir, 0o700); // a store that cannot be written: StoreUnwritableError
  const stat = inside ? lstatSync(dir) : statSync(dir);
  const fix = "set MCP_TASK_HOME to a directory of your own";
  if (stat.isSymbolicLink())
    throw new UsageError(
      `${dir} is a symbolic link, and mcp-task keeps its files only in a directory of its own`,
      "remove the link (mcp-task makes the directory again)",
    );
  if (!stat.isDirectory()) throw new UsageError(`${dir} is not a directory`, fix);
  if (check.uid !== undefined && stat.uid !== check.uid)
    throw new UsageError(
      `${dir} belongs to another user (uid ${stat.uid}), and mcp-task keeps private data there`,
      fix,
    );
  if ((stat.mode & 0o077) === 0) return;
  const mode = (stat.mode & 0o777).toString(8);
  let files = 0;
  try {
    chmodSync(dir, 0o700);
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isFile() && (statSync(path).mode & 0o077) !== 0) {
        chmodSync(path, 0o600);
        files++;
      }
    }
  } catch (error) {
    const fault = unwritable(error, dir, true);
    if (!(fault instanceof StoreUnwritableError)) throw fault;
    // A read-only store cannot be repaired, nor written: what only reads it (`list`) still works, and says so.
    check.onRepair?.(`${dir} is open to other users (mode ${mode}) and could not be made private: ${fault.message}`);
    return;
  }
  check.onRepair?.(
    `${dir} was open to other users (mode ${mode}): made it private (0700)${files ? `, and ${files} file(s) in it (0600)` : ""}`,
  );
}

export class Settings {
  private readonly file: string;

  /** Opens the settings (asynchronous, as it was while they were loaded with conf). */
  static async open(home: string): Promise<Settings> {
    return new Settings(home);
  }

  private constructor(readonly home: string) {
    ensurePrivateDir(home);
    this.file = join(home, "settings.json");
    // A link followed, a FIFO waited on, /dev/zero read until memory runs out: refused before anything is read.
    try {
      checkOwnFile(this.file, MAX_SETTINGS_BYTES);
    } catch (error) {
      if (error instanceof UnsafeFileError)
        throw new UsageError(
          `cannot read ${this.file}: it is ${error.reason}`,
          "remove it or put your settings back in a regular file",
        );
      /* missing (written on the first change) or unreadable (said below) */
    }
    this.data();
  }

  /** The settings as the file has them now (read each time: another command may have changed them). */
  private data(): SettingsData {
    let text: string;
    try {
      text = readOwnText(this.file, MAX_SETTINGS_BYTES);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return { servers: {}, verdicts: {} };
      throw new UsageError(`cannot read ${this.file}: ${(error as Error).message}`, "fix or remove the file");
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new UsageError(`cannot read ${this.file}: ${(error as Error).message}`, "fix or remove the file");
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
      throw new UsageError(`cannot read ${this.file}: not a JSON object`, "fix or remove the file");
    const data = parsed as Partial<SettingsData>;
    return { ...data, servers: data.servers ?? {}, verdicts: data.verdicts ?? {} };
  }

  private get<K extends keyof SettingsData>(key: K): SettingsData[K] {
    return this.data()[key];
  }

  /** Sets (or, with undefined, removes) one key, the others as the file has them now. */
  private set<K extends keyof SettingsData>(key: K, value: SettingsData[K] | undefined): void {
    const data: Partial<SettingsData> = this.data();
    if (value === undefined) delete data[key];
    else data[key] = value;
    writeOwnFile(this.file, `${JSON.stringify(data, null, "\t")}\n`);
  }

  servers(): Record<string, ServerDescriptor> {
    return this.get("servers");
  }

  server(name: string): ServerDescriptor | undefined {
    const servers = this.servers();
    return Object.hasOwn(servers, name) ? servers[name] : undefined; // never "constructor", "__proto__"...
  }

  /**
   * Saves a server under `name`. A name that moves to another address loses its OAuth client (its id and the
   * reference to its secret were given for the old server): kept, it was sent to whatever authorization server the
   * new address names (a `server import` of a project's file that reused the name `prod`). The client goes first: a
   * process stopped between the two writes leaves a server without its client, never a new address with the old one.
   */
  saveServer(name: string, descriptor: ServerDescriptor): void {
    const before = this.server(name);
    if (!before || !sameServer(before, descriptor)) this.saveClient(name, undefined);
    this.set("servers", { ...this.servers(), [name]: descriptor });
  }

  removeServer(name: string): boolean {
    const servers = this.servers();
    if (!Object.hasOwn(servers, name)) return false;
    this.saveClient(name, undefined); // first, as in saveServer
    delete servers[name];
    this.set("servers", servers);
    if (this.defaultServer() === name) this.set("defaultServer", undefined);
    return true;
  }

  defaultServer(): string | undefined {
    return this.get("defaultServer");
  }

  setDefaultServer(name: string): void {
    this.set("defaultServer", name);
  }

  verdict(key: string, now: number): PriorDiscovery | undefined {
    const saved = this.get("verdicts")[key];
    if (!saved) return undefined;
    if (saved.verdict.kind === "legacy" && now - saved.at > LEGACY_VERDICT_MAX_AGE_MS) return undefined;
    return saved.verdict;
  }

  saveVerdict(key: string, verdict: PriorDiscovery, now: number): void {
    this.set("verdicts", { ...this.get("verdicts"), [key]: { verdict, at: now } });
  }

  taskSupport(key: string): Record<string, string> | undefined {
    return this.get("taskSupport")?.[key];
  }

  /**
   * Keeps each tool's task support (a call of a tool that never runs as a task goes straight to the server). What a
   * server lists is bounded here, not trusted: at most MAX_CACHED_TOOLS tools of names up to MAX_CACHED_TOOL_NAME
   * characters, for the newest MAX_CACHED_TOOL_SERVERS servers (95,000 tools of 190 characters once made settings.json 20 MB, past what it may be read at, and every
   * later command failed); a tool left out is only not known ahead.
   */
  saveTaskSupport(key: string, listed: Record<string, string>): void {
    const tools = Object.fromEntries(
      Object.entries(listed)
        .filter(([name]) => name.length <= MAX_CACHED_TOOL_NAME)
        .slice(0, MAX_CACHED_TOOLS),
    );
    const all = this.get("taskSupport") ?? {};
    if (JSON.stringify(all[key]) === JSON.stringify(tools)) return;
    // The servers of the newest MAX_CACHED_TOOL_SERVERS calls (each command line in each folder is a server).
    const others = Object.entries(all).filter(([k]) => k !== key);
    this.set("taskSupport", Object.fromEntries([...others.slice(-(MAX_CACHED_TOOL_SERVERS - 1)), [key, tools]]));
  }

  /** The pre-registered OAuth client of a saved server, if it has one. */
  client(name: string): OAuthClientSettings | undefined {
    const clients = this.get("clients") ?? {};
    return Object.hasOwn(clients, name) ? clients[name] : undefined;
  }

  saveClient(name: string, client: OAuthClientSettings | undefined): void {
    const clients = { ...(this.get("clients") ?? {}) };
    if (!client && !Object.hasOwn(clients, name)) return;
    if (client) clients[name] = client;
    else delete clients[name];
    this.set("clients", clients);
  }

  forgetVerdict(key: string): void {
    const verdicts = this.get("verdicts");
    delete verdicts[key];
    this.set("verdicts", verdicts);
  }
}
