// The hooks that connect views to the model and the clock.
import { useEffect, useState, useSyncExternalStore } from "react";
import type { Clock } from "../context.js";
import type { DashboardModel } from "./model.js";
import type { DashboardState } from "./state.js";

export function useDashboard(model: DashboardModel): DashboardState {
  return useSyncExternalStore(model.subscribe, model.shown);
}

/**
 * The current time, refreshed every `everyMs` (ages and ttl countdowns). `onTick` runs in the same turn, before: what
 * it changes is drawn in the same frame as the new time (one frame a second, not one for the clock and one for the
 * rows that changed in between).
 */
export function useNow(clock: Clock, everyMs = 1000, onTick?: () => void): number {
  const [now, setNow] = useState(() => clock.now());
  useEffect(() => {
    const stop = new AbortController();
    void (async () => {
      while (!stop.signal.aborted) {
        await clock.sleep(everyMs - (clock.now() % everyMs), stop.signal);
        if (stop.signal.aborted) break;
        onTick?.();
        setNow(clock.now());
      }
    })();
    return () => stop.abort();
  }, [clock, everyMs, onTick]);
  return now;
}

/** The terminal size, following resizes. */
export function useTerminalSize(stdout: NodeJS.WriteStream): { width: number; height: number } {
  const read = () => ({ width: stdout.columns || 100, height: stdout.rows || 30 });
  const [size, setSize] = useState(read);
  useEffect(() => {
    const onResize = () => setSize(read());
    stdout.on("resize", onResize);
    return () => {
      stdout.off("resize", onResize);
    };
  }, [stdout]);
  return size;
}
