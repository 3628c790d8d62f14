// `call` and `watch` on a terminal: the same live single-task view the dashboard shows (status, spinner, elapsed
// time, status message, and the input form when the task asks), drawn with Ink on stderr. It plugs in as a
// Printer and an InputProvider, so the command's logic is the one the plain output uses; when the task ends the
// view goes away and the result is printed to stdout like anywhere else.
import { Box, Text, render, useInput } from "ink";
import { Spinner } from "@inkjs/ui";
import { useSyncExternalStore } from "react";
import type { Context, Terminal } from "../context.js";
import { applyColour } from "./colour.js";
import { McpTaskError } from "../errors.js";
import { createPrinter, type Printer, type TaskInfo } from "../output/printer.js";
import { sanitizeLine } from "../output/sanitize.js";
import { isTerminal, type InputRequest, type InputResponse, type Snapshot } from "../protocol/wire.js";
import type { InputProvider } from "../tasks/input.js";
import { ElicitationForm } from "./form/ElicitationForm.js";
import { COLOR, SYMBOL } from "../output/palette.js";
import { short } from "./format.js";
import { useNow, useTerminalSize } from "./hooks.js";

interface LiveState {
  info?: TaskInfo;
  notice?: string;
  snapshot?: Snapshot;
  question?: { request: InputRequest; taskId: string | null; resolve(r: InputResponse): void };
  version: number;
}

export interface LiveFollow {
  printer: Printer;
  provider: InputProvider;
  /** Takes the view down (idempotent). */
  close(): void;
}

export function liveFollow(ctx: Context, terminal: Terminal): LiveFollow {
  applyColour(ctx.io);
  const plain = createPrinter(ctx.io, false);
  const started = ctx.clock.now();
  let state: LiveState = { version: 0 };
  const listeners = new Set<() => void>();
  const set = (change: Partial<LiveState>) => {
    state = { ...state, ...change, version: state.version + 1 };
    listeners.forEach((l) => l());
  };
  const subscribe = (l: () => void) => (listeners.add(l), () => listeners.delete(l));

  function View() {
    const s = useSyncExternalStore(subscribe, () => state);
    const now = useNow(ctx.clock, 1000);
    const { width } = useTerminalSize(terminal.stderr);
    // Ctrl-C stops waiting whatever is on screen, a form included (the form takes every other key).
    useInput((input, key) => {
      if (key.ctrl && input === "c") ctx.interruptNow();
    });
    const status = s.snapshot?.status ?? "working";
    const id = s.info?.taskId ?? s.snapshot?.taskId ?? "";
    return (
      <Box flexDirection="column" width={width}>
        <Box>
          {isTerminal(status) ? <Text color={COLOR[status]}>{SYMBOL[status]}</Text> : <Spinner />}
          <Text wrap="truncate">
            <Text color={COLOR[status]} bold>{` ${status}`}</Text>
            <Text dimColor>{`  ${short(now - started)}  `}</Text>
            {s.info
              ? `${sanitizeLine(s.info.tool)} on ${sanitizeLine(s.info.server)} (${s.info.generation.toUpperCase()})`
              : ""}
          </Text>
        </Box>
        {s.snapshot?.statusMessage ? <Text>{`  ${sanitizeLine(s.snapshot.statusMessage)}`}</Text> : null}
        {s.notice ? <Text color="yellow">{`  ${sanitizeLine(s.notice)}`}</Text> : null}
        <Text
          dimColor
        >{`  task ${sanitizeLine(id)}${isTerminal(status) ? "" : "  ·  Ctrl-C stops waiting (the task keeps running)"}`}</Text>
        {s.question ? (
          <ElicitationForm
            request={s.question.request}
            taskLabel={s.info ? sanitizeLine(s.info.tool) : "this call"}
            width={width}
            onRespond={(response) => {
              const q = s.question!;
              set({ question: undefined });
              q.resolve(response);
            }}
            onClose={() => ctx.interruptNow()}
          />
        ) : null}
      </Box>
    );
  }

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
  };
  const printer: Printer = {
    task: (info) => set({ info }),
    status: (snapshot) => set({ snapshot, notice: undefined }),
    input: () => {},
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
  const provider: InputProvider = {
    available: true,
    answer: (request, taskId, signal) =>
      new Promise<InputResponse>((resolve, reject) => {
        set({ question: { request, taskId, resolve } });
        signal?.addEventListener(
          "abort",
          () => {
            if (state.question?.request !== request) return;
            set({ question: undefined });
            reject(new McpTaskError("question withdrawn"));
          },
          { once: true },
        );
      }),
  };
  return { printer, provider, close };
}
