// Settings: saved servers, the default server, and the cached generation verdicts, in settings.json, read and
// written whole (./settings-file.ts: read only if a regular file of this user; written as a temp file renamed over it). Task handles do not live here: one file rewritten per change loses concurrent
// writes (see docs/stack.md#conf). `conf` did this before; it loads AJV (300 KB, for a schema option not used
// here) and semver on import, a quarter of what a warm-broker call loaded.
import type { PriorDiscovery } from "@modelcontextprotocol/client";
import { UsageError } from "../errors.js";
import {
  MAX_CACHED_TOOL_NAME,
  MAX_CACHED_TOOL_SERVERS,
  MAX_CACHED_TOOLS,
  MAX_CACHED_VERDICT_BYTES,
  MAX_CACHED_VERDICTS,
  MAX_SAVED_SERVER_BYTES,
} from "../limits.js";
import { setOwn } from "../data.js";
import { descriptorKey, sameServer, type ServerDescriptor } from "../protocol/server.js";
import { verdictStanding } from "../protocol/revisions.js";
import {
  pastLimit,
  SettingsFile,
  SettingsFullError,
  type OAuthClientSettings,
  type SavedVerdict,
  type SettingsData,
} from "./settings-file.js";

// What the file is (read and written whole, safely) is ./settings-file.ts; these are its words too.
export { pastLimit, SettingsFullError, type OAuthClientSettings, type SavedVerdict };

// Where they were first: the home and its private directories (home.ts).
export { ensurePrivateDir, homeDir, type PrivacyCheck } from "./home.js";

/** A server's verdict as kept, and whether it may still be used without asking the server (`fresh`). */
export interface KnownVerdict {
  verdict: PriorDiscovery;
  fresh: boolean;
}

/** A server to save: its name, its descriptor and, where given, its OAuth client (undefined: none). */
export interface SavedServer {
  readonly name: string;
  readonly descriptor: ServerDescriptor;
  readonly client?: OAuthClientSettings;
}

/** Why a server may not be saved as it is (undefined when it may): past MAX_SAVED_SERVER_BYTES as settings keep it. */
export function savedServerProblem(server: SavedServer): string | undefined {
  const bytes = Buffer.byteLength(JSON.stringify({ [server.name]: server.descriptor, client: server.client }));
  if (bytes <= MAX_SAVED_SERVER_BYTES) return undefined;
  return `its address, headers, command line, arguments and environment take ${pastLimit(bytes, MAX_SAVED_SERVER_BYTES)} a saved server may take`;
}

/** Drops the verdict kept for a server (a descriptor read from the file may be any JSON: then there is none). */
function forgetVerdictOf(data: SettingsData, descriptor: ServerDescriptor): void {
  try {
    delete data.verdicts[descriptorKey(descriptor)];
  } catch {
    /* not a server descriptor: no verdict was kept under it */
  }
}

export class Settings {
  private readonly file: SettingsFile;

  /** Opens the settings (asynchronous, as it was while they were loaded with conf). */
  static async open(home: string): Promise<Settings> {
    return new Settings(home);
  }

  private constructor(readonly home: string) {
    this.file = new SettingsFile(home);
  }

  private data(): SettingsData {
    return this.file.read();
  }

  private get<K extends keyof SettingsData>(key: K): SettingsData[K] {
    return this.data()[key];
  }

  /** One read, the change, one write: the other keys as the file has them now. */
  private update(change: (data: SettingsData) => void): void {
    const data = this.data();
    change(data);
    this.file.write(data);
  }

  /** Sets (or, with undefined, removes) one key, the others as the file has them now. A cache (`cached`) that
   *  would not fit is not kept: it is only asked again. */
  private set<K extends keyof SettingsData>(key: K, value: SettingsData[K] | undefined, cached = false): void {
    try {
      this.update((data) => {
        if (value === undefined) delete data[key];
        else data[key] = value;
      });
    } catch (error) {
      if (!(cached && error instanceof SettingsFullError)) throw error;
    }
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
   * new address names (a `server import` of a project's file that reused the name `prod`).
   */
  saveServer(name: string, descriptor: ServerDescriptor): void {
    this.saveServers([{ name, descriptor }]);
  }

  /**
   * Saves servers in one write (1,000 imported servers were 1,000 rewrites of the file: 30 s). Each entry is bounded
   * (savedServerProblem: a UsageError naming it, nothing written), and so is the file (SettingsFullError, nothing
   * written). An entry with `client` sets its OAuth client (none: removed); without, a name that moves to another
   * address loses its client (saveServer). `defaultIfNone` becomes the default server if none is set.
   */
  saveServers(entries: readonly SavedServer[], defaultIfNone?: string): void {
    for (const entry of entries) {
      const problem = savedServerProblem(entry);
      if (problem) throw new UsageError(`server ${entry.name} not saved: ${problem}`, "shorten it, then save it again");
    }
    this.update((data) => {
      const clients = { ...(data.clients ?? {}) };
      for (const entry of entries) {
        const before = Object.hasOwn(data.servers, entry.name) ? data.servers[entry.name] : undefined;
        if ("client" in entry && entry.client) setOwn(clients, entry.name, entry.client);
        else if ("client" in entry || !before || !sameServer(before, entry.descriptor)) delete clients[entry.name];
        setOwn(data.servers, entry.name, entry.descriptor);
        // A server saved (again) is negotiated afresh: what was found at its address may be another server's.
        forgetVerdictOf(data, entry.descriptor);
        if (before) forgetVerdictOf(data, before);
      }
      if (data.clients !== undefined || Object.keys(clients).length > 0) data.clients = clients;
      if (defaultIfNone !== undefined && !data.defaultServer) data.defaultServer = defaultIfNone;
    });
  }

  removeServer(name: string): boolean {
    const servers = this.servers();
    if (!Object.hasOwn(servers, name)) return false;
    this.update((data) => {
      if (data.clients) delete data.clients[name];
      forgetVerdictOf(data, data.servers[name]); // saved again later, it is negotiated afresh
      delete data.servers[name];
      if (data.defaultServer === name) delete data.defaultServer;
    });
    return true;
  }

  defaultServer(): string | undefined {
    return this.get("defaultServer");
  }

  setDefaultServer(name: string): void {
    this.set("defaultServer", name);
  }

  /**
   * A server's verdict, for as long as the protocol trusts it (verdictStanding, src/protocol/revisions.ts): fresh,
   * or kept only as the likely generation, which the connection checks before use (connect.ts).
   */
  verdict(key: string, now: number): KnownVerdict | undefined {
    const verdicts = this.get("verdicts");
    const saved = Object.hasOwn(verdicts, key) ? verdicts[key] : undefined;
    if (!saved?.verdict || typeof saved.at !== "number") return undefined;
    const standing = verdictStanding(saved.verdict, now - saved.at);
    return standing && { verdict: saved.verdict, fresh: standing === "fresh" };
  }

  /** Keeps a server's verdict, if it is small enough, among the newest MAX_CACHED_VERDICTS (a cache: a verdict not
   *  kept is only found again). */
  saveVerdict(key: string, verdict: PriorDiscovery, now: number): void {
    const saved: SavedVerdict = { verdict, at: now };
    if (Buffer.byteLength(JSON.stringify(saved)) > MAX_CACHED_VERDICT_BYTES) return;
    const others = Object.entries(this.get("verdicts")).filter(([k]) => k !== key);
    const verdicts: Record<string, SavedVerdict> = {};
    for (const [k, v] of [...others.slice(-(MAX_CACHED_VERDICTS - 1)), [key, saved] as const]) setOwn(verdicts, k, v);
    this.set("verdicts", verdicts, true);
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
    this.set("taskSupport", Object.fromEntries([...others.slice(-(MAX_CACHED_TOOL_SERVERS - 1)), [key, tools]]), true);
  }

  /** The pre-registered OAuth client of a saved server, if it has one. */
  client(name: string): OAuthClientSettings | undefined {
    const clients = this.get("clients") ?? {};
    return Object.hasOwn(clients, name) ? clients[name] : undefined;
  }

  saveClient(name: string, client: OAuthClientSettings | undefined): void {
    const clients = { ...(this.get("clients") ?? {}) };
    if (!client && !Object.hasOwn(clients, name)) return;
    if (client) setOwn(clients, name, client);
    else delete clients[name];
    this.set("clients", clients);
  }

  /** Forgets a server's verdict (the next connection negotiates afresh); true if there was one. */
  forgetVerdict(key: string): boolean {
    const verdicts = this.get("verdicts");
    if (!Object.hasOwn(verdicts, key)) return false;
    delete verdicts[key];
    this.set("verdicts", verdicts);
    return true;
  }
}
