// Driving an Ink tree in tests (ink-testing-library): mount it, then press keys one at a time, each inside act() (one
// stdin.write is one key event for Ink).
import { render } from "ink-testing-library";
import { act } from "react";

/**
 * React's act() environment, on for a file that drives a tree with act: called at the top of each such file (and by
 * mount). test/helpers/setup.ts turns it off before every file, as a worker runs many files with this module loaded
 * once (a file that renders without act would otherwise have React warn of each update).
 */
export const actEnvironment = () =>
  ((globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true);

export const KEY = {
  tab: "\t",
  shiftTab: "\u001b[Z",
  up: "\u001b[A",
  down: "\u001b[B",
  right: "\u001b[C",
  left: "\u001b[D",
  enter: "\r",
  esc: "\u001b",
  space: " ",
  backspace: "\u007f",
};

export type Mounted = ReturnType<typeof render>;

export const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

export async function mount(tree: React.ReactElement): Promise<Mounted> {
  actEnvironment();
  let instance!: Mounted;
  await act(async () => {
    instance = render(tree);
    await tick();
  });
  return instance;
}

/** One key per act(); a lone Esc is flushed by Ink on the next turn, hence the ticks. */
export async function press(instance: Mounted, ...keys: string[]): Promise<void> {
  for (const key of keys) {
    await act(async () => {
      instance.stdin.write(key);
      await tick();
      await tick();
    });
  }
}

/** The frame once it matches `pattern` (polled inside act, every 50 ms); throws with the last frame past the timeout. */
export async function eventually(
  frame: () => string | undefined,
  pattern: RegExp,
  timeoutMs = 15_000,
): Promise<string> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const text = frame() ?? "";
    if (pattern.test(text)) return text;
    if (Date.now() > until) throw new Error(`never showed ${pattern}:\n${text}`);
    await act(() => new Promise((resolve) => setTimeout(resolve, 50)));
  }
}
