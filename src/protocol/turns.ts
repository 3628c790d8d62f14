// Work that takes turns: at most so many pieces running at once, the rest started in the order they came (a
// connection's tasks/get requests: src/protocol/rpc.ts). Not p-limit: a few lines here, against a dependency in the
// bundle every command loads, and it has no way for a piece to leave the line while it waits.

export class Turns {
  private running = 0;
  /** The pieces waiting, each by the function that starts it (a Set: one that leaves is deleted at once). */
  private readonly line = new Set<() => void>();

  constructor(private readonly size: number) {}

  /**
   * Runs `work` now if a place is free, else once one is handed to it. While it waits, its `signal` aborting makes it
   * leave the line and reject with `aborted()`; once its place is handed over, it runs (the work sees the signal
   * itself), so that the place is given back when it ends. A place is handed over at the next turn of the event loop,
   * after the end of the work that held it has run its course (over HTTP, its response's stream ended and its
   * connection free: handed over at once, 16 places took 28 connections).
   */
  async run<T>(work: () => Promise<T>, signal: AbortSignal | undefined, aborted: () => Error): Promise<T> {
    if (this.running < this.size) this.running++;
    else await this.turn(signal, aborted);
    try {
      return await work();
    } finally {
      const [next] = this.line;
      if (next) {
        this.line.delete(next);
        setImmediate(next);
      } else this.running--;
    }
  }

  /** How many pieces wait for a place. */
  get waiting(): number {
    return this.line.size;
  }

  private turn(signal: AbortSignal | undefined, aborted: () => Error): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(aborted());
      const start = () => {
        signal?.removeEventListener("abort", leave);
        resolve();
      };
      // Only while still in line: a place already handed over (its start due at the next turn) is taken, and given
      // back by run when the work ends; rejected here instead, it would be held for good.
      const leave = () => {
        if (this.line.delete(start)) reject(aborted());
      };
      signal?.addEventListener("abort", leave, { once: true });
      this.line.add(start);
    });
  }
}
