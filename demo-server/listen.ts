// V2 push: `subscriptions/listen` with `notifications.taskIds`, and the `notifications/tasks` it delivers.
//
// The SDK 2.4 serves subscriptions/listen itself but knows only the core filter bits; it would drop `taskIds`.
// So a listen request that asks for task ids is served here, in front of the SDK, on both transports:
//   -> subscriptions/listen {notifications:{taskIds:[...]}, _meta:{...envelope}}
//   <- notifications/subscriptions/acknowledged {notifications:{taskIds:[honoured ids]}, _meta:{subscriptionId}}
//   <- notifications/tasks {<the task as tasks/get shows it>, _meta:{subscriptionId}}: a snapshot per task right
//      after the ack, then one on every change.
// HTTP: the listen POST answers with an SSE stream that stays open until the client leaves (or the server stops:
// then the listen result ends it). stdio: `notifications/cancelled {requestId}` ends a subscription.

import { CLIENT_CAPABILITIES_KEY, MODERN_VERSION, PROTOCOL_VERSION_KEY, TASKS_EXTENSION } from "./envelope.js";
import type { TaskRuntime } from "./runtime.js";
import type { JsonObject, TaskRecord } from "./task.js";

const SUBSCRIPTION_ID_KEY = "io.modelcontextprotocol/subscriptionId";
const SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo";

type Id = string | number;

interface Subscription {
  id: Id;
  taskIds: Set<string>;
  send: (message: JsonObject) => void;
  end?: () => void;
}

const isObject = (v: unknown): v is JsonObject => v !== null && typeof v === "object" && !Array.isArray(v);

export class ListenHub {
  private readonly subs = new Set<Subscription>();
  private readonly unsubscribe: () => void;

  constructor(
    private readonly runtime: TaskRuntime,
    private readonly detailed: (task: TaskRecord) => JsonObject,
    private readonly serverInfo: JsonObject,
    private readonly log: (line: string) => void,
  ) {
    this.unsubscribe = runtime.onChange((task) => this.publish(task));
  }

  /** Whether this is a well-formed 2026-07-28 subscriptions/listen asking for task ids (anything else: the SDK's). */
  wants(message: unknown): message is { id: Id; params: JsonObject } {
    if (!isObject(message) || message.method !== "subscriptions/listen") return false;
    if (typeof message.id !== "string" && typeof message.id !== "number") return false;
    const params = message.params;
    if (!isObject(params) || !isObject(params.notifications) || !isObject(params._meta)) return false;
    if (params._meta[PROTOCOL_VERSION_KEY] !== MODERN_VERSION || !isObject(params._meta[CLIENT_CAPABILITIES_KEY]))
      return false;
    const taskIds = params.notifications.taskIds;
    return Array.isArray(taskIds) && taskIds.every((t) => typeof t === "string");
  }

  /** Opens a subscription: sends the ack and a snapshot of each honoured task. */
  open(message: { id: Id; params: JsonObject }, send: (m: JsonObject) => void, end?: () => void): Subscription {
    const caps = (message.params._meta as JsonObject)[CLIENT_CAPABILITIES_KEY] as JsonObject;
    const declares = isObject(caps.extensions) && isObject(caps.extensions[TASKS_EXTENSION]);
    const requested = (message.params.notifications as JsonObject).taskIds as string[];
    // Only live tasks, and only for a client that declared the extension.
    const honoured = declares ? [...new Set(requested)].filter((id) => this.runtime.get(id) !== undefined) : [];
    const sub: Subscription = { id: message.id, taskIds: new Set(honoured), send, end };
    send({
      jsonrpc: "2.0",
      method: "notifications/subscriptions/acknowledged",
      params: { notifications: declares ? { taskIds: honoured } : {}, _meta: { [SUBSCRIPTION_ID_KEY]: message.id } },
    });
    if (honoured.length === 0) {
      send(this.endResult(message.id));
      end?.();
      return sub;
    }
    this.subs.add(sub);
    for (const id of honoured) {
      const task = this.runtime.get(id);
      if (task) send(this.notification(sub, task));
    }
    return sub;
  }

  close(sub: Subscription): void {
    this.subs.delete(sub);
  }

  /** stdio: `notifications/cancelled` naming a subscription ends it. */
  cancelById(requestId: unknown): boolean {
    for (const sub of this.subs)
      if (sub.id === requestId) {
        this.subs.delete(sub);
        return true;
      }
    return false;
  }

  /** Ends every subscription gracefully (server shutdown). */
  closeAll(): void {
    for (const sub of [...this.subs]) {
      try {
        sub.send(this.endResult(sub.id));
        sub.end?.();
      } catch {
        /* ignore */
      }
      this.subs.delete(sub);
    }
    this.unsubscribe();
  }

  private publish(task: TaskRecord): void {
    for (const sub of this.subs) {
      if (!sub.taskIds.has(task.taskId)) continue;
      try {
        sub.send(this.notification(sub, task));
      } catch (error) {
        this.log(`notifications/tasks: ${(error as Error).message}`);
      }
    }
  }

  private notification(sub: Subscription, task: TaskRecord): JsonObject {
    return {
      jsonrpc: "2.0",
      method: "notifications/tasks",
      params: { ...this.detailed(task), _meta: { [SUBSCRIPTION_ID_KEY]: sub.id } },
    };
  }

  private endResult(id: Id): JsonObject {
    return {
      jsonrpc: "2.0",
      id,
      result: { resultType: "complete", _meta: { [SUBSCRIPTION_ID_KEY]: id, [SERVER_INFO_KEY]: this.serverInfo } },
    };
  }
}

/** An SSE response that carries one subscription (HTTP). */
export function listenResponse(hub: ListenHub, message: { id: Id; params: JsonObject }, signal: AbortSignal): Response {
  const encoder = new TextEncoder();
  let closed = false;
  let keepAlive: NodeJS.Timeout | undefined;
  let sub: Subscription | undefined;
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      const write = (frame: string) => {
        if (closed) return;
        try {
          controller.enqueue(encoder.encode(frame));
        } catch {
          /* closed */
        }
      };
      const end = () => {
        if (closed) return;
        closed = true;
        if (keepAlive) clearInterval(keepAlive);
        if (sub) hub.close(sub);
        try {
          controller.close();
        } catch {
          /* already closed */
        }
      };
      sub = hub.open(message, (m) => write(`event: message\ndata: ${JSON.stringify(m)}\n\n`), end);
      if (!closed) {
        keepAlive = setInterval(() => write(": keepalive\n\n"), 15_000);
        keepAlive.unref();
        signal.addEventListener("abort", end, { once: true });
      }
    },
    cancel() {
      closed = true;
      if (keepAlive) clearInterval(keepAlive);
      if (sub) hub.close(sub);
    },
  });
  return new Response(stream, {
    status: 200,
    headers: {
      "Content-Type": "text/event-stream",
      "Cache-Control": "no-cache, no-transform",
      Connection: "keep-alive",
    },
  });
}
