// The live view of one task (`call` and `watch` on a terminal, ./live.tsx): status with a spinner, elapsed time,
// tool and server, the status message, a notice, and the input form while the task asks. A pure function of its
// props; ./live.tsx holds the state and the hooks.
import { Box, Text } from "ink";
import { Spinner } from "@inkjs/ui";
import type { TaskInfo } from "../output/printer.js";
import { COLOR, SYMBOL } from "../output/palette.js";
import { sanitizeLine } from "../sanitize.js";
import { progressLine } from "../output/progress-bar.js";
import type { Question } from "../ask/queue.js";
import { isTerminal, type InputResponse, type Progress, type Snapshot } from "../protocol/wire.js";
import { ElicitationForm } from "./form/ElicitationForm.js";
import { short } from "./format.js";

export interface LiveState {
  info?: TaskInfo;
  notice?: string;
  snapshot?: Snapshot;
  /** The last progress the server reported, with its rate (units a second) where known. */
  progress?: Progress & { rate?: number };
  /** The questions waiting for the person (../ask/queue.ts): the first is on screen. */
  questions: readonly Question[];
  version: number;
}

export interface LiveViewProps {
  state: LiveState;
  elapsedMs: number;
  width: number;
  /** The person answered the open question. */
  onRespond(response: InputResponse): void;
  /** Esc on the form: stop waiting. */
  onClose(): void;
}

export function LiveView({ state: s, elapsedMs, width, onRespond, onClose }: LiveViewProps) {
  const status = s.snapshot?.status ?? "working";
  const id = s.info?.taskId ?? s.snapshot?.taskId ?? "";
  return (
    <Box flexDirection="column" width={width}>
      <Box>
        {isTerminal(status) ? <Text color={COLOR[status]}>{SYMBOL[status]}</Text> : <Spinner />}
        <Text wrap="truncate">
          <Text color={COLOR[status]} bold>{` ${status}`}</Text>
          <Text dimColor>{`  ${short(elapsedMs)}  `}</Text>
          {s.info
            ? `${sanitizeLine(s.info.tool)} on ${sanitizeLine(s.info.server)} (${s.info.generation.toUpperCase()})`
            : ""}
        </Text>
      </Box>
      {s.snapshot?.statusMessage ? <Text>{`  ${sanitizeLine(s.snapshot.statusMessage)}`}</Text> : null}
      {s.progress && !isTerminal(status) ? (
        <Text wrap="truncate">{`  ${progressLine(s.progress, { width: width - 2, rate: s.progress.rate })}`}</Text>
      ) : null}
      {s.notice ? <Text color="yellow">{`  ${sanitizeLine(s.notice)}`}</Text> : null}
      <Text
        dimColor
      >{`  task ${sanitizeLine(id)}${isTerminal(status) ? "" : "  ·  Ctrl-C stops waiting (the task keeps running)"}`}</Text>
      {s.questions[0] ? (
        <ElicitationForm
          key={s.questions[0].id}
          request={s.questions[0].request}
          taskLabel={s.info ? sanitizeLine(s.info.tool) : "this call"}
          width={width}
          onRespond={onRespond}
          onClose={onClose}
        />
      ) : null}
    </Box>
  );
}
