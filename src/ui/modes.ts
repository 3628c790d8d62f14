// The dashboard's view state, owned by its root (./Dashboard.tsx): the mode (the list, the detail of a task, a
// question's form, the filter prompt, a confirmation, the new-call form, the result of a call answered at once), the
// selection, filter, sort and scroll; and the keys the help bar names in each mode.
import { useCallback, useRef, useState } from "react";
import type { Question } from "../ask/queue.js";
import type { Sort, StatusFilter } from "./rows.js";
import type { AnsweredAtOnce } from "./state.js";

export type Mode =
  | { kind: "list" }
  | { kind: "detail"; wire?: boolean }
  | { kind: "answer"; question: Question }
  | { kind: "filter" }
  /** `taskId` and `tool` name the task in the question (a `y` acts on `stem`). */
  | { kind: "confirm"; what: "cancel" | "forget"; stem: string; taskId: string; tool: string }
  | { kind: "new" }
  | { kind: "result"; answered: AnsweredAtOnce };

type Keys = ReadonlyArray<readonly [string, string]>;

const DETAIL: Keys = [
  ["↑↓", "scroll"],
  ["esc", "back"],
  ["w", "wire"],
  ["a", "answer"],
  ["c", "cancel"],
  ["p", "pager"],
  ["y", "copy id"],
  ["q", "quit"],
];
const FILTER: Keys = [
  ["type", "filter text"],
  ["enter", "done"],
  ["esc", "done"],
];
const RESULT: Keys = [
  ["↑↓", "scroll"],
  ["esc", "back"],
  ["p", "pager"],
  ["q", "quit"],
];
const CONFIRM: Keys = [
  ["y", "yes"],
  ["n", "no"],
];
const LIST: Keys = [
  ["↑↓", "move"],
  ["enter", "open"],
  ["a", "answer"],
  ["n", "new call"],
  ["c", "cancel"],
  ["x", "forget"],
  ["/", "filter"],
  ["f", "status"],
  ["s", "sort"],
  ["y", "copy id"],
  ["p", "pager"],
  ["q", "quit"],
];

/** The keys the help bar shows in a mode. */
export function helpKeys(mode: Mode): Keys {
  if (mode.kind === "detail" && mode.wire) return DETAIL.map(([key, what]) => [key, key === "w" ? "details" : what]);
  if (mode.kind === "result") return RESULT;
  return mode.kind === "detail" ? DETAIL : mode.kind === "filter" ? FILTER : mode.kind === "confirm" ? CONFIRM : LIST;
}

export interface View {
  mode: Mode;
  /** The selected task (by stem: it stays selected as rows come, go and move). */
  selectedStem?: string;
  /** The filter's text. */
  text: string;
  status: StatusFilter;
  sort: Sort;
  /** The first line the detail view shows. */
  scroll: number;
}

const START: View = { mode: { kind: "list" }, text: "", status: "all", sort: "newest", scroll: 0 };

/**
 * The view state of the dashboard's root: `shown` is what the last render drew; `current()` is the state as the last
 * change left it, which the keys read and change (each key acts on what the key before it left, whether or not a frame
 * was drawn in between: a burst of keys sent at once, in one input event or in several, reaches the handler before
 * React renders).
 */
export function useViewState() {
  const [shown, setShown] = useState<View>(START);
  const ref = useRef(shown);
  const current = useCallback(() => ref.current, []);
  /** Changes the state from what it is now (not from what the last render drew). */
  const update = useCallback((change: (view: View) => Partial<View>) => {
    ref.current = { ...ref.current, ...change(ref.current) };
    setShown(ref.current);
  }, []);
  const setMode = useCallback((mode: Mode) => update(() => ({ mode })), [update]);
  return { shown, current, update, setMode };
}

export type ViewState = ReturnType<typeof useViewState>;
