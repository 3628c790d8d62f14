// The dashboard's new call (the `n` key's form): started through the one start path (startTask, checked as `call`
// checks it), its progress told to its row once there is one; a task is handed to the model to show and follow, a
// result the server gave at once (no task) is returned for the view to show (nothing saves it).
import type { Context } from "../context.js";
import { describeError } from "../errors.js";
import type { ServerDescriptor } from "../protocol/server.js";
import type { Progress } from "../protocol/wire.js";
import type { ServerLinks } from "../tasks/reconnect.js";
import { planStart, startTask } from "../tasks/start.js";
import type { TrackedTask } from "../tasks/tracker.js";
import type { AnsweredAtOnce, TaskRow } from "./state.js";

/** What a start needs of the dashboard's model. */
export interface CallHost {
  ctx: Context;
  links(): ServerLinks;
  notify(text: string): void;
  /** Changes a row (its progress). */
  progress(stem: string, change: (row: TaskRow) => TaskRow): void;
  /** A task was started and saved: shown and followed. */
  started(tracked: TrackedTask, tool: string): void;
}

export async function startCall(
  host: CallHost,
  server: { name: string; descriptor: ServerDescriptor },
  tool: string,
  args: Record<string, unknown>,
): Promise<AnsweredAtOnce | undefined> {
  const { ctx } = host;
  try {
    const { engine } = await host.links().linkTo(server);
    const plan = planStart(await ctx.loadSettings(), { server, tool, args, task: "auto" });
    const started = await startTask(engine, plan, ctx, {
      // Progress goes to the row (in memory) once there is one.
      progress: (p: Progress, tracked, at = new Date(ctx.clock.now()).toISOString()) =>
        tracked &&
        host.progress(tracked.stem, (r) => ({
          ...r,
          progress: { ...p, at, first: r.progress?.first ?? { ...p, at } },
        })),
    });
    if (started.kind === "result") {
      host.notify(`${tool} answered at once (no task)${started.outcome.result?.isError ? ": tool error" : ""}`);
      return { server: server.name, tool, arguments: args, outcome: started.outcome };
    }
    host.started(started.tracked, tool);
  } catch (error) {
    host.notify(`call failed: ${describeError(error).message}`);
  }
  return undefined;
}
