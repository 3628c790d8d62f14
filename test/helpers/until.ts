// Waiting for a condition instead of sleeping a fixed time: the test goes on the moment the condition holds, and the
// bound (hangMs) is only there so that a real hang fails the test with a message rather than vitest's own timeout.

export interface UntilOptions {
  /** Fails past this many ms: a hang-only bound, generous enough that a loaded machine never reaches it. */
  hangMs?: number;
  /** How often the condition is looked at (ms). */
  everyMs?: number;
  /** What is waited for, for the error message. */
  what?: string;
}

/**
 * Resolves with the condition's first truthy value (it is polled every `everyMs`, default 25 ms; it may be async);
 * rejects once `hangMs` (default 30 s) has passed without one.
 */
export async function until<T>(
  condition: () => T | Promise<T>,
  { hangMs = 30_000, everyMs = 25, what = "the condition" }: UntilOptions = {},
): Promise<Exclude<T, false | 0 | "" | null | undefined>> {
  const deadline = Date.now() + hangMs;
  for (;;) {
    const value = await condition();
    if (value) return value as Exclude<T, false | 0 | "" | null | undefined>;
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${hangMs} ms (hang-only bound)`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
