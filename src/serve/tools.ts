// The tools `mcp-task serve` lists: each offered server's tools, named as the server names them (prefixed
// `<server>__` when more than one server is offered), their schemas as the server sent them; and the task tools.
//
// outputSchema: a tool that may run as a task (its task support not "forbidden") is listed without it. Its reply may
// be this bridge's note that the task runs on (with its id), not the tool's result, and a client holds a reply to
// the tool's outputSchema (the SDK's clients refuse one without structuredContent). Its result, once it comes, is
// still the server's exactly, structuredContent included. A tool that never runs as a task keeps its outputSchema:
// its reply is always its result.
import type { ToolInfo } from "../protocol/wire.js";
import type { TaskToolNames } from "./replies.js";
import type { Served } from "./task.js";

/** A tool as listed to the agent (MCP's Tool). */
export interface ListedTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
}

/** Where a listed name leads. */
export type Route = { kind: "upstream"; server: Served; tool: string } | { kind: "task"; which: keyof TaskToolNames };

const TASK_ID = { taskId: { type: "string", description: "the task id a reply of this server named" } };

/** The task tools: how an agent that knows nothing of tasks comes back for one. */
function taskTools(names: TaskToolNames, waitS: number, agentAnswers: boolean): ListedTool[] {
  const tools: ListedTool[] = [
    {
      name: names.status,
      description:
        "The status of a task a call of this server started: working, input_required (with the question it asks and who answers it), completed, failed or cancelled.",
      inputSchema: { type: "object", properties: TASK_ID, required: ["taskId"] },
    },
    {
      name: names.result,
      description: `The result of a task a call of this server started, exactly as the tool returned it; waits up to ${waitS} s for it, else says the task still runs.`,
      inputSchema: {
        type: "object",
        properties: {
          ...TASK_ID,
          waitSeconds: {
            type: "number",
            minimum: 0,
            maximum: waitS,
            description: `how long to wait (at most ${waitS})`,
          },
        },
        required: ["taskId"],
      },
    },
    {
      name: names.cancel,
      description: "Cancels a task a call of this server started.",
      inputSchema: { type: "object", properties: TASK_ID, required: ["taskId"] },
    },
    {
      name: names.list,
      description: "The tasks calls of this server started (in this session and earlier ones), newest first.",
      inputSchema: { type: "object", properties: {} },
    },
  ];
  if (agentAnswers)
    tools.splice(2, 0, {
      name: names.answer,
      description:
        "Answers the question a task asks (its status shows it): accept with `content` (an object fitting the question's requestedSchema), or decline / cancel.",
      inputSchema: {
        type: "object",
        properties: {
          ...TASK_ID,
          key: { type: "string", description: "the question's key (needed only when the task asks more than one)" },
          action: { type: "string", enum: ["accept", "decline", "cancel"] },
          content: { type: "object", description: "the answer, for accept" },
        },
        required: ["taskId", "action"],
      },
    });
  return tools;
}

/** The listing and its routes, from each offered server's tools. */
export function listing(
  served: ReadonlyArray<{ server: Served; tools: readonly ToolInfo[] }>,
  options: { waitMs: number; agentAnswers: boolean },
): { tools: ListedTool[]; routes: Map<string, Route>; names: TaskToolNames } {
  const prefixed = served.length > 1;
  const routes = new Map<string, Route>();
  const tools: ListedTool[] = [];
  for (const { server, tools: upstream } of served)
    for (const tool of upstream) {
      const name = prefixed ? `${server.name}__${tool.name}` : tool.name;
      if (routes.has(name)) continue;
      routes.set(name, { kind: "upstream", server, tool: tool.name });
      tools.push({
        name,
        ...(tool.title !== undefined && { title: tool.title }),
        ...(tool.description !== undefined && { description: tool.description }),
        inputSchema: tool.inputSchema,
        ...(tool.outputSchema && tool.taskSupport === "forbidden" && { outputSchema: tool.outputSchema }),
      });
    }
  const names = taskToolNames(new Set(routes.keys()));
  for (const which of Object.keys(names) as Array<keyof TaskToolNames>)
    routes.set(names[which], { kind: "task", which });
  tools.push(...taskTools(names, Math.round(options.waitMs / 1000), options.agentAnswers));
  if (!options.agentAnswers) routes.delete(names.answer);
  return { tools, routes, names };
}

/** `task_status`...; `mcp_task_status`... where an upstream tool has one of those names. */
export function taskToolNames(upstream: ReadonlySet<string>): TaskToolNames {
  const plain = {
    status: "task_status",
    result: "task_result",
    answer: "task_answer",
    cancel: "task_cancel",
    list: "task_list",
  };
  const clash = Object.values(plain).some((name) => upstream.has(name));
  if (!clash) return plain;
  return {
    status: "mcp_task_status",
    result: "mcp_task_result",
    answer: "mcp_task_answer",
    cancel: "mcp_task_cancel",
    list: "mcp_task_list",
  };
}
