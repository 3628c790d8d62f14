// Which saved handles changed since the dashboard last looked: read from the store's index (one file, checked
// against the directory), not one read per handle file, and not at all while the store's change token says nothing
// changed (a full read still runs every minute, for files edited in place).
import type { HandleStore } from "../store/handles.js";
import type { HandleSummary } from "../model.js";

export interface StoreChanges {
  /** The summaries whose file changed (or are new). */
  changed: HandleSummary[];
  /** The stems whose file is gone. */
  removed: string[];
}

export class StoreScan {
  /** File times of the summaries seen so far: a rescan changes only the rows whose handle changed. */
  private readonly seen = new Map<string, number>();
  /** The store's change token at the last rescan, and how many rescans it spared since the last full one. */
  private mark = "";
  private spared = 0;

  /** `everyMs`: how often `changes` is called (a full read runs once a minute whatever the token says). */
  constructor(
    private readonly store: HandleStore,
    private readonly everyMs: number,
  ) {}

  /**
   * Summaries the dashboard holds already, read by another way (a large store's first page): the next call reports
   * those whose file is gone as removed, and those unchanged not at all.
   */
  holding(summaries: readonly HandleSummary[]): void {
    for (const { stem, mtime } of summaries) this.seen.set(stem, mtime);
  }

  /** What changed since the last call; undefined when nothing did. */
  async changes(): Promise<StoreChanges | undefined> {
    // Idle, a rescan is two stats, not one per handle; a full one still runs every minute, for files edited in place.
    const mark = this.store.mark();
    if (mark === this.mark && mark !== "" && ++this.spared < 60_000 / this.everyMs) return undefined;
    this.mark = mark;
    this.spared = 0;
    // A file that cannot be read is not taken for removed: its row stays as it was.
    const present = new Set<string>();
    const summaries = await this.store.summaries((file) => present.add(file.slice(0, -5)));
    const changed: HandleSummary[] = [];
    for (const summary of summaries) {
      present.add(summary.stem);
      if (this.seen.get(summary.stem) !== summary.mtime) changed.push(summary);
    }
    const removed = [...this.seen.keys()].filter((stem) => !present.has(stem));
    if (changed.length === 0 && removed.length === 0) return undefined;
    for (const { stem, mtime } of changed) this.seen.set(stem, mtime);
    for (const stem of removed) this.seen.delete(stem);
    return { changed, removed };
  }
}
