// `mcp-task get <id>`: one fresh status from the server. `runGet` also serves `cancel` (./cancel.ts).
import type { Command } from "commander";
import type { Context } from "../../context.js";
import type { Leaf } from "../command.js";
import { createPrinter, UNATTRIBUTED_NOTE } from "../../output/printer.js";
import { sanitizeLine, shellWord } from "../../sanitize.js";
import { isTerminal, type Snapshot } from "../../protocol/wire.js";
import { markingGone } from "../../tasks/handle-events.js";
import type { TrackedTask } from "../../tasks/tracker.js";
import { settle } from "../../tasks/settle.js";
import { questionViews, viewOf } from "../../tasks/views.js";
import type { HandleView } from "../../model.js";
import { describeTaskText } from "../../output/describe.js";
import { preparedAnswers } from "../../tasks/input.js";
import { reconnect } from "../../tasks/reconnect.js";
import {
  JSON_DOCUMENT,
  jsonFlag,
  jsonOption,
  pickServer,
  taskIdArgument,
  taskRef,
  withOptions,
  type Flags,
  type TaskRef,
} from "../options.js";
import { cutText } from "../../errors.js";

export interface GetOptions extends TaskRef {
  json: boolean;
}

/** `get` and `cancel`: a task id, its server where one id is saved for several, --json. */
export const declareTaskRead = (parent: Command, name: string, summary: string): Command =>
  withOptions(
    parent.command(name).summary(summary).addArgument(taskIdArgument()),
    pickServer(),
    jsonOption(JSON_DOCUMENT),
  );

export const parseTaskRead = ([id]: [string], flags: Flags): GetOptions => ({
  ...taskRef(id, flags),
  json: jsonFlag(flags),
});

export const get: Leaf<GetOptions, [string]> = {
  examples: ["mcp-task get 5348014916be --json"],
  declare: (parent) =>
    declareTaskRead(parent, "get", "read a saved task's status from the server (and update the saved handle)"),
  parse: parseTaskRead,
  run: (options, ctx) => runGet(options, "get", options.json, ctx),
};

export async function runGet(ref: TaskRef, verb: "get" | "cancel", json: boolean, ctx: Context): Promise<number> {
  const printer = createPrinter(ctx.io, json);
  const tracked = await ctx.tracker.open(ref.id, ref.server);
  const before = tracked.handle.last.status;
  const show = (snapshot: Snapshot) => {
    // A cancel is no proof: report whether the task had ended on its own before it.
    const alreadyEnded = isTerminal(before) || (isTerminal(snapshot.status) && snapshot.status !== "cancelled");
    const view = {
      ...viewOf(tracked.handle, ctx.clock.now()),
      inputRequests: questionViews(snapshot.inputRequests),
      ...(verb === "cancel" ? { alreadyEnded } : {}),
    };
    printer.document(view, () => describe(tracked, snapshot, verb, view));
    return 0;
  };
  // A finished task's outcome is final and saved: the handle answers, even once its server (or broker) is gone.
  const outcome = tracked.handle.outcome;
  if (outcome) return show({ ...tracked.handle.last, status: outcome.status, inputRequests: [] });
  // Reading and cancelling never answer input.
  const { wire, engine } = await reconnect(tracked, ctx, preparedAnswers({}), (text) => printer.note(text));
  try {
    const snapshot = await markingGone(tracked, () =>
      verb === "cancel" ? engine.cancel(tracked.taskId) : wire.getTask(tracked.taskId),
    );
    await tracked.observe(snapshot);
    if (isTerminal(snapshot.status) && !tracked.handle.outcome) await settle(tracked, snapshot, engine);
    // What was read is saved before the command ends (a new status message alone is otherwise written in batches).
    await tracked.flush();
    return show(snapshot);
  } finally {
    await wire.close();
  }
}

function describe(tracked: TrackedTask, snapshot: Snapshot, verb: "get" | "cancel", view: HandleView): string {
  const h = tracked.handle;
  // The layout the dashboard's detail view shows (../output/describe.ts), with the status just read.
  const facts = { ...view, statusMessage: snapshot.statusMessage ?? null, ttlMs: h.ttlMs };
  const shown = { status: snapshot.status, protocolVersion: h.resume.protocolVersion };
  const lines = describeTaskText(facts, shown);
  for (const request of snapshot.inputRequests) {
    const message = String(request.params.message ?? request.method);
    const note = request.unattributed ? ` ${UNATTRIBUTED_NOTE}` : "";
    lines.push(`  asks (${cutText(sanitizeLine(request.key))}): ${cutText(sanitizeLine(message))}${note}`);
  }
  if (verb === "cancel") {
    lines.push(
      snapshot.status === "cancelled"
        ? "  cancelled"
        : isTerminal(snapshot.status)
          ? `  it had already ended (${snapshot.status})`
          : `  cancel requested; the server still reports ${snapshot.status} (it may take a moment)`,
    );
  }
  if (isTerminal(snapshot.status)) lines.push(`  result: mcp-task result ${shellWord(tracked.taskId)}`);
  return lines.join("\n");
}
