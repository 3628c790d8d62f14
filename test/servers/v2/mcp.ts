// The per-request (HTTP) / per-connection (stdio) server instance: a low-level SDK `Server` with the
// tasks extension's wire behaviour added on top. The SDK 2.4 has no server-side support for the
// extension, but its 2026-07-28 dispatch lets an instance answer `tasks/get` and `tasks/cancel` when
// they are registered with explicit schemas, takes `tasks/update` as a custom method, already answers
// the removed `tasks/result` / `tasks/list` with -32601, and validates the Mcp-Name header against
// params.taskId on HTTP.

import { ProtocolError, Server } from "@modelcontextprotocol/server";
import type { JSONRPCRequest, RequestStateCodec, Result, ServerContext, StandardSchemaV1 } from "@modelcontextprotocol/server";
import type { JsonObject, TaskRecord, TaskRuntime } from "./runtime.js";
import { TASKS_EXTENSION, callTool, declaresTasks, listTools, missingTasksExtension } from "./tools.js";
import { log } from "./stats.js";

export const SERVER_INFO = { name: "mcp-task-v2-test-server", version: "0.1.0" };

/** A Standard Schema for `{ taskId: string, ... }` params (no zod needed). */
const TaskIdParams: StandardSchemaV1<unknown, { taskId: string } & JsonObject> = {
  "~standard": {
    version: 1,
    vendor: "mcp-task-test",
    validate(value: unknown) {
      if (value !== null && typeof value === "object" && !Array.isArray(value) && typeof (value as JsonObject).taskId === "string")
        return { value: value as { taskId: string } & JsonObject };
      return { issues: [{ message: "params.taskId must be a string", path: ["taskId"] }] };
    },
  },
};

function findTask(runtime: TaskRuntime, taskId: string): TaskRecord {
  const task = runtime.get(taskId);
  // Unknown and expired ids look the same: -32602.
  if (!task) throw new ProtocolError(-32602, "Task not found (unknown or expired taskId)");
  return task;
}

function requireTasks(ctx: ServerContext, method: string): void {
  if (!declaresTasks(ctx)) throw missingTasksExtension(method);
}

/**
 * `Server` wraps a registered tools/call handler to validate its result as a CallToolResult (it would
 * add `content: []` to a CreateTaskResult, and reject nothing we care about), and to run the SDK's
 * request-level-input seam. This server returns CreateTaskResults and its own input_required results,
 * and must pass deliberately broken results (task_structured_bad) through, so tools/call goes
 * unwrapped. The 2026 encoder then lets `resultType: "task"` / `"input_required"` through for
 * tools/call and stamps `resultType: "complete"` on results that carry none.
 */
class TasksServer extends Server {
  protected override _wrapHandler(
    method: string,
    handler: (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>,
  ): (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result> {
    return method === "tools/call" ? handler : super._wrapHandler(method, handler);
  }
}

export function createServerFactory(runtime: TaskRuntime, stateCodec: RequestStateCodec<JsonObject>): () => Server {
  return () => {
    const server = new TasksServer(SERVER_INFO, {
      capabilities: { tools: {}, extensions: { [TASKS_EXTENSION]: {} } },
      instructions: "Test server for mcp-task: MCP 2026-07-28 with the io.modelcontextprotocol/tasks extension.",
    });

    server.setRequestHandler("tools/list", async () => ({ tools: listTools() }) as never);
    server.setRequestHandler("tools/call", async (request, ctx) => {
      const params = (request.params ?? {}) as JsonObject;
      return (await callTool(params, ctx, { runtime, stateCodec })) as never;
    });

    server.setRequestHandler("tasks/get", { params: TaskIdParams }, async (params, ctx) => {
      requireTasks(ctx, "tasks/get");
      return runtime.detailed(findTask(runtime, params.taskId));
    });

    server.setRequestHandler("tasks/update", { params: TaskIdParams }, async (params, ctx) => {
      requireTasks(ctx, "tasks/update");
      const task = findTask(runtime, params.taskId);
      // The SDK lifts `inputResponses` out of the params of every request (it is a reserved retry
      // field) and keeps only bare response objects; wrapped `{method, result}` entries are dropped.
      const responses = ctx.mcpReq.inputResponses;
      const dropped = ctx.mcpReq.droppedInputResponseKeys ?? [];
      if (responses === undefined && dropped.length === 0)
        throw new ProtocolError(-32602, "Invalid params: tasks/update requires inputResponses");
      const { accepted, ignored } = runtime.update(task, responses ?? {});
      if (ignored.length > 0 || dropped.length > 0)
        log(`tasks/update ${task.taskId.slice(0, 8)}: accepted [${accepted.join(", ")}], ignored [${[...ignored, ...dropped].join(", ")}]`);
      return {};
    });

    server.setRequestHandler("tasks/cancel", { params: TaskIdParams }, async (params, ctx) => {
      requireTasks(ctx, "tasks/cancel");
      runtime.cancel(findTask(runtime, params.taskId));
      return {};
    });

    return server;
  };
}
