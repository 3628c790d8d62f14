// The 2025-11-25 shapes the demo's V1 face reads and writes: the params schemas of its tasks/* handlers (the
// SDK's Server takes a Standard Schema per method) and the V1 Task of a task record.
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
