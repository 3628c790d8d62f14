// When the dashboard's views hear of a change: once per due time however much changes meanwhile, at the earliest
// time asked for (a notice soon, row changes with the clock's next tick), and at each tick of the clock.
import type { Clock } from "../model.js";
import { Alarms, type Alarm } from "../tasks/alarms.js";

/** The shortest time between two notifications of the views: drawing (Ink measures every character of every
 *  line) is what following many tasks costs most, and a status board needs no more than a few frames a second. */
export const FRAME_MS = 250;
/** Rows that changed are drawn with the clock's next tick (hooks.ts: useNow, which redraws the ages of running
 *  tasks then anyway, and calls `tick`): one frame a second however many followed tasks change in between. Without
 *  a tick by then (the clock ticks each minute on a board of finished tasks), a second after the next whole one. */
export const ROW_FRAME_MS = 1000;

export class Frames {
  private readonly listeners = new Set<() => void>();
  /** The next notification of the listeners, when one is due (the tasks' own timer: src/tasks/alarms.ts). */
  private readonly next: Alarm;

  constructor(
    private readonly clock: Clock,
    /** Brings the state up to date just before the views are told (the row changes come since the last frame). */
    private readonly settle: () => void,
  ) {
    this.next = new Alarms(clock).alarm(() => this.tell());
  }

  /** The external-store protocol (useSyncExternalStore). */
  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /** The clock's tick: the views hear of every change now, in the same turn as the new time (see useNow). */
  tick = (): void => {
    this.next.clear();
    this.tell();
  };

  /** Tells the listeners of what changed at `at` at the latest (once, however much changes meanwhile). */
  due(at: number): void {
    this.next.at(at);
  }

  /** A row change: drawn with the next tick (or, without one, a second after it). */
  rowChanged(): void {
    const now = this.clock.monotonic();
    this.due(now - (now % ROW_FRAME_MS) + 2 * ROW_FRAME_MS);
  }

  private tell(): void {
    this.settle();
    this.listeners.forEach((listener) => listener());
  }
}
