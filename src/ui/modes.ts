// The dashboard's view state, owned by its root (./Dashboard.tsx): the mode (the list, the detail of a task, a
// question's form, the filter prompt, a confirmation, the new-call form), the selection, filter, sort and scroll;
// and the keys the help bar names in each mode.
import { useRef, useState } from "react";
import type { Question } from "../ask/queue.js";
import type { Sort, StatusFilter } from "./rows.js";

export type Mode =
  | { kind: "list" }
  | { kind: "detail"; wire?: boolean }
  | { kind: "answer"; question: Question }
  | { kind: "filter" }
  | { kind: "confirm"; what: "cancel" | "forget"; stem: string }
  | { kind: "new" };

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
  return mode.kind === "detail" ? DETAIL : mode.kind === "filter" ? FILTER : mode.kind === "confirm" ? CONFIRM : LIST;
}

/** The view state of the dashboard's root. */
export function useViewState() {
  const [mode, setModeState] = useState<Mode>({ kind: "list" });
  // The key handler reads the mode from here: keys typed fast ("/" then "h") can arrive before React has drawn
  // (and re-registered the handler with) the mode the first key chose, and would be read in the old mode and lost.
  const modeRef = useRef(mode);
  const setMode = (next: Mode) => {
    modeRef.current = next;
    setModeState(next);
  };
  const [selectedStem, setSelectedStem] = useState<string>();
  const [text, setText] = useState("");
  const [status, setStatus] = useState<StatusFilter>("all");
  const [sort, setSort] = useState<Sort>("newest");
  const [scroll, setScroll] = useState(0);
  return {
    ...{ mode, modeRef, setMode, selectedStem, setSelectedStem },
    ...{ text, setText, status, setStatus, sort, setSort, scroll, setScroll },
  };
}

export type ViewState = ReturnType<typeof useViewState>;
