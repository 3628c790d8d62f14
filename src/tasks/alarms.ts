// One timer for the naps of every task an engine follows (TaskWatch). A dashboard's 1,000 tasks, with pushes that
// move each one's next read three seconds on every second, had a timer of their own each: about 330 timers armed
// again a second, each with its promise, abort controller and listener. Here each task has an Alarm, kept in a heap
// by the time it rings, and the engine one timer for the earliest of them. The timer rings at most once a grain
// (ALARM_GRAIN_MS), and then every alarm due: a wait ends no earlier than asked, on time when alarms are few (a
// command's one task), at most a grain later when many come due close together.
// Why not a timer-wheel package: the ones on npm are for thousands of timeouts that rarely ring (request timeouts),
// and schedule with setTimeout each; what is needed here (a heap keyed by time, over the injected Clock, so that a
// test's clock drives it) is these few lines.
import type { Clock } from "../model.js";

/** The timer rings at most once in this many milliseconds (see the file's head). */
export const ALARM_GRAIN_MS = 20;

export interface Alarm {
  /** Rings at `at` (within a grain after it), or at an earlier time already asked; each ring ends what was asked. */
  at(at: number): void;
  /** Rings no more until asked again. */
  clear(): void;
}

/** One entry of the heap: an alarm's time as asked; stale once the alarm's `asked` is another entry. */
interface Entry {
  at: number;
  alarm: AlarmState;
}

interface AlarmState {
  ring: () => void;
  /** The entry for the earliest time asked since the last ring (undefined: none). */
  asked?: Entry;
}

export class Alarms {
  /** A binary min-heap by `at`. Entries made stale (cleared, asked earlier again) stay until they come up. */
  private readonly heap: Entry[] = [];
  private timer?: { at: number; stop: AbortController };
  /** Alarms asked and not yet rung or cleared: with none, no timer is left to hold the process open. */
  private live = 0;
  /** When the timer last rang. */
  private rang = -Infinity;

  constructor(private readonly clock: Clock) {}

  /** An alarm that calls `ring` when it is due. */
  alarm(ring: () => void): Alarm {
    const state: AlarmState = { ring };
    return {
      at: (at) => {
        if (state.asked && state.asked.at <= at) return;
        if (!state.asked) this.live++;
        const entry = { at, alarm: state };
        state.asked = entry;
        this.push(entry);
        this.arm();
      },
      clear: () => {
        if (!state.asked) return;
        state.asked = undefined;
        if (--this.live === 0) this.arm();
      },
    };
  }

  /** The one timer, set for the earliest entry but a grain after the last ring at the soonest (set again only for an
   *  earlier time); none while no alarm is asked. */
  private arm(): void {
    if (this.live === 0) {
      // Nothing left to ring: the stale entries go, and the timer with them (it would hold the process open).
      this.heap.length = 0;
      this.timer?.stop.abort();
      this.timer = undefined;
      return;
    }
    const first = this.heap[0];
    if (!first) return;
    const at = Math.max(first.at, this.rang + ALARM_GRAIN_MS);
    if (this.timer && this.timer.at <= at) return;
    this.timer?.stop.abort();
    const timer = { at, stop: new AbortController() };
    this.timer = timer;
    void this.clock.sleep(at - this.clock.monotonic(), timer.stop.signal).then(() => {
      if (this.timer !== timer) return;
      this.timer = undefined;
      this.ringDue();
    });
  }

  /** Rings every alarm due now (each once), then sets the timer for the next. */
  private ringDue(): void {
    const now = this.clock.monotonic();
    this.rang = now;
    const due: AlarmState[] = [];
    while (this.heap.length > 0 && this.heap[0].at <= now) {
      const entry = this.pop();
      if (entry.alarm.asked !== entry) continue;
      entry.alarm.asked = undefined;
      this.live--;
      due.push(entry.alarm);
    }
    this.arm();
    // Rung after the heap is settled: a ring may ask its alarm again at once.
    for (const alarm of due) alarm.ring();
  }

  private push(entry: Entry): void {
    const heap = this.heap;
    let i = heap.push(entry) - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (heap[parent].at <= entry.at) break;
      heap[i] = heap[parent];
      i = parent;
    }
    heap[i] = entry;
  }

  private pop(): Entry {
    const heap = this.heap;
    const top = heap[0];
    const last = heap.pop()!;
    if (heap.length === 0) return top;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= heap.length) break;
      const right = left + 1;
      const child = right < heap.length && heap[right].at < heap[left].at ? right : left;
      if (heap[child].at >= last.at) break;
      heap[i] = heap[child];
      i = child;
    }
    heap[i] = last;
    return top;
  }
}
