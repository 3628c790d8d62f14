// Which saved handles changed since the dashboard last looked: read from the store's index (one file, checked
// against the directory; between whole reads, only the lines appended to it since), not one read per handle file,
// and not at all while the store's change token says nothing changed (a whole read still runs every minute, for
// files edited in place).
import type { HandleStore } from "../store/handles.js";
import type { LogPosition } from "../store/summary-index.js";
import type { HandleSummary } from "../model.js";
import type { TaskRow } from "./state.js";

export interface StoreChanges {
  /** The summaries whose file changed (or are new). */
  changed: HandleSummary[];
  /** The stems whose file is gone. */
  removed: string[];
}

export class StoreScan {
  /** File times of the summaries seen so far: a rescan changes only the rows whose handle changed. */
  private readonly seen = new Map<string, number>();
  /** The store's change token at the last rescan, and how many rescans since the last whole read. */
  private mark = "";
  private sinceWhole = 0;
  /** Where the index's lines read so far end: a rescan reads only the lines appended since (see changedSince). */
  private end?: LogPosition;

  /** `everyMs`: how often `changes` is called (a whole read runs once a minute whatever the token says). */
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
    // Idle, a rescan is two stats; when something changed, the index's lines appended since the last rescan (a
    // dashboard following 1,000 tasks writes a few of their handles a second, and parsing the whole index again
    // for them was most of its memory's churn). A whole read, which lists the directory, still runs every minute:
    // for what the index's end does not show (a file edited in place, a writer killed before its line).
    const mark = this.store.mark();
    const whole = ++this.sinceWhole >= 60_000 / this.everyMs || !this.end;
    if (mark === this.mark && mark !== "" && !whole) return undefined;
    this.mark = mark;
    const appended = whole ? undefined : this.store.changedSince(this.end!);
    if (appended) {
      this.end = appended.end;
      return this.report(appended.saved, appended.removed);
    }
    this.sinceWhole = 0;
    // A file that cannot be read is not taken for removed: its row stays as it was.
    const present = new Set<string>();
    const summaries = await this.store.summaries(
      (file) => present.add(file.slice(0, -5)),
      (end) => (this.end = end),
    );
    for (const summary of summaries) present.add(summary.stem);
    return this.report(
      summaries,
      [...this.seen.keys()].filter((stem) => !present.has(stem)),
    );
  }

  /** The summaries whose file time is new to this scan, and the removed stems it knew. */
  private report(summaries: readonly HandleSummary[], removed: string[]): StoreChanges | undefined {
    const changed = summaries.filter((summary) => this.seen.get(summary.stem) !== summary.mtime);
    const gone = removed.filter((stem) => this.seen.has(stem));
    if (changed.length === 0 && gone.length === 0) return undefined;
    for (const { stem, mtime } of changed) this.seen.set(stem, mtime);
    for (const stem of gone) this.seen.delete(stem);
    return { changed, removed: gone };
  }
}

/**
 * The rows after a scan found `changes`: the removed dropped, the changed made from their new summary (`made`: the
 * row as shown, with its full handle where it needs one), except rows being followed (`followed`), which keep their
 * in-memory state (the newer one). Undefined when the only changes are the followed rows' own files (this
 * dashboard's own writes, every few seconds while it follows many): the rows are not made and drawn anew.
 */
export function rowsAfterScan(
  rows: readonly TaskRow[],
  { changed, removed }: StoreChanges,
  followed: (stem: string) => boolean,
  made: (row: TaskRow) => TaskRow,
): TaskRow[] | undefined {
  const shown = new Set(rows.map((row) => row.stem));
  if (removed.length === 0 && changed.every(({ stem }) => followed(stem) && shown.has(stem))) return undefined;
  const gone = new Set(removed);
  const byStem = new Map(rows.filter((row) => !gone.has(row.stem)).map((row) => [row.stem, row]));
  for (const summary of changed) {
    const { stem } = summary;
    const row = byStem.get(stem);
    if (row && followed(stem)) continue;
    byStem.set(stem, made({ stem, summary, connection: row?.connection ?? "idle", error: row?.error }));
  }
  return [...byStem.values()];
}
