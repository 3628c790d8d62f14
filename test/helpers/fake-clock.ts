// A Clock whose time moves only when the test says (src/model.ts Clock). Monotonic time starts at 0, so that a test
// reads "the reads came at t=0, 200, 400"; wall time starts at WALL_START and moves with it (or steps on its own:
// stepWall). A sleep ends when the test moves time past it (advance, advanceTo, runUntil: every sleep due, in time
// order, with the program's promises and file I/O settled between two) or when its signal aborts; never by itself.
//
//   const clock = new FakeClock();
//   const done = engine.watch(id)...;              // the program asks for sleeps
//   await clock.advance(200);                      // ends those due within 200 ms, one by one, settling between
//   await clock.runUntil(done);                    // or: moves from sleep to sleep until `done` settles
//   clock.asked                                    // every sleep asked: { at, ms }
//
// `seededRandom` is a replayable source for Context.random / the engine's jitter.
import type { Clock } from "../../src/model.js";

/** The wall time (ms since the epoch) at t=0 of a FakeClock. */
export const WALL_START = Date.parse("2026-06-01T12:00:00.000Z");

interface Sleep {
  until: number;
  /** Order of asking: sleeps due at the same time end in that order. */
  seq: number;
  wake: () => void;
}

/** File requests of this process in flight: the program is not idle while one is out. */
function ioPending(): boolean {
  return process
    .getActiveResourcesInfo()
    .some((kind) => kind.startsWith("FSReq") || kind === "CloseReq" || kind === "FileHandleCloseReq");
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Lets the program run as far as it can without time moving: its promises, and the file reads and writes they wait
 * for (three quiet turns of the event loop in a row with no file request out).
 */
export async function settle(): Promise<void> {
  for (let quiet = 0; quiet < 3;) {
    await turn();
    quiet = ioPending() ? 0 : quiet + 1;
  }
}

export class FakeClock implements Clock {
  private mono = 0;
  private wallOffset = 0;
  private seq = 0;
  private readonly sleeps: Sleep[] = [];
  /** Every sleep the program asked for (not the test's own timers): when, and for how long. */
  readonly asked: Array<{ at: number; ms: number }> = [];

  constructor(readonly wallStart = WALL_START) {}

  now(): number {
    return this.wallStart + this.mono + this.wallOffset;
  }

  monotonic(): number {
    return this.mono;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.asked.push({ at: this.mono, ms });
    return this.wait(ms, signal);
  }

  /** Calls `fn` at monotonic time `at` (a test's own event: a push, a server's reply): not counted in `asked`. */
  at(at: number, fn: () => void): void {
    void this.wait(at - this.mono).then(fn);
  }

  /** Steps the wall clock (NTP, a restored VM) by `ms`; monotonic time does not move. */
  stepWall(ms: number): void {
    this.wallOffset += ms;
  }

  /** Sleeps not yet ended. */
  get pending(): number {
    return this.sleeps.length;
  }

  /** When the earliest sleep ends (undefined: none). */
  get next(): number | undefined {
    return this.sleeps.length > 0 ? this.earliest().until : undefined;
  }

  /** Moves time `ms` on: see advanceTo. */
  advance(ms: number): Promise<void> {
    return this.advanceTo(this.mono + ms);
  }

  /** Moves time to `t`, ending every sleep due by then in time order, the program settled before and after each. */
  async advanceTo(t: number): Promise<void> {
    if (t < this.mono) throw new Error(`the fake clock is at ${this.mono}: it cannot go back to ${t}`);
    for (;;) {
      await settle();
      const next = this.sleeps.length > 0 ? this.earliest() : undefined;
      if (!next || next.until > t) break;
      this.sleeps.splice(this.sleeps.indexOf(next), 1);
      this.mono = Math.max(this.mono, next.until);
      next.wake();
    }
    this.mono = t;
    await settle();
  }

  /**
   * Moves time from sleep to sleep until `promise` settles, and returns (or throws) what it does. Fails when time
   * would pass `limitMs` (a wait that never ends on the fake clock), or when nothing sleeps and the program stays
   * busy for `hangMs` of real time (a hang: the program waits on something other than time).
   */
  async runUntil<T>(promise: Promise<T>, limitMs = 24 * 3_600_000, hangMs = 20_000): Promise<T> {
    let done = false;
    promise.then(
      () => (done = true),
      () => (done = true),
    );
    const limit = this.mono + limitMs;
    let idleSince: number | undefined;
    for (;;) {
      await settle();
      if (done) return promise;
      const next = this.next;
      if (next === undefined) {
        // Waiting on something outside the clock (a child process, a socket): real time, bounded only for a hang.
        idleSince ??= performance.now();
        if (performance.now() - idleSince > hangMs)
          throw new Error(`runUntil: nothing sleeps and the program has not finished (at t=${this.mono})`);
        await new Promise((resolve) => setTimeout(resolve, 5));
        continue;
      }
      idleSince = undefined;
      if (next > limit)
        throw new Error(`runUntil: still not finished at t=${this.mono}; the next sleep ends at ${next}`);
      await this.advanceTo(Math.max(next, this.mono));
    }
  }

  private earliest(): Sleep {
    let best = this.sleeps[0];
    for (const sleep of this.sleeps)
      if (sleep.until < best.until || (sleep.until === best.until && sleep.seq < best.seq)) best = sleep;
    return best;
  }

  private wait(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      if (signal?.aborted || !(ms > 0)) return resolve();
      const sleep: Sleep = {
        until: this.mono + ms,
        seq: this.seq++,
        wake: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
      };
      const onAbort = () => {
        const at = this.sleeps.indexOf(sleep);
        if (at >= 0) this.sleeps.splice(at, 1);
        resolve();
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.sleeps.push(sleep);
    });
  }
}

/** A replayable random source in [0, 1) (mulberry32): the same seed gives the same numbers. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** A source that gives `values` in turn, then the last one again (a jitter the test picks). */
export function fixedRandom(...values: number[]): () => number {
  let at = 0;
  return () => values[Math.min(at++, values.length - 1)];
}
