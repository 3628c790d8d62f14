// The V8 tuning of a process that runs for hours (Context.longRun: the dashboard, a broker): how far the old
// generation grows between full collections, how large the young one gets, and when full collections reduce memory,
// watched every 250 ms. Short commands keep V8's defaults: they end before it matters.

/**
 * How far V8 lets its old generation grow past what the last full collection found live before the next one, in a
 * process that runs for hours (Context.longRun). Left to itself V8 lets it grow to about three times: a dashboard
 * following 1,000 live tasks keeps 45-60 MB live and grew its old generation to ~200 MB between collections, most
 * of it garbage waiting. Measured there at 25, 50 and 100 percent and V8's default: 33, 28, 27 and 28 % CPU; 185,
 * 189, 218 and 222 MiB resident. Short commands keep V8's default: they end before it matters.
 */
const LONG_RUN_HEAP_GROWING_PERCENT = 50;

/**
 * The young generation (new space) a long run lets V8 grow to: V8 doubles it under a steady allocation rate up to
 * 32 MB (16 MB semi-spaces), a fixed cost of the dashboard's memory. Measured with 1,000 live tasks (in turns, same
 * machine): V8's 32 MB: 19-21 % CPU, 185-193 MiB; capped at 8 MB: 18-20 %, 162-164; at 4 MB the same; not let grow
 * at all (2 MB): 24 %, 156.
 */
const LONG_RUN_NEW_SPACE_BYTES = 8 * 1024 * 1024;

/**
 * The resident memory past which a long run's full collections reduce memory, and the one below which they stop
 * again (see tuneForLongRun). One threshold for both, at 140 MiB, turned the reducing on and off over and over in a
 * dashboard following 1,000 live tasks, which sits at 138-146 MiB: 11.2, 11.8 and 13.7 % CPU at 138-140 MiB, against
 * 8.8, 8.8 and 9.1 % at 145-146 MiB with the reducing off below 146 (in turns, same machine, 40 s windows). The
 * reducing held that dashboard at 138-140 MiB, so it stops below 140: a level it reaches.
 */
const LONG_RUN_RESIDENT_BYTES = 146 * 1024 * 1024;
const LONG_RUN_RESIDENT_LOW_BYTES = 140 * 1024 * 1024;

/**
 * V8 reads the growing factor at each full collection, so the flag takes effect when set at run time (node:v8 is
 * loaded here, not by every command at start). The young generation's size flag (--max-semi-space-size) is read
 * only when the heap is made, at the process's start (set at run time it changes nothing, measured), but the factor
 * it grows by is read at each growth: the new space is let grow (V8's factor, 2) while it is below
 * LONG_RUN_NEW_SPACE_BYTES, and not past it (a factor of 1).
 *
 * --optimize-for-size (read by V8 at each collection) makes every full collection reduce memory: the old generation
 * compacted and kept near what is live, freed pages given back, the new space shrunk (then let grow back to the cap).
 * Left on for good, as it was, it cost a dashboard following 1,000 live tasks 3 to 4 points of CPU (14.5 and 15.8 %
 * against 10.5; in turns, same machine): each of its collections left the old generation so little room that two
 * more came 0.65 s apart and freed 1.5 MB each (--trace-gc). Off for good, the new space kept the 32 MB a start
 * grows it to (a dashboard reading 1,000 handles and making each task's first read, faster than the watch below
 * sees), which V8 shrinks only in a collection that reduces memory: 168-179 MiB resident. So it is on only while
 * needed: while the new space is past the cap, and from the moment the process is past LONG_RUN_RESIDENT_BYTES
 * resident until it is back below LONG_RUN_RESIDENT_LOW_BYTES (a dashboard following many more tasks keeps memory
 * first).
 */
export function tuneForLongRun(): void {
  void import("node:v8").then(({ setFlagsFromString, getHeapSpaceStatistics }) => {
    setFlagsFromString(`--heap-growing-percent=${LONG_RUN_HEAP_GROWING_PERCENT}`);
    let growing = true;
    let reducing = false;
    /** Past LONG_RUN_RESIDENT_BYTES resident, and not yet back below LONG_RUN_RESIDENT_LOW_BYTES. */
    let large = false;
    const watch = setInterval(() => {
      const young = getHeapSpaceStatistics().find((space) => space.space_name === "new_space")?.space_size ?? 0;
      const grow = young < LONG_RUN_NEW_SPACE_BYTES;
      if (grow !== growing) {
        growing = grow;
        setFlagsFromString(`--semi-space-growth-factor=${grow ? 2 : 1}`);
      }
      large = process.memoryUsage.rss() > (large ? LONG_RUN_RESIDENT_LOW_BYTES : LONG_RUN_RESIDENT_BYTES);
      const reduce = young > LONG_RUN_NEW_SPACE_BYTES || large;
      if (reduce !== reducing) {
        reducing = reduce;
        setFlagsFromString(reduce ? "--optimize-for-size" : "--no-optimize-for-size");
      }
    }, 250);
    watch.unref();
  });
}
