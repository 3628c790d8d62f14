// The dashboard's state as an external store (useSyncExternalStore): the state its views draw, changed at once or,
// for the rows of followed tasks, in changes applied together at the next frame (./row-changes.ts), and listeners
// told at most once a frame however many tasks change (./frames.ts). The model (./model.ts) is one, with all the
// dashboard's work on top.
import type { Clock } from "../model.js";
import { FRAME_MS, Frames } from "./frames.js";
import { RowChanges } from "./row-changes.js";
import type { DashboardState, TaskRow } from "./state.js";

export class DashboardStore {
  protected state: DashboardState = { rows: [], questions: [], unread: 0, version: 0 };
  /** When the listeners hear of a change (./frames.ts). */
  protected readonly frames: Frames;

  constructor(private readonly clock: Clock) {
    this.frames = new Frames(clock, () => this.settle());
    this.subscribe = this.frames.subscribe;
    this.tick = this.frames.tick;
  }

  // --- the external-store protocol (useSyncExternalStore), and the clock's tick (see Frames) ---
  readonly subscribe: Frames["subscribe"];
  readonly tick: Frames["tick"];
  getState = (): DashboardState => {
    this.settle();
    return this.state;
  };
  /**
   * What the views draw (useSyncExternalStore's snapshot): the state without the row changes come since the last
   * frame, which Frames applies as it tells them. Read through getState, each render (and React's check after it) applied the row
   * changes come meanwhile, a new state that made React render again: two or three frames a second instead of one.
   */
  shown = (): DashboardState => this.state;

  /** Row changes not yet applied: applied together when the state is next read (a frame). */
  private readonly rowChanges = new RowChanges();

  protected settle(): void {
    const rows = this.rowChanges.apply(this.state.rows);
    if (rows) this.state = { ...this.state, rows, version: this.state.version + 1 };
  }

  /** Updates the state at once; listeners (React) hear of it at most every FRAME_MS, however many tasks change. */
  protected set(change: Partial<DashboardState>): void {
    this.settle();
    this.state = { ...this.state, ...change, version: this.state.version + 1 };
    this.frames.due(this.clock.monotonic() + FRAME_MS);
  }

  /** Changes one row: applied with the others' at the next read of the state (settle), in order. */
  protected updateRow(stem: string, change: (row: TaskRow) => TaskRow): void {
    this.rowChanges.add(stem, change);
    this.frames.rowChanged();
  }

  notify(notice: string): void {
    this.set({ notice });
  }
}
