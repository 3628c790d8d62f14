// The wire shapes of the demo's two faces: the params schemas of their tasks/* handlers (the SDK's Server takes a
// Standard Schema per method), and a task record as a 2025-11-25 Task (V1) or a 2026-07-28 Task / DetailedTask (V2).
import type { StandardSchemaV1 } from "@modelcontextprotocol/server";
import type { JsonObject, TaskRecord } from "./task.js";

export const isObject = (v: unknown): v is JsonObject => v !== null && typeof v === "object" && !Array.isArray(v);

function paramsSchema<T extends JsonObject>(
  check: (value: JsonObject) => string | undefined,
): StandardSchemaV1<unknown, T> {
  return {
    "~standard": {
      version: 1,
      vendor: "mcp-task-demo",
      validate(value: unknown) {
        const params = isObject(value) ? value : {};
        const problem = check(params);
        return problem ? { issues: [{ message: problem }] } : { value: params as T };
      },
    },
  };
}

export const TaskIdParams = paramsSchema<{ taskId: string } & JsonObject>((p) =>
  typeof p.taskId === "string" ? undefined : "params.taskId must be a string",
);
export const ListParams = paramsSchema<{ cursor?: string } & JsonObject>((p) =>
  p.cursor === undefined || typeof p.cursor === "string" ? undefined : "params.cursor must be a string",
);

/** The 2025-11-25 Task. */
export function v1Task(task: TaskRecord): JsonObject {
  return {
    taskId: task.taskId,
    status: task.status,
    ...(task.statusMessage !== undefined && { statusMessage: task.statusMessage }),
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
    ttl: task.ttlMs,
    pollInterval: task.pollIntervalMs,
  };
}

/** The Task fields shared by the create reply, tasks/get and notifications/tasks. */
export function v2Task(task: TaskRecord): JsonObject {
  return {
    taskId: task.taskId,
    status: task.status,
    ...(task.statusMessage !== undefined && { statusMessage: task.statusMessage }),
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
    ttlMs: task.ttlMs,
    pollIntervalMs: task.pollIntervalMs,
  };
}

/** DetailedTask: the Task plus exactly one of inputRequests / result / error, by status. */
export function v2Detailed(task: TaskRecord): JsonObject {
  const out = v2Task(task);
  if (task.status === "input_required") out.inputRequests = { ...task.pending };
  if (task.status === "completed") out.result = task.result ?? { content: [] };
  if (task.status === "failed") out.error = task.error ?? { code: -32603, message: "Internal error" };
  return out;
}
