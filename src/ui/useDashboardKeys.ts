// What each key does on the dashboard, by mode: the root (./Dashboard.tsx) owns the view state and hands its
// setters here. Ctrl-C leaves from every mode; the other keys are off while a form (answer, new call) has them.
import { useInput, type Key } from "ink";
import { useCallback, useRef } from "react";
import { linesText } from "../output/describe.js";
import { shellWord } from "../sanitize.js";
import { detailLines } from "./Detail.js";
import type { DashboardModel } from "./model.js";
import type { ViewState } from "./modes.js";
import { SORTS, STATUS_FILTERS } from "./rows.js";
import type { ListRow } from "./TaskList.js";

export interface DashboardKeys {
  model: DashboardModel;
  view: ViewState;
  rows: readonly ListRow[];
  index: number;
  select(index: number): void;
  /** Opens the form of the selected task's question, else of the first one waiting. */
  answerNext(): void;
  /** The selected task asks a question (Enter answers it instead of opening the detail). */
  asking: boolean;
  listHeight: number;
  now: number;
  onExit(): void;
  onPager(text: string): void;
  onCopy(text: string): void;
}

const next = <T>(list: readonly T[], current: T): T => list[(list.indexOf(current) + 1) % list.length];

export function useDashboardKeys(k: DashboardKeys): void {
  // Ctrl-C leaves from every mode, a form or a prompt open included (it was ignored while one was).
  useInput((input, key) => {
    if (key.ctrl && input === "c") k.onExit();
  });
  // A key pressed while a large store's rest is read (model.reading) waits for it, then acts on the props of the
  // render that drew every row: the latest props, set as it renders (React runs it in a microtask once the model
  // tells of the rows; the key after, in a turn of its own). Keys pressed meanwhile act in their order.
  const latest = useRef(k);
  latest.current = k;
  const handler = useCallback((input: string, key: Key) => {
    const reading = latest.current.model.reading;
    if (!reading) return onKey(latest.current, input, key);
    void reading.then(() => setImmediate(() => onKey(latest.current, input, key)));
  }, []);
  // Off while a form (answer, new call) takes the keys.
  const active = k.view.mode.kind !== "answer" && k.view.mode.kind !== "new";
  useInput(handler, { isActive: active });
}

function onKey(k: DashboardKeys, input: string, key: Key): void {
  const mode = k.view.modeRef.current;
  if (mode.kind === "filter") return filterKey(k, input, key);
  if (mode.kind === "confirm") {
    if (input === "y") void (mode.what === "cancel" ? k.model.cancel(mode.stem) : k.model.forget(mode.stem));
    if (input === "y" || input === "n" || key.escape) k.view.setMode({ kind: "list" });
    return;
  }
  if (input === "q") return k.onExit();
  if (mode.kind === "detail") detailKey(k, input, key);
  else listKey(k, input, key);
  actionKey(k, input);
}

function filterKey(k: DashboardKeys, input: string, key: Key): void {
  if (key.return || key.escape) k.view.setMode({ kind: "list" });
  else if (key.backspace || key.delete) k.view.setText((t) => t.slice(0, -1));
  else if (input && !key.ctrl && !key.meta) {
    k.view.setText((t) => t + input.replace(/[\r\n]/g, ""));
    if (/[\r\n]/.test(input)) k.view.setMode({ kind: "list" });
  }
}

function detailKey(k: DashboardKeys, input: string, key: Key): void {
  if (key.escape || key.leftArrow) (k.model.open(undefined), k.view.setMode({ kind: "list" }));
  else if (key.upArrow || input === "k") k.view.setScroll((s) => Math.max(0, s - 1));
  else if (key.downArrow || input === "j") k.view.setScroll((s) => s + 1);
  else if (key.pageUp) k.view.setScroll((s) => Math.max(0, s - k.listHeight));
  else if (key.pageDown || input === " ") k.view.setScroll((s) => s + k.listHeight);
  else if (input === "w") {
    // The wire view of the task and back: each starts at its top.
    const mode = k.view.modeRef.current;
    k.view.setScroll(0);
    k.view.setMode({ kind: "detail", wire: !(mode.kind === "detail" && mode.wire) });
  }
}

function listKey(k: DashboardKeys, input: string, key: Key): void {
  const selected = k.rows[k.index];
  if (key.upArrow || input === "k") k.select(k.index - 1);
  else if (key.downArrow || input === "j") k.select(k.index + 1);
  else if (key.pageUp) k.select(k.index - k.listHeight);
  else if (key.pageDown) k.select(k.index + k.listHeight);
  else if (input === "g" || key.home) k.select(0);
  else if (input === "G" || key.end) k.select(k.rows.length - 1);
  else if (key.return && selected)
    k.asking ? k.answerNext() : (k.view.setScroll(0), k.model.open(selected.stem), k.view.setMode({ kind: "detail" }));
  else if (input.startsWith("/")) {
    // Keys typed fast (or pasted) arrive as one chunk: "/abc" starts a filter with "abc".
    k.view.setText(input.slice(1).replace(/[\r\n]/g, ""));
    k.view.setMode(/[\r\n]/.test(input) ? { kind: "list" } : { kind: "filter" });
  } else if (input === "f") k.view.setStatus(next(STATUS_FILTERS, k.view.status));
  else if (input === "s") k.view.setSort(next(SORTS, k.view.sort));
  else if (input === "n") k.view.setMode({ kind: "new" });
  else if (key.escape && k.view.text) k.view.setText("");
}

/** The keys that act on the selected task, in the list and in the detail view. */
function actionKey(k: DashboardKeys, input: string): void {
  const selected = k.rows[k.index];
  if (input === "a") k.answerNext();
  else if (input === "c" && selected) k.view.setMode({ kind: "confirm", what: "cancel", stem: selected.stem });
  else if (input === "x" && selected) k.view.setMode({ kind: "confirm", what: "forget", stem: selected.stem });
  else if (input === "y" && selected)
    k.onCopy(shellWord(selected.summary.taskId)); // pasted into a shell, a hostile id stays one word
  else if (input === "p" && selected?.summary.outcome) {
    const full = k.model.handleOf(selected.stem);
    if (full?.outcome) k.onPager(linesText(detailLines(full, k.now)));
  }
}
