// The dashboard's root: owns the view state (mode, selection, filter, sort, scroll) and the keys; everything it
// shows comes from the model through useDashboard, and every view below it is a pure function of its props.
import { Box, Text, useInput } from "ink";
import { useEffect, useMemo, useRef, useState } from "react";
import { sanitizeLine, shellWord } from "../output/sanitize.js";
import type { Line } from "../output/describe.js";
import { Detail, detailLines, unreadableLines } from "./Detail.js";
import { ElicitationForm } from "./form/ElicitationForm.js";
import { changesBySecond } from "./format.js";
import { HelpBar } from "./HelpBar.js";
import type { DashboardModel } from "./model.js";
import type { Question } from "./questions.js";
import { NewCall, type ServerChoice } from "./NewCall.js";
import { SORTS, STATUS_FILTERS, visibleRows, type Sort, type StatusFilter } from "./rows.js";
import { TaskList } from "./TaskList.js";
import { useDashboard, useNow } from "./hooks.js";
import type { Clock } from "../context.js";

type Mode =
  | { kind: "list" }
  | { kind: "detail" }
  | { kind: "answer"; question: Question }
  | { kind: "filter" }
  | { kind: "confirm"; what: "cancel" | "forget"; stem: string }
  | { kind: "new" };

export interface DashboardProps {
  model: DashboardModel;
  clock: Clock;
  servers: readonly ServerChoice[];
  width: number;
  height: number;
  onExit(): void;
  onPager(text: string): void;
  onCopy(text: string): void;
}

const next = <T,>(list: readonly T[], current: T): T => list[(list.indexOf(current) + 1) % list.length];

export function Dashboard({ model, clock, servers, width, height, onExit, onPager, onCopy }: DashboardProps) {
  const state = useDashboard(model);
  const [mode, setModeState] = useState<Mode>({ kind: "list" });
  // The key handler reads the mode from here: keys typed fast ("/" then "h") can arrive before React has drawn
  // (and re-registered the handler with) the mode the first key chose, and would be read in the old mode and lost.
  const modeRef = useRef(mode);
  const setMode = (next: Mode) => {
    modeRef.current = next;
    setModeState(next);
  };
  // The clock ticks each second only while a duration on screen changes by the second (a task running, or under
  // two minutes old in its status): an idle dashboard of finished tasks redraws once a minute, not every second.
  const [bySecond, setBySecond] = useState(true);
  const now = useNow(clock, bySecond ? 1000 : 60_000);
  const [selectedStem, setSelectedStem] = useState<string>();
  const [text, setText] = useState("");
  const [status, setStatus] = useState<StatusFilter>("all");
  const [sort, setSort] = useState<Sort>("newest");
  const [scroll, setScroll] = useState(0);

  // Filtering and sorting need the time only to tell expired tasks: a minute's precision spares the work each tick.
  const minute = Math.floor(now / 60_000) * 60_000;
  const rows = useMemo(
    () => visibleRows(state.rows, state.questions, { text, status, sort, now: minute }),
    [state.rows, state.questions, text, status, sort, minute],
  );
  useEffect(() => {
    const at = clock.now();
    setBySecond(mode.kind !== "list" || state.rows.some((row) => changesBySecond(row.summary, at)));
  }, [state.rows, mode.kind, minute, clock]);
  const index = Math.max(
    0,
    rows.findIndex((r) => r.stem === selectedStem),
  );
  const selected = rows[index];
  const listHeight = Math.max(3, height - 6);
  const question = selected && state.questions.find((q) => q.taskId === selected.summary.taskId);
  // The task open in the detail view: the model holds its full handle (read from its file when opened).
  const opened = selected && mode.kind === "detail" ? state.rows.find((r) => r.stem === selected.stem) : undefined;
  const lines = useMemo((): Line[] => {
    if (!opened) return [];
    if (opened.handle) return detailLines(opened.handle, now);
    if (opened.unreadable !== undefined) return unreadableLines(opened.summary, opened.unreadable, now);
    return [{ text: "reading its saved handle…", dim: true }];
  }, [opened, now]);
  useEffect(() => model.open(mode.kind === "detail" ? selected?.stem : undefined), [model, mode.kind, selected?.stem]);
  const select = (i: number) => setSelectedStem(rows[Math.max(0, Math.min(rows.length - 1, i))]?.stem);
  const answerNext = () => {
    const q = question ?? state.questions[0];
    if (q) setMode({ kind: "answer", question: q });
  };

  // Ctrl-C leaves from every mode, a form or a prompt open included (it was ignored while one was).
  useInput((input, key) => {
    if (key.ctrl && input === "c") onExit();
  });
  useInput(
    (input, key) => {
      const mode = modeRef.current;
      if (mode.kind === "filter") {
        if (key.return || key.escape) setMode({ kind: "list" });
        else if (key.backspace || key.delete) setText((t) => t.slice(0, -1));
        else if (input && !key.ctrl && !key.meta) {
          setText((t) => t + input.replace(/[\r\n]/g, ""));
          if (/[\r\n]/.test(input)) setMode({ kind: "list" });
        }
        return;
      }
      if (mode.kind === "confirm") {
        if (input === "y") void (mode.what === "cancel" ? model.cancel(mode.stem) : model.forget(mode.stem));
        if (input === "y" || input === "n" || key.escape) setMode({ kind: "list" });
        return;
      }
      if (input === "q") return onExit();
      if (mode.kind === "detail") {
        if (key.escape || key.leftArrow) (model.open(undefined), setMode({ kind: "list" }));
        else if (key.upArrow || input === "k") setScroll((s) => Math.max(0, s - 1));
        else if (key.downArrow || input === "j") setScroll((s) => s + 1);
        else if (key.pageUp) setScroll((s) => Math.max(0, s - listHeight));
        else if (key.pageDown || input === " ") setScroll((s) => s + listHeight);
      } else {
        if (key.upArrow || input === "k") select(index - 1);
        else if (key.downArrow || input === "j") select(index + 1);
        else if (key.pageUp) select(index - listHeight);
        else if (key.pageDown) select(index + listHeight);
        else if (input === "g" || key.home) select(0);
        else if (input === "G" || key.end) select(rows.length - 1);
        else if (key.return && selected)
          question ? answerNext() : (setScroll(0), model.open(selected.stem), setMode({ kind: "detail" }));
        else if (input.startsWith("/")) {
          // Keys typed fast (or pasted) arrive as one chunk: "/abc" starts a filter with "abc".
          setText(input.slice(1).replace(/[\r\n]/g, ""));
          setMode(/[\r\n]/.test(input) ? { kind: "list" } : { kind: "filter" });
        } else if (input === "f") setStatus(next(STATUS_FILTERS, status));
        else if (input === "s") setSort(next(SORTS, sort));
        else if (input === "n") setMode({ kind: "new" });
        else if (key.escape && text) setText("");
      }
      if (input === "a") answerNext();
      else if (input === "c" && selected) setMode({ kind: "confirm", what: "cancel", stem: selected.stem });
      else if (input === "x" && selected) setMode({ kind: "confirm", what: "forget", stem: selected.stem });
      else if (input === "y" && selected)
        onCopy(shellWord(selected.summary.taskId)); // pasted into a shell, a hostile id stays one word
      else if (input === "p" && selected?.summary.outcome) {
        const full = model.handleOf(selected.stem);
        if (full?.outcome)
          onPager(
            detailLines(full, now)
              .map((l) => l.text)
              .join("\n"),
          );
      }
    },
    { isActive: mode.kind !== "answer" && mode.kind !== "new" },
  );

  const live = state.rows.filter((r) => r.connection === "following").length;
  const summary = `${state.rows.length} tasks, ${live} followed, ${state.questions.length} waiting for you · filter ${status}${text ? ` "${text}"` : ""} · sort ${sort}`;
  const keys: Array<readonly [string, string]> =
    mode.kind === "detail"
      ? [
          ["↑↓", "scroll"],
          ["esc", "back"],
          ["a", "answer"],
          ["c", "cancel"],
          ["p", "pager"],
          ["y", "copy id"],
          ["q", "quit"],
        ]
      : mode.kind === "filter"
        ? [
            ["type", "filter text"],
            ["enter", "done"],
            ["esc", "done"],
          ]
        : mode.kind === "confirm"
          ? [
              ["y", "yes"],
              ["n", "no"],
            ]
          : [
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

  let body;
  if (mode.kind === "answer") {
    const task = state.rows.find((r) => r.summary.taskId === mode.question.taskId);
    // A V2 task may ask several questions at once: say which one this is (a task that asks is followed: its row
    // holds its full handle).
    const open = (task?.handle?.last.inputRequests ?? [])
      .filter((r) => !task!.handle!.answered.includes(r.key))
      .map((r) => r.key);
    const position = open.indexOf(mode.question.request.key);
    body = (
      <ElicitationForm
        key={mode.question.id}
        questionIndex={Math.max(0, position)}
        questionCount={Math.max(1, open.length)}
        request={mode.question.request}
        taskLabel={
          task ? `${sanitizeLine(task.summary.tool)} · ${sanitizeLine(task.summary.taskId.slice(0, 8))}` : "a call"
        }
        width={width}
        onRespond={(response) => {
          model.answer(mode.question.id, response);
          setMode({ kind: "list" });
        }}
        onClose={() => setMode({ kind: "list" })}
      />
    );
  } else if (mode.kind === "new") {
    body = (
      <NewCall
        servers={servers}
        loadTools={(server) => model.tools(server)}
        onStart={(server, tool, args) => {
          void model.startCall(server, tool, args);
          setMode({ kind: "list" });
        }}
        onClose={() => setMode({ kind: "list" })}
        width={width}
        height={listHeight}
      />
    );
  } else if (mode.kind === "detail" && selected) {
    body = <Detail lines={lines} scroll={scroll} height={listHeight} width={width} />;
  } else {
    body = <TaskList rows={rows} selected={index} width={width} height={listHeight} now={now} />;
  }
  return (
    <Box flexDirection="column" width={width}>
      <Text bold>
        mcp-task dashboard{mode.kind === "filter" ? <Text color="yellow">{`  / ${text}▏`}</Text> : null}
        {mode.kind === "confirm" ? <Text color="yellow">{`  ${mode.what} this task? (y/n)`}</Text> : null}
      </Text>
      {body}
      <HelpBar keys={keys} notice={state.notice} summary={summary} width={width} />
    </Box>
  );
}
