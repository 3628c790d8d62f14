// An agent's tools/call to `mcp-task serve`: an upstream tool started as a task through the bridge (./tasks.ts) and
// waited for up to --wait, or one of the task tools (status, result, cancel, answer, list). Every failure is the
// agent's tool error (isError) with a true message (./replies.ts), never a JSON-RPC error it may not show.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { cutText, UsageError } from "../errors.js";
import type { InputResponse, Progress } from "../protocol/wire.js";
import { sanitizeLine } from "../sanitize.js";
import type { ServeOptions } from "./options.js";
import { errorResult, outcomeResult, pendingResult, questionView, statusView, type TaskToolNames } from "./replies.js";
import type { BridgeTask } from "./task.js";
import type { BridgeTasks, QuestionMode } from "./tasks.js";
import type { Route } from "./tools.js";

/** The most tasks task_list returns. */
const LISTED_TASKS = 50;

/** What a call needs of the bridge. */
export interface Bridge {
  tasks: BridgeTasks;
  options: ServeOptions;
  mode(): QuestionMode;
  /** The tools as last listed (listed now if never). */
  list(): Promise<Listing>;
  /** The tools listed again (a name not known: the upstream's tools may have changed). */
  relist(): Promise<Listing>;
}

interface Listing {
  routes: Map<string, Route>;
  names: TaskToolNames;
}

/** The request's parameters as the SDK hands them over. */
interface CallParams {
  name: string;
  arguments?: Record<string, unknown>;
  _meta?: { progressToken?: string | number };
}

/** What the SDK gives a handler: the agent's cancellation, and a way to notify it. */
interface CallExtra {
  signal: AbortSignal;
  sendNotification(notification: { method: "notifications/progress"; params: Record<string, unknown> }): Promise<void>;
}

type Reply = CallToolResult | Record<string, unknown>;

export async function callTool(bridge: Bridge, params: CallParams, extra: CallExtra): Promise<Reply> {
  const { routes, names } = await bridge.list();
  const route = routes.get(params.name) ?? (await bridge.relist()).routes.get(params.name);
  if (!route) return errorResult(new UsageError(`no tool ${sanitizeLine(params.name)} here`));
  const progress = progressTo(params._meta?.progressToken, extra);
  const args = params.arguments ?? {};
  try {
    if (route.kind === "upstream") return await upstreamCall(bridge, route, args, names, extra.signal, progress);
    return await taskTool(bridge, route.which, args, names, extra.signal, progress);
  } catch (error) {
    return errorResult(error);
  }
}

/** Progress of the task to the agent, where its request asked for it (a progressToken). */
function progressTo(token: string | number | undefined, extra: CallExtra): ((p: Progress) => void) | undefined {
  if (token === undefined) return undefined;
  return (p) =>
    void extra
      .sendNotification({
        method: "notifications/progress",
        params: {
          progressToken: token,
          progress: p.progress,
          ...(p.total !== undefined && { total: p.total }),
          ...(p.message !== undefined && { message: cutText(sanitizeLine(p.message)) }),
        },
      })
      .catch(() => {});
}

async function upstreamCall(
  bridge: Bridge,
  route: Extract<Route, { kind: "upstream" }>,
  args: Record<string, unknown>,
  names: TaskToolNames,
  signal: AbortSignal,
  progress: ((p: Progress) => void) | undefined,
): Promise<Reply> {
  const started = await bridge.tasks.call(route.server, route.tool, args, { signal, progress });
  if (started.kind === "result") return outcomeResult(started.outcome);
  return waitedFor(bridge, started.task, bridge.options.waitMs, names, signal, progress);
}

/** The task's outcome if it comes within `waitMs` (the agent's cancellation stops the waiting, never the task). */
async function waitedFor(
  bridge: Bridge,
  task: BridgeTask,
  waitMs: number,
  names: TaskToolNames,
  signal: AbortSignal,
  progress: ((p: Progress) => void) | undefined,
): Promise<Reply> {
  if (progress) task.listeners.add(progress);
  try {
    if (await bridge.tasks.waitFor(task, waitMs, signal)) return outcomeResult(task.outcome!);
  } finally {
    if (progress) task.listeners.delete(progress);
  }
  return pendingResult(task, bridge.mode(), bridge.options.agentAnswers, names, waitMs);
}

/** A structured reply, its JSON also as text (for agents that read only text). */
const viewReply = (view: Record<string, unknown>): Reply => ({
  content: [{ type: "text", text: JSON.stringify(view) }],
  structuredContent: view,
});

async function taskTool(
  bridge: Bridge,
  which: Extract<Route, { kind: "task" }>["which"],
  args: Record<string, unknown>,
  names: TaskToolNames,
  signal: AbortSignal,
  progress: ((p: Progress) => void) | undefined,
): Promise<Reply> {
  const { tasks, options } = bridge;
  if (which === "list") return viewReply({ tasks: await tasks.list(LISTED_TASKS) });
  const taskId = args.taskId;
  if (typeof taskId !== "string" || taskId === "") throw new UsageError("taskId: a task id is required");
  const task = await tasks.task(taskId);
  const status = () => statusView(task, bridge.mode(), options.agentAnswers, names);
  switch (which) {
    case "status":
      return viewReply(status());
    case "result": {
      const asked = typeof args.waitSeconds === "number" ? args.waitSeconds * 1000 : options.waitMs;
      return waitedFor(bridge, task, Math.max(0, Math.min(asked, options.waitMs)), names, signal, progress);
    }
    case "cancel": {
      const reported = await tasks.cancel(task);
      return viewReply({ ...status(), ...(reported ? {} : { alreadyEnded: true }) });
    }
    case "answer": {
      const response = answerOf(args);
      const key = typeof args.key === "string" ? args.key : undefined;
      const question = await tasks.answerQuestion(task, key, response);
      return viewReply({ taskId: task.taskId, answered: questionView(question), action: response.action });
    }
  }
}

/** task_answer's arguments as an answer. */
function answerOf(args: Record<string, unknown>): InputResponse {
  if (args.action === "decline" || args.action === "cancel") return { action: args.action };
  if (args.action !== "accept") throw new UsageError("action: one of accept, decline, cancel");
  const content = args.content ?? {};
  if (typeof content !== "object" || content === null || Array.isArray(content))
    throw new UsageError("content: an object (the answer to the question's requestedSchema)");
  return { action: "accept", content: content as Record<string, unknown> };
}
