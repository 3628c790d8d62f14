// When the dashboard's views hear of a change: once per due time however much changes meanwhile, at the earliest
// time asked for (a notice soon, row changes with the clock's next second).
import type { Clock } from "../model.js";

export class Frames {
  /** The next notification of the listeners, when one is due. */
  private timer?: { at: number; stop: AbortController };

  constructor(
    private readonly clock: Clock,
    private readonly notify: () => void,
  ) {}

  /** The listeners are told now, by other means (the clock's tick): what was due is no longer. */
  cancel(): void {
    this.timer?.stop.abort();
    this.timer = undefined;
  }

  /** Tells the listeners of what changed at `at` at the latest (once, however much changes meanwhile). */
  due(at: number): void {
    if (this.timer && this.timer.at <= at) return;
    this.timer?.stop.abort();
    const timer = { at, stop: new AbortController() };
    this.timer = timer;
    void this.clock.sleep(at - this.clock.now(), timer.stop.signal).then(() => {
      if (timer.stop.signal.aborted) return;
      this.timer = undefined;
      this.notify();
    });
  }
}
