// Starting a task: the one way a tool call becomes a saved task (`call`, the dashboard's new call, the demo). Before
// connecting, whether the call may become a task (then it must outlive the command: on stdio, through the server's
// broker); once connected, the tool and its arguments checked against its inputSchema (every tool's task support
// kept for the next call's decision), the call (its reply waited for a little when stopped), and the new task's
// handle saved and tracked (saveStarted, also the broker's for a task whose command left before the reply).
import type { Clock, FinalOutcome, Handle } from "../model.js";
import { StoreUnwritableError, UsageError } from "../errors.js";
import { descriptorKey, type ServerDescriptor } from "../protocol/server.js";
import type { Progress, Snapshot, Wire } from "../protocol/wire.js";
import type { TaskEngine } from "./engine.js";
import { shellValue } from "../sanitize.js";
import { checkedTool } from "./tool-check.js";
import type { TrackedTask, Tracker } from "./tracker.js";
import { replyWait, unansweredCall } from "./waiting.js";

/** Where each server's tools' task support is kept between calls (settings.json: store/settings.ts). */
export interface TaskSupportCache {
  taskSupport(key: string): Record<string, string> | undefined;
  saveTaskSupport(key: string, listed: Record<string, string>): void;
}

export interface StartRequest {
  /** `option`: the server option as given, for a hint's next command to repeat (resolve-server.ts); `-s <name>` if
   *  not given (a saved server). */
  server: { name: string; descriptor: ServerDescriptor; option?: string };
  tool: string;
  args: Record<string, unknown>;
  /** The key=value arguments as typed, each read as the tool's inputSchema declares (tool-check.ts: typedArgs). */
  typed?: Readonly<Record<string, string>>;
  /** "never": a plain call, never a task. */
  task: "auto" | "never";
  ttlMs?: number;
  /** The task must stay reachable by a later command (--detach): refused where the wire confines its tasks. */
  detach?: boolean;
  /** Started through `mcp-task serve`: marked so on its handle (Handle.via). */
  via?: "serve";
}

/** A start decided before connecting (planStart): connect with `outlive: mayBeTask`. */
export interface StartPlan extends StartRequest {
  readonly mayBeTask: boolean;
  readonly cache: TaskSupportCache;
}

/**
 * Whether the call may become a task, from its tool's task support as last listed: one that may must outlive the
 * command (--detach, Ctrl-C, --timeout); one that cannot (--no-task, or a tool the server listed as never running as
 * a task) talks to the server directly, which is much cheaper.
 */
export function planStart(cache: TaskSupportCache, request: StartRequest): StartPlan {
  const known = cache.taskSupport(descriptorKey(request.server.descriptor))?.[request.tool];
  return { ...request, mayBeTask: request.task !== "never" && known !== "forbidden", cache };
}

/** What a start needs of its context. */
export interface StartContext {
  clock: Clock;
  interrupt: AbortSignal;
  tracker: Tracker;
}

/** What the starter hears, and how it stops the start. */
export interface StartHooks {
  /**
   * Stops the start (Ctrl-C, --timeout): before the call, nothing is started; while the call is out, one that may
   * become a task waits a little for its reply, so that the task is saved, not lost (replyWait).
   */
  signal?: AbortSignal;
  note?(text: string): void;
  /** Progress of the call, and of its task (kept on its handle once there is one: `tracked`). */
  progress?(progress: Progress, tracked: TrackedTask | undefined): void;
  /** The reply made a task (its handle is saved next). */
  created?(first: Snapshot): void;
  /** The task exists and the store could not take its handle (the error, which names the task, is thrown next). */
  unsaved?(first: Snapshot): void;
}

export type Started =
  { kind: "result"; outcome: FinalOutcome } | { kind: "task"; tracked: TrackedTask; first: Snapshot };

/** Starts a call as `plan` says, through `engine`: its result, or its task, saved and tracked. */
export async function startTask(
  engine: TaskEngine,
  plan: StartPlan,
  ctx: StartContext,
  hooks: StartHooks = {},
): Promise<Started> {
  const { server, tool } = plan;
  const key = descriptorKey(server.descriptor);
  const option = server.option ?? `-s ${shellValue(server.name)}`;
  const save = (support: Record<string, string>) => plan.cache.saveTaskSupport(key, support);
  const { args } = await checkedTool(engine, { ...server, option }, tool, plan.args, save, plan.typed);
  if (hooks.signal?.aborted) throw hooks.signal.reason; // stopped before the call: nothing was started
  if (plan.detach && plan.mayBeTask && engine.wire.capabilities.confinedTasks)
    throw new UsageError(
      `--detach cannot be kept: ${engine.wire.capabilities.confinedTasks}`,
      "run it without --detach: the command follows the task to its end",
    );
  const note = (text: string) => hooks.note?.(text);
  const reply = plan.mayBeTask && hooks.signal ? replyWait(ctx, hooks.signal, note) : undefined;
  let tracked: TrackedTask | undefined;
  let started;
  try {
    started = await engine.call(tool, args, {
      task: plan.task,
      ttlMs: plan.ttlMs,
      signal: reply?.signal ?? hooks.signal,
      onProgress: (progress) => {
        hooks.progress?.(progress, tracked);
        tracked?.progressed(progress);
      },
      // A broker making the call saves the task under this name if its starter is gone before the reply.
      owner: { name: server.name, descriptor: server.descriptor },
    });
  } catch (error) {
    // Stopped, and no reply within the wait for it: what became of the call depends on who still hears it.
    if (reply?.signal.aborted && error === reply.signal.reason)
      throw unansweredCall(error, engine.wire.capabilities.keepsAbandonedCalls === true);
    throw error;
  } finally {
    reply?.dispose();
  }
  if (started.kind === "result") return started;
  const first = started.snapshot;
  hooks.created?.(first);
  try {
    tracked = await saveStarted(ctx.tracker, server, engine.wire, tool, args, first, plan.via);
  } catch (error) {
    if (error instanceof StoreUnwritableError && error.taskId !== null) hooks.unsaved?.(first);
    throw error;
  }
  return { kind: "task", tracked, first };
}

/**
 * Saves the handle of a task just created, before anything else can fail (see Tracker.start): a start's last step,
 * and the broker's for a task whose command left before the reply came (broker/tasks.ts: saveAbandoned).
 */
export function saveStarted(
  tracker: Tracker,
  server: Handle["server"],
  wire: Wire,
  tool: string,
  args: Record<string, unknown>,
  first: Snapshot,
  via?: Handle["via"],
): Promise<TrackedTask> {
  return tracker.start(server, wire, tool, args, first, via);
}
