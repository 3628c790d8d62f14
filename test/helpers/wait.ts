// Waiting for a condition in a test instead of sleeping a fixed time.

/**
 * Resolves with the condition's first truthy value, looking every `everyMs` (default 50 ms). `hangMs` (default 30 s)
 * is a hang-only bound: only a condition that never comes trips it, and the error then says which.
 */
export async function until<T>(
  condition: () => T | Promise<T>,
  {
    hangMs = 30_000,
    everyMs = 50,
    what = String(condition),
  }: { hangMs?: number; everyMs?: number; what?: string } = {},
): Promise<Exclude<T, false | 0 | "" | null | undefined>> {
  const deadline = Date.now() + hangMs;
  for (;;) {
    const value = await condition();
    if (value) return value as Exclude<T, false | 0 | "" | null | undefined>;
    if (Date.now() > deadline) throw new Error(`never came within ${hangMs} ms (a hang): ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
