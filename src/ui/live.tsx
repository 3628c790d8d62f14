// `call` and `watch` on a terminal: the same live single-task view the dashboard shows (status, spinner, elapsed
// time, status message, and the input form when the task asks), drawn with Ink on stderr. It plugs in as a
// Printer and an InputProvider, so the command's logic is the one the plain output uses; when the task ends the
// view goes away and the result is printed to stdout like anywhere else.
import { render, useInput } from "ink";
import { useSyncExternalStore } from "react";
import type { Context, Terminal } from "../context.js";
import { applyColour } from "./colour.js";
import { createPrinter, logText, type Printer } from "../output/printer.js";
import { ProgressPace } from "../output/progress-bar.js";
import { QuestionQueue } from "../ask/queue.js";
import type { InputProvider } from "../tasks/input.js";
import { useNow, useTerminalSize } from "./hooks.js";
import { LiveView, type LiveState } from "./LiveView.js";

export interface LiveFollow {
  printer: Printer;
  provider: InputProvider;
  /** Takes the view down (idempotent). */
  close(): void;
}

export function liveFollow(ctx: Context, terminal: Terminal): LiveFollow {
  applyColour(ctx.io);
  const plain = createPrinter(ctx.io, false);
  const started = ctx.clock.monotonic();
  let state: LiveState = { questions: [], version: 0 };
  const listeners = new Set<() => void>();
  const set = (change: Partial<LiveState>) => {
    state = { ...state, ...change, version: state.version + 1 };
    listeners.forEach((l) => l());
  };
  const subscribe = (l: () => void) => (listeners.add(l), () => listeners.delete(l));
  const pace = new ProgressPace();

  function View() {
    const s = useSyncExternalStore(subscribe, () => state);
    useNow(ctx.clock, 1000); // drawn again each second, with the time since the start (monotonic)
    const { width } = useTerminalSize(terminal.stderr);
    // Ctrl-C stops waiting whatever is on screen, a form included (the form takes every other key).
    useInput((input, key) => {
      if (key.ctrl && input === "c") ctx.interruptNow();
    });
    return (
      <LiveView
        state={s}
        elapsedMs={ctx.clock.monotonic() - started}
        width={width}
        onRespond={(response) => queue.answer(s.questions[0]!.id, response)}
        onClose={() => ctx.interruptNow()}
      />
    );
  }

  // The task's questions wait in the one queue (../ask/queue.ts); the view shows its head as a form.
  const queue = new QuestionQueue({
    questions: () => state.questions,
    change: ({ questions, notice }) => set(notice === undefined ? { questions } : { questions, notice }),
  });
  const app = render(<View />, {
    stdin: terminal.stdin,
    stdout: terminal.stderr,
    exitOnCtrlC: false,
    patchConsole: false,
  });
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    app.unmount();
    queue.close("the live view closed");
  };
  const printer: Printer = {
    task: (info) => set({ info }),
    status: (snapshot) => set({ snapshot, notice: undefined }),
    input: () => {},
    progress: (taskId, progress, at) => set({ progress: { ...progress, rate: pace.see(taskId ?? "", progress, +at) } }),
    log: (_taskId, log) => set({ notice: `log ${logText(log)}` }),
    result: (outcome) => {
      close();
      plain.status(
        { ...(state.snapshot ?? { taskId: outcome.taskId ?? "", inputRequests: [] }), status: outcome.status },
        new Date(ctx.clock.now()),
      );
      plain.result(outcome);
    },
    error: (report) => {
      close();
      plain.error(report);
    },
    note: (text) => set({ notice: text }),
    document: (value, text) => plain.document(value, text),
  };
  return { printer, provider: queue.provider, close };
}
