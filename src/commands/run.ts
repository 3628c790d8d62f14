// How a verb runs its work: `run(job)` executes it, prints any error the one way errors are printed, and sets
// the exit code. Settings are loaded first unless the verb says it needs none (`{ settings: false }`: their
// loading costs start-up time that `list` and friends need not pay).
export type Run = (job: () => Promise<number>, options?: { settings?: boolean }) => Promise<void>;
