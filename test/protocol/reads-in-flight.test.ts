// Turns (src/protocol/turns.ts): the bound on a connection's tasks/get in flight. The real connection's count is
// tested over HTTP in test/engine/v2-push-and-cancel.test.ts; here, the moments a real server cannot be made to hit: a piece given
// up while it waits, and one given up just as its place is handed over (between the end of the work before it and
// its start at the next turn of the event loop), which must not keep the place.
import { describe, expect, it } from "vitest";
import { Turns } from "../../src/protocol/turns.js";

/** A piece of work that ends when told to. */
function piece() {
  let end!: () => void;
  const done = new Promise<string>((resolve) => (end = () => resolve("done")));
  return { work: () => done, end };
}

const aborted = () => new Error("given up");

describe("Turns", () => {
  it("runs at most its size at once, the rest in the order they came", async () => {
    const turns = new Turns(2);
    const started: number[] = [];
    const pieces = [0, 1, 2, 3].map(() => piece());
    const runs = pieces.map((p, i) =>
      turns.run(
        () => {
          started.push(i);
          return p.work();
        },
        undefined,
        aborted,
      ),
    );
    await new Promise((next) => setImmediate(next));
    expect(started).toEqual([0, 1]);
    expect(turns.waiting).toBe(2);
    pieces[1].end();
    await runs[1];
    await new Promise((next) => setImmediate(next));
    expect(started).toEqual([0, 1, 2]);
    pieces[0].end();
    pieces[2].end();
    pieces[3].end();
    expect(await Promise.all(runs)).toEqual(["done", "done", "done", "done"]);
    expect(turns.waiting).toBe(0);
  });

  it("a piece given up while it waits leaves the line with its error, and never runs", async () => {
    const turns = new Turns(1);
    const first = piece();
    const running = turns.run(first.work, undefined, aborted);
    const stop = new AbortController();
    let ran = false;
    const waiting = turns.run(async () => void (ran = true), stop.signal, aborted);
    stop.abort();
    await expect(waiting).rejects.toThrow("given up");
    expect(turns.waiting).toBe(0);
    first.end();
    await running;
    expect(ran).toBe(false);
    // The place is free again: the next piece runs at once.
    const next = piece();
    const after = turns.run(next.work, undefined, aborted);
    next.end();
    expect(await after).toBe("done");
  });

  it("a piece given up as its place is handed over runs and gives the place back", async () => {
    const turns = new Turns(1);
    const first = piece();
    const running = turns.run(first.work, undefined, aborted);
    const stop = new AbortController();
    // The work sees the signal itself, as a request does.
    const handed = turns.run(
      () => (stop.signal.aborted ? Promise.reject(stop.signal.reason) : Promise.resolve("ran")),
      stop.signal,
      aborted,
    );
    first.end();
    await running; // the place is handed over: the piece starts at the next turn of the event loop
    stop.abort(new Error("stopped"));
    await expect(handed).rejects.toThrow("stopped");
    // Kept, the place would make this wait for good.
    const next = piece();
    const after = turns.run(next.work, undefined, aborted);
    next.end();
    // hang-only: kept, the place holds the next piece forever; handed over, it runs within a turn of the event loop.
    expect(await Promise.race([after, new Promise((r) => setTimeout(() => r("stuck"), 10_000))])).toBe("done");
  });
});
