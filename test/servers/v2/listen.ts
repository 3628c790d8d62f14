// `subscriptions/listen` with `notifications.taskIds`, and the `notifications/tasks` push.
//
// The SDK 2.4 serves subscriptions/listen itself but only knows the four core filter bits
// (toolsListChanged, promptsListChanged, resourcesListChanged, resourceSubscriptions); it would
// strip `taskIds` and acknowledge an empty filter. So a listen request that asks for task ids is
// served here, in front of the SDK, on both transports; everything else goes to the SDK.
//
// Wire (both transports):
//   -> {method:"subscriptions/listen", params:{notifications:{taskIds:[...]}, _meta:{...envelope}}}
//   <- notifications/subscriptions/acknowledged {notifications:{taskIds:[honoured ids]}, _meta:{subscriptionId}}
//   <- notifications/tasks {<DetailedTask, as tasks/get shows it, without resultType>, _meta:{subscriptionId}}
//      once per honoured task right after the ack (a snapshot), then on every change.
// HTTP: the listen POST answers with an SSE stream that stays open until the client closes it; on
// server shutdown it ends with the listen result {resultType:"complete", _meta:{subscriptionId}}.
// stdio: the notifications go out on stdout; `notifications/cancelled {requestId}` ends it.

import type { JsonObject, TaskRecord, TaskRuntime } from "./runtime.js";
import { TASKS_EXTENSION } from "./tools.js";
import { log } from "./stats.js";

const MODERN = "2026-07-28";
const PROTOCOL_VERSION_KEY = "io.modelcontextprotocol/protocolVersion";
const CLIENT_CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities";
const SUBSCRIPTION_ID_KEY = "io.modelcontextprotocol/subscriptionId";
const SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo";

type Id = string | number;

interface Subscription {
  id: Id;
  taskIds: Set<string>;
  send: (message: JsonObject) => void;
  end?: (graceful: boolean) => void;
}

const isObject = (v: unknown): v is JsonObject => v !== null && typeof v === "object" && !Array.isArray(v);

export class ListenHub {
  private readonly subs = new Set<Subscription>();

  constructor(
    private readonly runtime: TaskRuntime,
    private readonly serverInfo: JsonObject,
  ) {
    runtime.onChange((task) => this.publish(task));
  }

  /**
   * Whether this message is a valid 2026-07-28 subscriptions/listen that asks for task ids (then we
   * serve it). Anything malformed is left to the SDK, which answers it with the proper error.
   */
  wants(message: unknown): message is { id: Id; params: JsonObject } {
    if (!isObject(message) || message.method !== "subscriptions/listen") return false;
    if (typeof message.id !== "string" && typeof message.id !== "number") return false;
    const params = message.params;
    if (!isObject(params) || !isObject(params.notifications) || !isObject(params._meta)) return false;
    if (params._meta[PROTOCOL_VERSION_KEY] !== MODERN || !isObject(params._meta[CLIENT_CAPABILITIES_KEY])) return false;
    const taskIds = params.notifications.taskIds;
    return Array.isArray(taskIds) && taskIds.every((t) => typeof t === "string");
  }

  /** Opens a subscription; returns its teardown. Sends the ack and one snapshot per honoured task. */
  open(message: { id: Id; params: JsonObject }, send: (m: JsonObject) => void, end?: (graceful: boolean) => void): Subscription {
    const params = message.params;
    const caps = (params._meta as JsonObject)[CLIENT_CAPABILITIES_KEY] as JsonObject;
    const declares = isObject(caps.extensions) && isObject((caps.extensions as JsonObject)[TASKS_EXTENSION]);
    const requested = ((params.notifications as JsonObject).taskIds as string[]) ?? [];
    // Only known, live tasks are honoured, and only for a client that declared the extension.
    const honoured = declares ? [...new Set(requested)].filter((id) => this.runtime.get(id) !== undefined) : [];
    const sub: Subscription = { id: message.id, taskIds: new Set(honoured), send, end };
    send({
      jsonrpc: "2.0",
      method: "notifications/subscriptions/acknowledged",
      params: { notifications: declares ? { taskIds: honoured } : {}, _meta: { [SUBSCRIPTION_ID_KEY]: message.id } },
    });
    log(`subscriptions/listen ${String(message.id)}: ${honoured.length}/${requested.length} task id(s) honoured`);
    if (honoured.length === 0) {
      // Nothing to deliver: end the subscription gracefully, as the SDK does for an empty filter.
      send(this.endResult(message.id));
      end?.(true);
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

  /** Ends every subscription gracefully (server shutdown). */
  closeAll(): void {
    for (const sub of [...this.subs]) {
      try {
        sub.send(this.endResult(sub.id));
        sub.end?.(true);
      } catch {
        /* ignore */
      }
      this.subs.delete(sub);
    }
  }

  /** stdio: `notifications/cancelled` for a subscription id ends it. */
  cancelById(requestId: unknown): boolean {
    for (const sub of this.subs)
      if (sub.id === requestId) {
        this.subs.delete(sub);
        return true;
      }
    return false;
  }

  private publish(task: TaskRecord): void {
    for (const sub of this.subs) {
      if (!sub.taskIds.has(task.taskId)) continue;
      try {
        sub.send(this.notification(sub, task));
      } catch (error) {
        log(`notifications/tasks send failed: ${(error as Error).message}`);
      }
    }
  }

  private notification(sub: Subscription, task: TaskRecord): JsonObject {
    return {
      jsonrpc: "2.0",
      method: "notifications/tasks",
      params: { ...this.runtime.detailed(task), _meta: { [SUBSCRIPTION_ID_KEY]: sub.id } },
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
