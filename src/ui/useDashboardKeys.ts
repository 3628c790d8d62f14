// What each key does on the dashboard, by mode: the root (./Dashboard.tsx) owns the view state and hands it here.
// Ctrl-C leaves from every mode; the other keys are off while a form (answer, new call) has them.
//
// The keys are a queue, read one at a time in the order they came, each against the view state as the key before it
// left it (ViewState.current), never against what the last frame drew: a burst sent at once (four Down keys, "/demo1"
// then two Backspaces) reaches the handler before React renders, in one input event or several (./keys.ts).
import { useInput, type Key } from "ink";
import { useCallback, useRef } from "react";
import { linesText } from "../output/describe.js";
import { shellWord } from "../sanitize.js";
import { answeredLines, detailLines } from "./Detail.js";
import { keysOf } from "./keys.js";
import type { DashboardModel } from "./model.js";
import type { View, ViewState } from "./modes.js";
import { SORTS, STATUS_FILTERS } from "./rows.js";
import type { ListRow } from "./TaskList.js";

export interface DashboardKeys {
  model: DashboardModel;
  view: ViewState;
  /** The rows the list shows under a view's filter, status and sort (a key acts on those of the view it finds). */
  rowsOf(view: View): readonly ListRow[];
  listHeight: number;
  now: number;
  onExit(): void;
  onPager(text: string): void;
  onCopy(text: string): void;
}

const next = <T>(list: readonly T[], current: T): T => list[(list.indexOf(current) + 1) % list.length];
const isCtrlC = ([input, key]: [string, Key]) => key.ctrl && input === "c";

export function useDashboardKeys(k: DashboardKeys): void {
  // Ctrl-C leaves from every mode, a form or a prompt open included (it was ignored while one was).
  useInput((input, key) => {
    if (keysOf(input, key).some(isCtrlC)) k.onExit();
  });
  const latest = useRef(k);
  latest.current = k;
  const queue = useRef<Array<[string, Key]>>([]);
  const waiting = useRef(false);
  // A key pressed while a large store's rest is read (model.reading) waits for it, with every key after it: then each
  // acts on every row (the model's state, not a frame's).
  const drain = useCallback(() => {
    if (waiting.current) return;
    const reading = latest.current.model.reading;
    if (reading) {
      waiting.current = true;
      void reading.then(() =>
        setImmediate(() => {
          waiting.current = false;
          drain();
        }),
      );
      return;
    }
    for (let key = queue.current.shift(); key; key = queue.current.shift()) onKey(latest.current, ...key);
  }, []);
  const handler = useCallback(
    (input: string, key: Key) => {
      queue.current.push(...keysOf(input, key));
      drain();
    },
    [drain],
  );
  // Off while a form (answer, new call) takes the keys.
  const mode = k.view.shown.mode.kind;
  useInput(handler, { isActive: mode !== "answer" && mode !== "new" });
}

/** The rows a view shows, and its selected row: the one it names, else the first. */
function selection(k: DashboardKeys, view: View) {
  const rows = k.rowsOf(view);
  const index = Math.max(
    0,
    rows.findIndex((r) => r.stem === view.selectedStem),
  );
  return { rows, index, selected: rows[index] as ListRow | undefined };
}

function onKey(k: DashboardKeys, input: string, key: Key): void {
  const view = k.view.current();
  const mode = view.mode;
  // Ctrl-C is the other handler's; a key after one that opened a form was meant for the form, which is not drawn yet.
  if (key.ctrl || mode.kind === "answer" || mode.kind === "new") return;
  if (mode.kind === "filter") return filterKey(k, input, key);
  if (mode.kind === "confirm") {
    if (input === "y") void (mode.what === "cancel" ? k.model.cancel(mode.stem) : k.model.forget(mode.stem));
    if (input === "y" || input === "n" || key.escape) k.view.setMode({ kind: "list" });
    return;
  }
  if (input === "q") return k.onExit();
  if (mode.kind === "result") {
    if (key.escape || key.leftArrow) k.view.setMode({ kind: "list" });
    else if (input === "p") k.onPager(linesText(answeredLines(mode.answered)));
    else scrollKey(k, input, key);
    return;
  }
  if (mode.kind === "detail") detailKey(k, input, key);
  else listKey(k, view, input, key);
  actionKey(k, input);
}

function filterKey(k: DashboardKeys, input: string, key: Key): void {
  if (key.return || key.escape) k.view.setMode({ kind: "list" });
  else if (key.backspace || key.delete) k.view.update((v) => ({ text: v.text.slice(0, -1) }));
  else if (input === "\n") k.view.setMode({ kind: "list" });
  else if (input && !key.meta && !key.tab) k.view.update((v) => ({ text: v.text + input.replace(/[\r\n]/g, "") }));
}

/** The keys that scroll the detail view (and a result's). */
function scrollKey(k: DashboardKeys, input: string, key: Key): void {
  const by = (lines: number) => k.view.update((v) => ({ scroll: Math.max(0, v.scroll + lines) }));
  if (key.upArrow || input === "k") by(-1);
  else if (key.downArrow || input === "j") by(1);
  else if (key.pageUp) by(-k.listHeight);
  else if (key.pageDown || input === " ") by(k.listHeight);
}

function detailKey(k: DashboardKeys, input: string, key: Key): void {
  if (key.escape || key.leftArrow) (k.model.open(undefined), k.view.setMode({ kind: "list" }));
  else if (input === "w")
    // The wire view of the task and back: each starts at its top.
    k.view.update((v) => ({ scroll: 0, mode: { kind: "detail", wire: !(v.mode.kind === "detail" && v.mode.wire) } }));
  else scrollKey(k, input, key);
}

function listKey(k: DashboardKeys, view: View, input: string, key: Key): void {
  const { rows, index, selected } = selection(k, view);
  const select = (i: number) =>
    k.view.update(() => ({ selectedStem: rows[Math.max(0, Math.min(rows.length - 1, i))]?.stem }));
  if (key.upArrow || input === "k") select(index - 1);
  else if (key.downArrow || input === "j") select(index + 1);
  else if (key.pageUp) select(index - k.listHeight);
  else if (key.pageDown) select(index + k.listHeight);
  else if (input === "g" || key.home) select(0);
  else if (input === "G" || key.end) select(rows.length - 1);
  else if (key.return && selected) {
    if (selected.asking) answerNext(k, selected);
    else (k.model.open(selected.stem), k.view.update(() => ({ scroll: 0, mode: { kind: "detail" } })));
  } else if (input === "/") k.view.update(() => ({ text: "", mode: { kind: "filter" } }));
  else if (input === "f") k.view.update((v) => ({ status: next(STATUS_FILTERS, v.status) }));
  else if (input === "s") k.view.update((v) => ({ sort: next(SORTS, v.sort) }));
  else if (input === "n") k.view.setMode({ kind: "new" });
  else if (key.escape && view.text) k.view.update(() => ({ text: "" }));
}

/** Opens the form of the selected task's question, else of the first one waiting. */
function answerNext(k: DashboardKeys, selected: ListRow | undefined): void {
  const { questions } = k.model.shown();
  const question = (selected && questions.find((q) => q.taskId === selected.summary.taskId)) ?? questions[0];
  if (question) k.view.setMode({ kind: "answer", question });
}

/** The keys that act on the selected task, in the list and in the detail view. */
function actionKey(k: DashboardKeys, input: string): void {
  const { selected } = selection(k, k.view.current());
  const confirm = (what: "cancel" | "forget", row: ListRow) =>
    k.view.setMode({ kind: "confirm", what, stem: row.stem, taskId: row.summary.taskId, tool: row.summary.tool });
  if (input === "a") answerNext(k, selected);
  else if (input === "c" && selected) confirm("cancel", selected);
  else if (input === "x" && selected) confirm("forget", selected);
  else if (input === "y" && selected)
    k.onCopy(shellWord(selected.summary.taskId)); // pasted into a shell, a hostile id stays one word
  else if (input === "p" && selected?.summary.outcome) {
    const full = k.model.handleOf(selected.stem);
    if (full?.outcome) k.onPager(linesText(detailLines(full, k.now)));
  }
}
