// Validating what servers send, with the spec-generated schemas of @modelcontextprotocol/ext-tasks, and turning
// it into the neutral Snapshot. Every mismatch becomes a ProtocolViolation (exit 4) that says what was wrong.
import { CallToolResultV1Schema, TaskV1Schema } from "@modelcontextprotocol/ext-tasks/core/v1";
import {
  ErrorV2Schema,
  InputRequestV2Schema,
  InputRequestsV2Schema,
  TaskV2Schema,
} from "@modelcontextprotocol/ext-tasks/core/v2";
import type { z } from "zod/v4";
import { ProtocolViolation } from "../errors.js";
import { sanitizeLine } from "../sanitize.js";
import { checkFormBounds } from "./schema-bounds.js";
import type { CallToolResult, InputRequest, Snapshot, TaskError, TaskPage } from "./wire.js";

// A status message is a line for a person: a longer one is cut (src/limits.ts); it is shown, pushed and saved.
import { MAX_STATUS_MESSAGE, MAX_TASK_ID_LENGTH, MAX_TIMESTAMP_LENGTH, MAX_TTL_MS } from "../limits.js";
import { pollInterval } from "./checks.js";
export { MAX_STATUS_MESSAGE };

function shortMessage(message: string | undefined): string | undefined {
  return message !== undefined && message.length > MAX_STATUS_MESSAGE
    ? `${message.slice(0, MAX_STATUS_MESSAGE)}…`
    : message;
}

/** A ttl expiry arithmetic can use: below zero is no ttl (undefined), past MAX_TTL_MS unlimited (null). */
function ttl(ms: number | null | undefined): number | null | undefined {
  if (ms === null || ms === undefined) return ms;
  if (!Number.isFinite(ms) || ms < 0) return undefined;
  return ms > MAX_TTL_MS ? null : ms;
}

/** A server timestamp that parses as a time and is short enough to be one; anything else is dropped. */
function timestamp(value: string | undefined): string | undefined {
  return value !== undefined && value.length <= MAX_TIMESTAMP_LENGTH && Number.isFinite(Date.parse(value))
    ? value
    : undefined;
}

/** A task id within MAX_TASK_ID_LENGTH; a longer one is refused before it can be stored, shown or sent back. */
function taskIdOrThrow(taskId: string, what: string): string {
  if (taskId.length <= MAX_TASK_ID_LENGTH) return taskId;
  throw new ProtocolViolation(
    `the server sent a ${what} with a task id of ${taskId.length} characters (at most ${MAX_TASK_ID_LENGTH}): ${sanitizeLine(taskId.slice(0, 24))}…`,
  );
}

/**
 * The fields both generations share, made safe to compute with (see the helpers above), with the rest of a snapshot.
 * Written out, not spread: `{ ...shared, status, ... }` (new keys after a spread) cost V8 about 1.5 KB of garbage
 * per snapshot, measured, where this literal costs a tenth of it (a dashboard reads about 1,000 snapshots a second).
 */
function snapshotOf(
  task: { taskId: string; statusMessage?: string; createdAt: string; lastUpdatedAt?: string },
  what: string,
  status: Snapshot["status"],
  ttlMs: number | null | undefined,
  pollIntervalMs: number | undefined,
): Snapshot {
  return {
    taskId: taskIdOrThrow(task.taskId, what),
    statusMessage: shortMessage(task.statusMessage),
    createdAt: timestamp(task.createdAt),
    lastUpdatedAt: timestamp(task.lastUpdatedAt),
    status,
    ttlMs: ttl(ttlMs),
    pollIntervalMs: pollInterval(pollIntervalMs),
    inputRequests: [],
  };
}

type Schema<T> = { safeParse(value: unknown): { success: true; data: T } | { success: false; error: z.ZodError } };

/** Parses `value` or throws a ProtocolViolation naming the first problems found. */
export function parseOrThrow<T>(schema: Schema<T>, value: unknown, what: string): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.length ? issue.path.join(".") : "(root)"}: ${issue.message}`)
    .join("; ");
  throw new ProtocolViolation(sanitizeLine(`the server sent an invalid ${what}: ${problems}`));
}

export function toolResultOrThrow(value: unknown, what: string): CallToolResult {
  return parseOrThrow(CallToolResultV1Schema, value, what) as unknown as CallToolResult;
}

export function snapshotFromV1(value: unknown, what = "task"): Snapshot {
  const task = parseOrThrow(TaskV1Schema, value, what);
  return snapshotOf(task, what, task.status, task.ttl, task.pollInterval);
}

/** A V1 tasks/list result: the tasks that parse (one malformed entry must not hide the others), and the cursor. */
export function taskPageFromV1(reply: Record<string, unknown>): TaskPage {
  if (!Array.isArray(reply.tasks))
    throw new ProtocolViolation("the server sent a tasks/list result without a tasks array");
  const tasks: Snapshot[] = [];
  for (const entry of reply.tasks) {
    try {
      tasks.push(snapshotFromV1(entry, "tasks/list entry"));
    } catch {
      /* skipped: reported by the count difference */
    }
  }
  return { tasks, nextCursor: typeof reply.nextCursor === "string" ? reply.nextCursor : undefined };
}

type TaskV2 = z.infer<typeof TaskV2Schema>;
const V2_STATUSES = new Set(["working", "input_required", "completed", "failed", "cancelled"]);

/**
 * A V2 task that TaskV2Schema accepts, told without zod: every field of the schema present with its type (z.int() is
 * a safe integer). A dashboard following 1,000 tasks reads about 1,000 pushed tasks a second, and zod's walk of each
 * (a new object, each field checked through its schema's layers) was most of the cost of a push; a task this check
 * does not vouch for goes to zod, which accepts it or says what is wrong, as before.
 */
function plainTaskV2(value: unknown): value is TaskV2 {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const t = value as Record<string, unknown>;
  return (
    typeof t.taskId === "string" &&
    V2_STATUSES.has(t.status as string) &&
    (t.statusMessage === undefined || typeof t.statusMessage === "string") &&
    typeof t.createdAt === "string" &&
    typeof t.lastUpdatedAt === "string" &&
    (t.ttlMs === null || Number.isSafeInteger(t.ttlMs)) &&
    (t.pollIntervalMs === undefined || Number.isSafeInteger(t.pollIntervalMs))
  );
}

/** A V2 task (flat create reply, tasks/get result or notification) with its status-dependent fields. */
export function snapshotFromV2(value: unknown, what = "task"): Snapshot {
  const task = plainTaskV2(value) ? value : parseOrThrow(TaskV2Schema, value, what);
  const raw = value as Record<string, unknown>;
  const snapshot = snapshotOf(task, what, task.status, task.ttlMs, task.pollIntervalMs);
  if (task.status === "input_required" && raw.inputRequests !== undefined) {
    snapshot.inputRequests = inputRequestsFromV2(raw.inputRequests, `${what} inputRequests`);
    snapshot.inputListed = true;
  }
  if (task.status === "completed" && raw.result !== undefined) {
    // The spec's own examples omit `resultType` on the inlined result: a missing one means `complete`.
    const result = raw.result as Record<string, unknown>;
    if (result && typeof result === "object" && result.resultType !== undefined && result.resultType !== "complete") {
      throw new ProtocolViolation(
        `the server sent a completed task whose result has resultType "${sanitizeLine(String(result.resultType))}"`,
      );
    }
    snapshot.result = toolResultOrThrow(result, `${what} result`);
  }
  // Kept on a completed task too: one that says completed and carries an error is a contradiction the engine reports.
  if ((task.status === "failed" || task.status === "completed") && raw.error !== undefined) {
    snapshot.error = parseOrThrow(ErrorV2Schema, raw.error, `${what} error`) as TaskError;
  }
  return snapshot;
}

export function inputRequestsFromV2(value: unknown, what: string): InputRequest[] {
  // Each question's form measured before zod walks it (a requestedSchema 20,000 levels deep: "Invalid input").
  if (value && typeof value === "object") {
    for (const request of Object.values(value)) {
      const form = (request as { params?: { requestedSchema?: unknown } } | null)?.params?.requestedSchema;
      if (form !== undefined) checkFormBounds(form);
    }
  }
  parseOrThrow(InputRequestsV2Schema, value, what);
  // The keys from the server's own object: zod leaves a key named `__proto__` out of what it returns (the question
  // would be lost and the task wait for ever), so each request is parsed on its own.
  return Object.keys(value as object).map((key) => {
    const request = parseOrThrow(InputRequestV2Schema, (value as Record<string, unknown>)[key], `${what} ${key}`) as {
      method: string;
      params?: Record<string, unknown>;
    };
    // Only a form can be declined on the 2026-07-28 protocol (see wireResponse in v2.ts).
    const declinable = request.method === "elicitation/create";
    return { key, method: request.method, params: request.params ?? {}, ...(declinable ? {} : { declinable }) };
  });
}
