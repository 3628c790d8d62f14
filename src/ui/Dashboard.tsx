// The dashboard's root: owns the view state (mode, selection, filter, sort, scroll) and the keys; everything it
// shows comes from the model through useDashboard, and every view below it is a pure function of its props.
import { Box, Text } from "ink";
import { useEffect, useMemo, useState } from "react";
import { sanitizeLine } from "../sanitize.js";
import { openRequests, type InputResponse } from "../protocol/wire.js";
import type { Line } from "../output/describe.js";
import { answeredLines, Detail, detailLines, heldLines, logLines, unreadableLines, wireLines } from "./Detail.js";
import type { WireLog } from "./wire-log.js";
import { ElicitationForm } from "./form/ElicitationForm.js";
import { changesBySecond } from "./format.js";
import { HelpBar } from "./HelpBar.js";
import { helpKeys, useViewState, type Mode, type View } from "./modes.js";
import { useDashboardKeys } from "./useDashboardKeys.js";
import type { DashboardModel } from "./model.js";
import type { Question } from "../ask/queue.js";
import { NewCall, type ServerChoice } from "./NewCall.js";
import { lastVisibleRows } from "./rows.js";
import type { TaskRow } from "./state.js";
import { shortId, TaskList } from "./TaskList.js";
import { useDashboard, useNow } from "./hooks.js";
import type { Clock } from "../context.js";

export interface DashboardProps {
  model: DashboardModel;
  clock: Clock;
  servers: readonly ServerChoice[];
  width: number;
  height: number;
  onExit(): void;
  onPager(text: string): void;
  onCopy(text: string): void;
  /** What the detail view shows of the wire and of the servers' logs (none: no wire view). */
  wire?: WireLog;
}

export function Dashboard({ model, clock, servers, width, height, onExit, onPager, onCopy, wire }: DashboardProps) {
  const state = useDashboard(model);
  const view = useViewState();
  const { setMode } = view;
  const { mode, text, status, sort } = view.shown;
  const now = useDashboardClock(model, clock, state.rows, mode.kind !== "list");

  // Filtering and sorting need the time only to tell expired tasks: a minute's precision spares the work each tick.
  const minute = Math.floor(now / 60_000) * 60_000;
  const visible = useMemo(() => lastVisibleRows(), []);
  const rows = visible(state.rows, state.questions, { text, status, sort, now: minute });
  // What a key acts on: the model's rows as they are now, under the view as the keys before it left it.
  const rowsOf = (v: View) => {
    const latest = model.shown();
    return visible(latest.rows, latest.questions, { text: v.text, status: v.status, sort: v.sort, now: minute });
  };
  const index = Math.max(
    0,
    rows.findIndex((r) => r.stem === view.shown.selectedStem),
  );
  const selected = rows[index];
  const listHeight = Math.max(3, height - 6);
  // The task open in the detail view: the model holds its full handle (read from its file when opened).
  const opened = selected && mode.kind === "detail" ? state.rows.find((r) => r.stem === selected.stem) : undefined;
  const wireView = mode.kind === "detail" && mode.wire === true;
  const lines = useDetailLines(opened, now, wireView, wire, state.version);
  useEffect(() => model.open(mode.kind === "detail" ? selected?.stem : undefined), [model, mode.kind, selected?.stem]);
  // A question withdrawn while its form is open (its task ended, its server gave up on it): the form closes.
  const withdrawn = mode.kind === "answer" && !state.questions.some((q) => q.id === mode.question.id);
  useEffect(() => {
    if (withdrawn) setMode({ kind: "list" });
  }, [withdrawn, setMode]);
  useDashboardKeys({ model, view, rowsOf, listHeight, now, onExit, onPager, onCopy });

  const live = state.rows.filter((r) => r.connection === "following").length;
  const count = `${state.rows.length + state.unread} tasks${state.unread > 0 ? " (reading them)" : ""}`;
  const summary = `${count}, ${live} followed, ${state.questions.length} waiting for you · filter ${status}${text ? ` "${text}"` : ""} · sort ${sort}`;
  const toList = () => setMode({ kind: "list" });
  let body;
  if (mode.kind === "answer" && !withdrawn) {
    const respond = (response: InputResponse) => (model.answer(mode.question.id, response), toList());
    body = <AnswerForm question={mode.question} rows={state.rows} width={width} onRespond={respond} onClose={toList} />;
  } else if (mode.kind === "new") {
    body = (
      <NewCall
        servers={servers}
        loadTools={(server) => model.tools(server)}
        onStart={(server, tool, args) => {
          toList();
          // A call answered at once (no task) shows its result, unless the person has moved on meanwhile.
          void model.startCall(server, tool, args).then((answered) => {
            if (answered && view.current().mode.kind === "list")
              view.update(() => ({ mode: { kind: "result", answered }, scroll: 0 }));
          });
        }}
        onClose={toList}
        width={width}
        height={listHeight}
      />
    );
  } else if (mode.kind === "result") {
    body = <Detail lines={answeredLines(mode.answered)} scroll={view.shown.scroll} height={listHeight} width={width} />;
  } else if (mode.kind === "detail" && selected) {
    body = <Detail lines={lines} scroll={view.shown.scroll} height={listHeight} width={width} />;
  } else {
    const empty = state.rows.length === 0 && state.unread === 0;
    body = <TaskList rows={rows} selected={index} width={width} height={listHeight} now={now} empty={empty} />;
  }
  return (
    <Box flexDirection="column" width={width}>
      <Title mode={mode} text={text} />
      {body}
      <HelpBar keys={helpKeys(mode)} notice={state.notice} summary={summary} width={width} />
    </Box>
  );
}

/**
 * The time the dashboard draws with. The clock ticks each second only while a duration on screen changes by the second
 * (a task running, or under two minutes old in its status; `bySecondAnyway`: a view other than the list): an idle
 * dashboard of finished tasks redraws once a minute, not every second.
 */
function useDashboardClock(model: DashboardModel, clock: Clock, rows: readonly TaskRow[], bySecondAnyway: boolean) {
  const [bySecond, setBySecond] = useState(true);
  const now = useNow(clock, bySecond ? 1000 : 60_000, model.tick);
  const minute = Math.floor(now / 60_000) * 60_000;
  useEffect(() => {
    const at = clock.now();
    setBySecond(bySecondAnyway || rows.some((row) => changesBySecond(row.summary, at)));
  }, [rows, bySecondAnyway, minute, clock]);
  return now;
}

/** The title line, with the filter being typed or the question of a confirmation. */
function Title({ mode, text }: { mode: Mode; text: string }) {
  return (
    <Text bold>
      mcp-task dashboard{mode.kind === "filter" ? <Text color="yellow">{`  / ${text}▏`}</Text> : null}
      {mode.kind === "confirm" ? (
        <Text color="yellow">{`  ${mode.what} task ${shortId(mode.taskId)} (${sanitizeLine(mode.tool)})? (y/n)`}</Text>
      ) : null}
    </Text>
  );
}

/** The detail view's lines: the open task's (with its server's logs), or its wire messages (key w). */
function useDetailLines(
  opened: TaskRow | undefined,
  now: number,
  wireView: boolean,
  wire: WireLog | undefined,
  version: number,
): Line[] {
  return useMemo(
    () =>
      wireView && opened
        ? wireLines(opened.summary.taskId, wire?.messages(opened.summary.taskId) ?? [])
        : [...openedLines(opened, now), ...(opened ? logLines(wire?.logs(opened.summary.server) ?? []) : [])],
    // The wire log is read on each change of the model's state (every poll of a followed task changes it): `version`.
    [opened, now, wire, wireView, version],
  );
}

/** What the detail view shows of the task open in it: its handle's lines, else why it cannot, else that it reads. */
function openedLines(opened: TaskRow | undefined, now: number): Line[] {
  if (!opened) return [];
  if (opened.handle) return [...detailLines(opened.handle, now), ...heldLines(opened.summary.taskId, opened.held)];
  if (opened.unreadable !== undefined) return unreadableLines(opened.summary, opened.unreadable, now);
  return [{ text: "reading its saved handle…", dim: true }];
}

interface AnswerFormProps {
  question: Question;
  rows: readonly TaskRow[];
  width: number;
  onRespond(response: InputResponse): void;
  onClose(): void;
}

/** A question's form, with the task that asks it and its place among the task's open questions. */
function AnswerForm({ question, rows, width, onRespond, onClose }: AnswerFormProps) {
  const task = rows.find((r) => r.summary.taskId === question.taskId);
  // A V2 task may ask several questions at once: say which one this is (a task that asks is followed: its row
  // holds its full handle).
  const open = task?.handle ? openRequests(task.handle.last.inputRequests, task.handle.answered).map((r) => r.key) : [];
  const position = open.indexOf(question.request.key);
  return (
    <ElicitationForm
      key={question.id}
      questionIndex={Math.max(0, position)}
      questionCount={Math.max(1, open.length)}
      request={question.request}
      taskLabel={
        task ? `${sanitizeLine(task.summary.tool)} · ${sanitizeLine(task.summary.taskId.slice(0, 8))}` : "a call"
      }
      width={width}
      onRespond={onRespond}
      onClose={onClose}
    />
  );
}
