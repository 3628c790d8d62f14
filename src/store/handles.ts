// The handle store: one JSON file per task under <home>/tasks, written atomically (temp file, fsync, rename) so
// that concurrent processes never collide on a file and a process killed mid-write leaves the store readable.
// Updates of one handle from several processes are serialised by a per-handle lock and merged (read, change,
// write), so a status change seen by one watcher and an answer given by another are both kept.
import { statSync } from "node:fs";
import { readdir, unlink } from "node:fs/promises";
import { dirname, join } from "node:path";
import { StoreUnwritableError, TaskNotFoundError, UsageError } from "../errors.js";
import type { Handle, HandleSummary } from "../model.js";
import { ensurePrivateDir, type PrivacyCheck } from "./settings.js";
import { SummaryIndex, type LogPosition } from "./summary-index.js";
import { MAX_HANDLE_BYTES } from "../limits.js";
import { formatBytes } from "./safe-fs.js";
import { unwritable } from "./unwritable.js";
import { lockHandle, sweepTempFiles, writeAtomically } from "./handle-write.js";
import { badReason, readHandle, summarize, type OnBad } from "./handle-file.js";
import { readSummaries, readSummary } from "./summaries.js";
import { readRawListing, type RawListing } from "./raw-listing.js";
import { newestSummaries } from "./listing-order.js";
import { findHandle } from "./find.js";
import { mentionsAny, redactValue, type ServerDescriptor } from "../protocol/server.js";

/**
 * The secrets of a handle's server (the process's redaction map, which this adds them to: see src/secrets.ts): no
 * handle is written with one in it, and a command that shows a handle has them redacted from its output.
 */
export type SecretsOf = (server: ServerDescriptor) => Promise<ReadonlyMap<string, string>>;

export class HandleStore {
  readonly dir: string;
  private readonly index: SummaryIndex;
  /**
   * The first change of a followed task that could not be written because the store cannot be written (a full disk,
   * a read-only home), kept in memory by its tracker (tasks/tracker.ts): the command shows what it read, then ends
   * with this error (src/cli.ts).
   */
  unsaved?: StoreUnwritableError;

  /**
   * Opens the store; its directories are checked at once (see ensurePrivateDir): refused if not ours, else made
   * private.
   */
  constructor(
    home: string,
    check: PrivacyCheck = {},
    private readonly secretsOf?: SecretsOf,
  ) {
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
  private async write(stem: string, given: Handle, exclusive = false): Promise<boolean> {
    let handle = given;
    let text = JSON.stringify(handle);
    // Redacted as written (a status message or result that echoes the request's token): the file and the index line
    // alike, so that no reader (list --json copies rows as they are) can print a secret. One search per form of each
    // known secret; the copy only when one is there.
    const secrets = await this.secretsOf?.(handle.server.descriptor);
    if (secrets?.size && mentionsAny(text, secrets)) {
      handle = redactValue(handle, secrets);
      text = JSON.stringify(handle);
    }
    // Never write what the store would refuse to read back (see MAX_HANDLE_BYTES).
    if (text.length > MAX_HANDLE_BYTES / 3 && Buffer.byteLength(text) > MAX_HANDLE_BYTES) {
      throw new UsageError(
        `the task's handle would be larger than ${formatBytes(MAX_HANDLE_BYTES)}: not saved`,
        "give the tool smaller arguments",
      );
    }
    const mtime = await writeAtomically(this.path(stem), text, exclusive);
    if (mtime === false) return false;
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
    const release = await lockHandle(this.dir, this.path(stem), stem);
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
   * The summary of every handle (see readSummaries); unreadable files are reported through `onBad`, and where the
   * index's lines read end through `onEnd` (see changedSince).
   */
  async summaries(onBad?: OnBad, onEnd?: (end: LogPosition | undefined) => void): Promise<HandleSummary[]> {
    return readSummaries(this.dir, this.index, onBad, onEnd);
  }

  /**
   * The handles saved and removed since the index's position `at` (from summaries' onEnd or an earlier call), from
   * the index's lines appended since, newest line last; undefined when only a whole read can tell (see
   * SummaryIndex.appendedSince). What a writer did not append (one killed between its file and its line, a file
   * edited in place) shows only in a whole read.
   */
  changedSince(at: LogPosition): { saved: HandleSummary[]; removed: string[]; end: LogPosition } | undefined {
    const appended = this.index.appendedSince(at);
    if (!appended) return undefined;
    const latest = new Map<string, HandleSummary | undefined>();
    for (const line of appended.lines) {
      if ("dirMtime" in line) continue;
      latest.delete(line.stem); // the order of the Map is the order of the last lines
      latest.set(line.stem, "removed" in line ? undefined : line);
    }
    const saved: HandleSummary[] = [];
    const removed: string[] = [];
    for (const [stem, summary] of latest) {
      if (summary) saved.push(summary);
      else removed.push(stem);
    }
    return { saved, removed, end: appended.end };
  }

  /**
   * `list`'s rows, finished tasks' unparsed, when the index allows it (see readRawListing): `copied` (the default,
   * `list --json`) or `parsed`, by a caller that parses each row it uses (see RawTrust).
   */
  rawListing(onBad?: OnBad, trust: "copied" | "parsed" = "copied"): RawListing | undefined {
    return readRawListing(this.dir, this.index, trust, onBad);
  }

  /**
   * The newest `count` summaries and how many handles there are, from the raw listing where the index allows it (a
   * large store: only the rows asked for are parsed); undefined otherwise (then summaries, which reads them all).
   * `provisional`: the index as it is, its stamp standing or not (see RawTrust), for a reader that reads them all
   * next.
   */
  newest(
    count: number,
    options: { onBad?: OnBad; provisional?: boolean } = {},
  ): { newest: HandleSummary[]; total: number } | undefined {
    const raw = readRawListing(this.dir, this.index, options.provisional ? "provisional" : "parsed", options.onBad);
    return raw && newestSummaries(raw, count);
  }

  /**
   * Removes the handles that `wanted` picks, deciding on each handle's own file, never on the index alone: an index
   * entry is a cache that a crash, a copy or a forged line can make wrong, and a wrong entry must not delete a live
   * task's handle. When a file and its entry disagree, the index is rebuilt from the files. Returns the summaries of
   * those that went (`dryRun`: of those that would go, none removed).
   */
  async removeWhere(
    wanted: (summary: HandleSummary) => boolean,
    onBad?: OnBad,
    options: { dryRun?: boolean } = {},
  ): Promise<HandleSummary[]> {
    const removed: HandleSummary[] = [];
    let disagreed = false;
    for (const entry of (await this.summaries(onBad)).filter(wanted)) {
      let summary: HandleSummary;
      try {
        summary = readSummary(entry.stem, this.path(entry.stem));
      } catch (error) {
        disagreed = true;
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") onBad?.(`${entry.stem}.json`, badReason(error));
        continue;
      }
      if (JSON.stringify(summary) !== JSON.stringify(entry)) disagreed = true;
      if (wanted(summary) && (options.dryRun || (await this.remove(entry.stem)))) removed.push(summary);
    }
    if (disagreed && !options.dryRun) await this.rebuildIndex();
    return removed;
  }

  /** Rewrites the index from the handle files alone (what it held is not used). */
  private async rebuildIndex(): Promise<void> {
    const out: HandleSummary[] = [];
    for (const name of await readdir(this.dir)) {
      if (!name.endsWith(".json") || name.startsWith(".")) continue;
      try {
        out.push(readSummary(name.slice(0, -5), join(this.dir, name)));
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

  /** One handle by task id or unique prefix (see findHandle). */
  async find(idOrPrefix: string, server?: string): Promise<{ stem: string; handle: Handle }> {
    const found = await findHandle(this, idOrPrefix, server);
    // What a command shows of it (a handle written before its secrets were known too) is redacted of them.
    await this.secretsOf?.(found.handle.server.descriptor);
    return found;
  }

  /**
   * Removes temp files (`.tmp-…`) left by processes killed mid-write (older than `olderThanMs`): the handles', and
   * those of the other files written whole in the home (settings, sign-ins, brokers' records). Returns how many.
   */
  async sweepTemps(now: number, olderThanMs = 10 * 60_000): Promise<number> {
    const home = dirname(this.dir);
    return sweepTempFiles([this.dir, home, join(home, "auth"), join(home, "brokers")], now, olderThanMs);
  }

  async remove(stem: string): Promise<boolean> {
    try {
      await unlink(this.path(stem));
      this.index.append([{ stem, removed: true }]);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
      throw unwritable(error, this.path(stem));
    }
  }
}
