// The handle store: one JSON file per task under <home>/tasks, written atomically (temp file, fsync, rename) so
// that concurrent processes never collide on a file and a process killed mid-write leaves the store readable.
// Updates of one handle from several processes are serialised by a per-handle lock and merged (read, change,
// write), so a status change seen by one watcher and an answer given by another are both kept.
import { constants, lstatSync, statSync, type Stats } from "node:fs";
import { link, lstat, open, readdir, rename, unlink } from "node:fs/promises";
import { join } from "node:path";
import { TaskNotFoundError, UsageError } from "../errors.js";
import { isTerminal, TASK_STATUSES } from "../protocol/wire.js";
import type { Handle, HandleSummary } from "../model.js";
import { ensurePrivateDir, type PrivacyCheck } from "./settings.js";
import { SummaryIndex } from "./summary-index.js";
import { sanitizeLine, shellValue } from "../sanitize.js";
import { sha256Hex, tempSuffix } from "../hash.js";
import { MAX_HANDLE_BYTES } from "../limits.js";
import { formatBytes, readOwnFile, readOwnText, UnsafeFileError } from "./safe-fs.js";

const MIN_PREFIX = 4;

/**
 * A file name for a task id: safe characters kept (so prefixes stay prefixes), others %-encoded, long ids cut and
 * hashed. An id with a lone surrogate (which UTF-8 writes as U+FFFD) is hashed too, so that no two ids share a name.
 */
export function fileStem(taskId: string, serverKey: string): string {
  let safe = "";
  for (const byte of Buffer.from(taskId, "utf8")) {
    const ch = String.fromCharCode(byte);
    safe += /[A-Za-z0-9_-]/.test(ch) ? ch : `%${byte.toString(16).padStart(2, "0")}`;
  }
  if (safe.length > 120 || /\p{Cs}/u.test(taskId)) safe = `${safe.slice(0, 100)}~${sha256Hex(taskId).slice(0, 16)}`;
  // An empty id would make a hidden file (".<key>.json") that no listing shows. A lone "%" is no other id's name
  // (every other "%" starts an escape of two hex digits), so "" gets a visible name of its own.
  if (safe === "") safe = "%";
  return `${safe}.${serverKey.slice(0, 8)}`;
}

/** The summary of a handle kept in the index (see summary-index.ts). */
export function summarize(stem: string, handle: Handle, mtime: number): HandleSummary {
  return {
    stem,
    mtime,
    taskId: handle.taskId,
    server: handle.server.name,
    tool: handle.tool,
    generation: handle.resume.generation,
    status: handle.outcome?.status ?? handle.last.status,
    statusMessage: handle.last.statusMessage ?? null,
    createdAt: handle.createdAt,
    taskCreatedAt: handle.last.createdAt ?? null,
    updatedAt: handle.updatedAt,
    ttlMs: handle.ttlMs ?? null,
    pollIntervalMs: handle.pollIntervalMs ?? null,
    gone: handle.gone?.reason ?? null,
    final: Boolean(handle.outcome) || isTerminal(handle.last.status),
    statusAt: handle.history.at(-1)?.at ?? null,
    outcome: Boolean(handle.outcome),
  };
}

export class HandleStore {
  readonly dir: string;
  private readonly index: SummaryIndex;

  /** Opens the store; its directories are checked at once (see ensurePrivateDir): refused if not ours, else made private. */
  constructor(home: string, check: PrivacyCheck = {}) {
    ensurePrivateDir(home, check);
    this.dir = join(home, "tasks");
    ensurePrivateDir(this.dir, check, true);
    this.index = new SummaryIndex(this.dir);
  }

  private path(stem: string): string {
    return join(this.dir, `${stem}.json`);
  }

  /**
   * Writes a handle atomically (temp file in the same directory, fsync, rename), then records its summary in the
   * index: after the rename, so that the index is never ahead of the file.
   */
  private async write(stem: string, handle: Handle, exclusive = false): Promise<boolean> {
    const text = JSON.stringify(handle);
    // Never write what the store would refuse to read back (see MAX_HANDLE_BYTES).
    if (text.length > MAX_HANDLE_BYTES / 3 && Buffer.byteLength(text) > MAX_HANDLE_BYTES) {
      throw new UsageError(
        `the task's handle would be larger than ${formatBytes(MAX_HANDLE_BYTES)}: not saved`,
        "give the tool smaller arguments",
      );
    }
    const temp = join(this.dir, `.tmp-${stem.slice(0, 40)}-${process.pid}-${tempSuffix()}`);
    // Created exclusively (never an existing file or link); the rename replaces whatever is at the name.
    const file = await open(
      temp,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0),
      0o600,
    );
    let mtime: number;
    try {
      await file.writeFile(text);
      await file.sync();
      mtime = (await file.stat()).mtimeMs; // a rename keeps it: the index can tell this version from a later one
    } finally {
      await file.close();
    }
    if (exclusive) {
      // link() puts the complete file in place only if no file has that name (EEXIST otherwise): atomic, like rename.
      try {
        await link(temp, this.path(stem));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
        throw error;
      } finally {
        await unlink(temp).catch(() => {});
      }
    } else await rename(temp, this.path(stem));
    this.index.append([summarize(stem, handle, mtime)]);
    return true;
  }

  private async read(stem: string): Promise<Handle | undefined> {
    return this.load(stem);
  }

  /**
   * One handle by its stem, read now (a long-running view reads the full handle only where it needs it):
   * undefined when its file is gone; throws when the file cannot be read or is not a handle.
   */
  load(stem: string): Handle | undefined {
    try {
      return readHandle(this.path(stem));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw error;
    }
  }

  /** Saves a new handle (or replaces one). */
  async create(stem: string, handle: Handle): Promise<void> {
    await this.write(stem, handle);
  }

  /** Saves a new handle unless one is saved under that stem already (then false, and nothing is written). */
  async createNew(stem: string, handle: Handle): Promise<boolean> {
    return this.write(stem, handle, true);
  }

  /** Read-modify-write under the handle's lock. Returns the updated handle. */
  async update(stem: string, change: (handle: Handle) => void): Promise<Handle> {
    // Loaded here, not at start: proper-lockfile brings graceful-fs, which patches fs when loaded (~10 ms that
    // `list` and the other read-only commands need not pay).
    const { default: lockfile } = await import("proper-lockfile");
    const release = await lockfile.lock(this.path(stem), {
      realpath: false,
      lockfilePath: join(this.dir, `.lock-${stem}`),
      stale: 10_000,
      // Retries span more than `stale` (about 15 s): a lock left by a process killed while holding it is taken
      // over once stale, instead of failing this update ("Lock file is already being held", exit 1).
      retries: { retries: 150, minTimeout: 5, maxTimeout: 100 },
    });
    try {
      const handle = await this.read(stem);
      if (!handle) throw new TaskNotFoundError("the saved handle disappeared (forgotten by another command?)");
      change(handle);
      await this.write(stem, handle);
      return handle;
    } finally {
      await release();
    }
  }

  /** Every readable handle with its stem; unreadable files are reported through `onBad`, never fatal. */
  async list(onBad?: OnBad): Promise<Array<{ stem: string; handle: Handle }>> {
    const names = (await readdir(this.dir)).filter((name) => name.endsWith(".json") && !name.startsWith("."));
    const out: Array<{ stem: string; handle: Handle }> = [];
    // Synchronous reads: for thousands of small files they cost a third of what as many promises do.
    for (const name of names) {
      try {
        out.push({ stem: name.slice(0, -5), handle: readHandle(join(this.dir, name)) });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") onBad?.(name, badReason(error));
      }
    }
    return out;
  }

  /**
   * The summary of every handle, from the index (one file) checked against the directory: entries whose file is
   * gone are dropped, files without an entry are read, and unfinished tasks' entries are read again when their
   * file's mtime moved. What had to be read is written back; a log grown well past its handles is compacted.
   */
  async summaries(onBad?: OnBad): Promise<HandleSummary[]> {
    // The directory is listed on libuv's thread pool while this thread reads and parses the index: for 10,000
    // handles, ~9 ms of listing hidden behind ~25 ms of parsing. (Either order is right: only listed files count,
    // and an entry is trusted only as the comments below say.)
    const listing = readdir(this.dir);
    const { entries, lines, damaged } = this.index.load();
    const names = await listing;
    const out: HandleSummary[] = [];
    const healed: HandleSummary[] = [];
    for (const name of names) {
      if (!name.endsWith(".json") || name.startsWith(".")) continue;
      const stem = name.slice(0, -5);
      const entry = entries.get(stem);
      if (entry?.final) {
        out.push(entry);
        continue;
      }
      const path = join(this.dir, name);
      try {
        // lstat: a link planted under a handle's name has a time of its own, never its target's. Without an entry
        // the file is read at once (the open file's fstat gives its time): one system call fewer per file.
        if (entry) {
          const stats = lstatSync(path);
          if (stats.mtimeMs === entry.mtime && stats.isFile()) {
            out.push(entry);
            continue;
          }
        }
        const summary = this.readSummary(stem, path);
        out.push(summary);
        healed.push(summary);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") onBad?.(name, badReason(error));
      }
    }
    if (damaged || lines > 2 * out.length + 1000) this.index.compact(out);
    else this.index.append(healed);
    return out;
  }

  /** A handle's summary read from its file now (the file's own mtime, from the open file). */
  private readSummary(stem: string, path: string): HandleSummary {
    let stats: Stats | undefined;
    const handle = parseHandle(readOwnText(path, MAX_HANDLE_BYTES, (s) => (stats = s)));
    return summarize(stem, handle, stats!.mtimeMs);
  }

  /**
   * Removes the handles that `wanted` picks, deciding on each handle's own file, never on the index alone: an index
   * entry is a cache that a crash, a copy or a forged line can make wrong, and a wrong entry must not delete a live
   * task's handle. When a file and its entry disagree, the index is rebuilt from the files. Returns how many went.
   */
  async removeWhere(wanted: (summary: HandleSummary) => boolean, onBad?: OnBad): Promise<number> {
    let removed = 0;
    let disagreed = false;
    for (const entry of (await this.summaries(onBad)).filter(wanted)) {
      let summary: HandleSummary;
      try {
        summary = this.readSummary(entry.stem, this.path(entry.stem));
      } catch (error) {
        disagreed = true;
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") onBad?.(`${entry.stem}.json`, badReason(error));
        continue;
      }
      if (JSON.stringify(summary) !== JSON.stringify(entry)) disagreed = true;
      if (wanted(summary) && (await this.remove(entry.stem))) removed++;
    }
    if (disagreed) await this.rebuildIndex();
    return removed;
  }

  /** Rewrites the index from the handle files alone (what it held is not used). */
  async rebuildIndex(): Promise<void> {
    const out: HandleSummary[] = [];
    for (const name of await readdir(this.dir)) {
      if (!name.endsWith(".json") || name.startsWith(".")) continue;
      try {
        out.push(this.readSummary(name.slice(0, -5), join(this.dir, name)));
      } catch {
        /* not a handle: left out (a listing reports it) */
      }
    }
    this.index.compact(out);
  }

  /**
   * A token that changes whenever a handle is written or removed by any process (every write renames a file into
   * the directory, which moves the directory's mtime): two stats tell a long-running view that nothing changed.
   */
  mark(): string {
    try {
      return `${statSync(this.dir).mtimeMs}:${statSync(this.index.path, { throwIfNoEntry: false })?.size ?? 0}`;
    } catch {
      return "";
    }
  }

  /**
   * Finds one handle by task id or unique prefix (at least 4 characters; a shorter word only as a whole id). When no
   * id starts with the word, ids are matched as they are shown (list, hints, `call --detach`: sanitizeLine), since
   * one with control characters cannot be typed or pasted. `server` (a server's name as `list` shows it) keeps
   * only that server's handles: the same id can be saved for two servers.
   */
  async find(idOrPrefix: string, server?: string): Promise<{ stem: string; handle: Handle }> {
    // Only the files whose names can hold such an id: its encoded form, up to where a long id's name is cut.
    const encoded = fileStem(idOrPrefix, "").slice(0, -1).replace(/~.*$/, "").slice(0, 100);
    const names = (await readdir(this.dir)).filter(
      (name) => name.endsWith(".json") && !name.startsWith(".") && name.startsWith(encoded),
    );
    const ofServer = (handle: Handle) => server === undefined || handle.server.name === server;
    let matches = await this.readMatching(names, (handle) => handle.taskId.startsWith(idOrPrefix) && ofServer(handle));
    if (matches.length === 0) {
      const shown = (await this.summaries()).filter((s) => sanitizeLine(s.taskId).startsWith(idOrPrefix));
      matches = await this.readMatching(
        shown.map((s) => `${s.stem}.json`),
        (handle) => sanitizeLine(handle.taskId).startsWith(idOrPrefix) && ofServer(handle),
      );
    }
    const exact = matches.filter((m) => m.handle.taskId === idOrPrefix || sanitizeLine(m.handle.taskId) === idOrPrefix);
    if (exact.length === 1) return exact[0];
    if (idOrPrefix.length < MIN_PREFIX)
      throw new UsageError(`a task id prefix needs at least ${MIN_PREFIX} characters: ${idOrPrefix}`);
    if (matches.length === 1) return matches[0];
    if (matches.length === 0) {
      const of = server === undefined ? "" : ` of server ${server}`;
      throw new TaskNotFoundError(
        `no saved task${of} matches ${idOrPrefix}`,
        "see the saved tasks with: mcp-task list",
      );
    }
    const shown = matches
      .slice(0, 5)
      .map((m) => `${m.handle.taskId} (${m.handle.server.name})`)
      .join(", ");
    // The same id saved for two servers: more characters cannot tell them apart, the server can.
    const sameId = new Set(matches.map((m) => m.handle.taskId)).size === 1;
    const fix = sameId
      ? `pick one by its server, as in: -s ${shellValue(matches[0].handle.server.name)}`
      : "give more characters of the id, or its server with -s <name>";
    throw new UsageError(`${idOrPrefix} matches ${matches.length} saved tasks: ${shown}`, fix);
  }

  private async readMatching(
    names: string[],
    wanted: (handle: Handle) => boolean,
  ): Promise<Array<{ stem: string; handle: Handle }>> {
    const out: Array<{ stem: string; handle: Handle }> = [];
    for (const name of names) {
      try {
        const handle = readHandle(join(this.dir, name));
        if (wanted(handle)) out.push({ stem: name.slice(0, -5), handle });
      } catch {
        /* unreadable or just removed: not a match */
      }
    }
    return out;
  }

  /** Removes temp files left by processes killed mid-write (older than `olderThanMs`). Returns how many. */
  async sweepTemps(now: number, olderThanMs = 10 * 60_000): Promise<number> {
    let removed = 0;
    for (const name of await readdir(this.dir)) {
      if (!name.startsWith(".tmp-")) continue;
      try {
        if (now - (await lstat(join(this.dir, name))).mtimeMs > olderThanMs) {
          await unlink(join(this.dir, name));
          removed++;
        }
      } catch {
        /* gone already */
      }
    }
    return removed;
  }

  async remove(stem: string): Promise<boolean> {
    try {
      await unlink(this.path(stem));
      this.index.append([{ stem, removed: true }]);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
      throw error;
    }
  }
}

/** Told of each file a listing skipped: its name and, in a few words, why. */
export type OnBad = (file: string, reason: string) => void;

/** Why a handle file was skipped, in a few words ("a symbolic link", "not a task handle", "not JSON"...). */
export function badReason(error: unknown): string {
  if (error instanceof UnsafeFileError) return error.reason;
  if (error instanceof SyntaxError) return "not JSON";
  if (error instanceof NotAHandleError) return error.message;
  return (error as NodeJS.ErrnoException).code ?? "unreadable";
}

class NotAHandleError extends Error {}

/** Reads a handle file under the store's checks (a regular file of ours, at most MAX_HANDLE_BYTES). */
function readHandle(path: string): Handle {
  return parseHandle(readOwnText(path, MAX_HANDLE_BYTES));
}

const STATUSES: ReadonlySet<unknown> = new Set(TASK_STATUSES);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const optString = (v: unknown) => v === undefined || v === null || typeof v === "string";
const optNumber = (v: unknown) => v === undefined || v === null || typeof v === "number";

/**
 * Parses a handle file, refusing anything that is not one: every field that a listing, the dashboard or a command
 * reads is checked for its type here, so that one malformed file (imported, planted, edited) is skipped as "not a
 * task handle" instead of failing later, for the whole store, in whatever code touched it first.
 */
export function parseHandle(text: string): Handle {
  const value = JSON.parse(text) as unknown;
  const fail = (what: string): never => {
    throw new NotAHandleError(`not a task handle (bad ${what})`);
  };
  if (!isObject(value) || value.version !== 1) return fail("version");
  if (typeof value.taskId !== "string") fail("taskId");
  if (typeof value.tool !== "string") fail("tool");
  const server = value.server;
  if (
    !isObject(server) ||
    typeof server.name !== "string" ||
    !isObject(server.descriptor) ||
    typeof server.descriptor.transport !== "string"
  )
    fail("server");
  if (!isObject(value.resume) || typeof value.resume.generation !== "string") fail("resume");
  if (!isObject(value.arguments)) fail("arguments");
  if (typeof value.createdAt !== "string" || typeof value.updatedAt !== "string") fail("times");
  if (!optNumber(value.ttlMs) || !optNumber(value.pollIntervalMs)) fail("ttl or poll interval");
  const last = value.last;
  if (!isObject(last) || !STATUSES.has(last.status) || !optString(last.statusMessage) || !optString(last.createdAt))
    fail("last status");
  if (
    !Array.isArray(value.history) ||
    !value.history.every(
      (h) => isObject(h) && STATUSES.has(h.status) && typeof h.at === "string" && optString(h.statusMessage),
    )
  )
    fail("history");
  if (!Array.isArray(value.answered) || !value.answered.every((key) => typeof key === "string")) fail("answered");
  if (value.outcome !== undefined && !(isObject(value.outcome) && STATUSES.has(value.outcome.status))) fail("outcome");
  if (value.gone !== undefined && !(isObject(value.gone) && typeof value.gone.reason === "string")) fail("gone");
  return value as unknown as Handle;
}
