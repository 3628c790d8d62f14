// The dashboard's row changes not yet applied, by stem: the updates of many followed tasks (1,000 of them change
// about 1,000 times a second) cost one pass over the rows when the state is next read (a frame), not one pass over
// every row each.
import type { TaskRow } from "./state.js";

export class RowChanges {
  private pending = new Map<string, (row: TaskRow) => TaskRow>();

  /**
   * Changes one row, after the changes to it already pending. The same change given again while it is the only one
   * pending is pending once: a change is given again only where applying it twice is applying it once (it reads the
   * row's source as it is applied: model.ts, a followed task's row at each of its snapshots).
   */
  add(stem: string, change: (row: TaskRow) => TaskRow): void {
    const before = this.pending.get(stem);
    if (before === change) return;
    this.pending.set(stem, before ? (row) => change(before(row)) : change);
  }

  /** The rows with every pending change applied, in one pass (undefined when none is pending); forgets them. */
  apply(rows: readonly TaskRow[]): TaskRow[] | undefined {
    if (this.pending.size === 0) return undefined;
    const changes = this.pending;
    this.pending = new Map();
    return rows.map((row) => changes.get(row.stem)?.(row) ?? row);
  }
}
