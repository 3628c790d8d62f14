// The 2026-07-28 tasks extension ("V2") wire adapter (its push updates are v2-push.ts).
//
// Traps handled here (docs/protocol.md#v2-traps): every request carries the `_meta` envelope, with the tasks extension
// declared on `tools/call` and `tasks/*`; the server alone decides whether a call becomes a task; request-level
// input (`resultType: "input_required"`) is answered by retrying the call with `inputResponses` and the echoed
// `requestState`; task input keys are answered exactly once through `tasks/update`; `tasks/update` and
// `tasks/cancel` only acknowledge.
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  type Client,
} from "@modelcontextprotocol/client";
import { ProtocolViolation, RpcError, ServerError, TaskNotFoundError, UsageError } from "../errors.js";
import { sanitizeLine } from "../sanitize.js";
import { completedOrThrow, sameTaskOrThrow } from "./checks.js";
import { inputRequestsFromV2, snapshotFromV2, toolResultOrThrow } from "./parse.js";
import { excludedTool, paramHeaders, scanHeaderDeclarations, type HeaderScan } from "./param-headers.js";
import { listToolPages, toolFromV2 } from "./tools.js";
import { V2Push } from "./v2-push.js";
import { setOwn } from "../data.js";
import { answerOpen, handlerOf, wireResponse } from "./v2-questions.js";
import { closeConnection, type RawChannel, type RawRequestOptions } from "./rpc.js";
import { EXTENSION_REQUIRED, v2Probes } from "./probes.js";
import type {
  CallOptions,
  CallOutcome,
  ResumeToken,
  ServiceInputOptions,
  Snapshot,
  TaskPage,
  ToolInfo,
  Wire,
  WireCapabilities,
  WireProbes,
} from "./wire.js";
import { revisionOf } from "./revisions.js";
import { Subscribable } from "./wire-events.js";

export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";
const INVALID_PARAMS = -32602;
import { MAX_INPUT_ROUNDS } from "../limits.js";

export class V2Wire extends Subscribable implements Wire {
  readonly capabilities: WireCapabilities;
  serverPid?: number;
  private readonly push: V2Push;
  /** Over HTTP, per tool listed: its `x-mcp-header` declarations, or why it is left out (param-headers.ts). */
  private readonly headerScans = new Map<string, HeaderScan>();

  /** True when sampling requests can be answered here (connect.ts): only then is `sampling` declared. */
  sampling = false;
  /** A tasks/get without the extension declared, and over HTTP one routed to another task (probes.ts). */
  get probes(): WireProbes {
    return v2Probes(
      (params, options) => this.rpc.request("tasks/get", params, options),
      (t) => this.meta(t),
      this.mirrorHeaders,
    );
  }

  pushConfirmed(taskId: string): boolean {
    return this.push.confirmed(taskId);
  }

  constructor(
    private readonly client: Client,
    private readonly rpc: RawChannel,
    private readonly protocolVersion: string,
    private readonly serverName: string,
    /** Streamable HTTP: `x-mcp-header` declarations are checked and mirrored (SEP-2243); stdio has no headers. */
    private readonly mirrorHeaders = false,
  ) {
    super();
    this.capabilities = {
      generation: "v2",
      revision: revisionOf("v2"),
      protocolVersion,
      serverName,
      canListTasks: false,
      handsQuestionsOnce: false,
      keepsAbandonedCalls: false,
      hearsElicitationComplete: false,
    };
    this.push = new V2Push(rpc, (taskIds, signal) =>
      this.request("subscriptions/listen", { notifications: { taskIds } }, { signal, timeoutMs: 0 }),
    );
  }

  get closed(): Promise<Error> {
    return this.rpc.closed;
  }

  resumeToken(): ResumeToken {
    return {
      generation: "v2",
      protocolVersion: this.protocolVersion,
      serverName: this.serverName,
      discover: this.client.getDiscoverResult(),
    };
  }

  /** The per-request `_meta` envelope; `tasks` declares the extension. */
  private meta(tasks: boolean): Record<string, unknown> {
    const elicitation = { form: {}, url: {} };
    const capabilities: Record<string, unknown> = { elicitation, ...(this.sampling && { sampling: {} }) };
    if (tasks) capabilities.extensions = { [TASKS_EXTENSION]: {} };
    return {
      [PROTOCOL_VERSION_META_KEY]: this.protocolVersion,
      [CLIENT_CAPABILITIES_META_KEY]: capabilities,
      [CLIENT_INFO_META_KEY]: { name: "mcp-task", version: "0.1.0" },
    };
  }

  private request(
    method: string,
    params: Record<string, unknown>,
    options: RawRequestOptions & { tasks?: boolean } = {},
  ) {
    const { tasks, ...raw } = options;
    return this.rpc.request(method, { ...params, _meta: this.meta(tasks ?? true) }, raw);
  }

  async listTools(): Promise<ToolInfo[]> {
    // Raw, as V1 does (tools.ts): the SDK's own parse of tools/list walks every schema recursively (one 20,000
    // levels deep overflowed the stack: "tools/list failed: Maximum call stack size exceeded").
    // Over HTTP, a tool whose x-mcp-header declarations break SEP-2243's rules is left out (the spec's MUST).
    this.headerScans.clear();
    return listToolPages(
      (params) => this.request("tools/list", params, { tasks: false }),
      (raw) => {
        const tool = toolFromV2(raw);
        if (!this.mirrorHeaders) return tool;
        const scan = scanHeaderDeclarations(tool.inputSchema);
        this.headerScans.set(tool.name, scan);
        return scan.valid ? tool : undefined;
      },
    );
  }

  toolExclusion(name: string): string | undefined {
    const scan = this.headerScans.get(name);
    return scan && !scan.valid ? scan.reason : undefined;
  }

  async callTool(name: string, args: Record<string, unknown>, options: CallOptions): Promise<CallOutcome> {
    const excluded = this.toolExclusion(name);
    if (excluded) throw excludedTool(name, excluded);
    // Each declared argument mirrored as its Mcp-Param-* header; a tool not listed yet is called without them
    // (as the SDK does: the server says so if it needs them).
    const scan = this.headerScans.get(name);
    const headers = scan?.valid ? paramHeaders(scan.declarations, args) : undefined;
    const params: Record<string, unknown> = { name, arguments: args };
    for (let round = 0; round <= MAX_INPUT_ROUNDS; round++) {
      let reply: Record<string, unknown>;
      try {
        reply = await this.request("tools/call", params, {
          signal: options.signal,
          tasks: options.task === "auto",
          ...(options.onProgress && { onProgress: options.onProgress, keepProgress: true }),
          headers,
        });
      } catch (error) {
        if (error instanceof RpcError && EXTENSION_REQUIRED.includes(error.rpcCode) && options.task === "never") {
          throw new UsageError(
            `${sanitizeLine(name)} can only run as a task: ${sanitizeLine(error.message)}`,
            "call it without --no-task",
          );
        }
        throw error;
      }
      const resultType = reply.resultType ?? "complete";
      if (resultType === "task") {
        if (options.task === "never")
          throw new ProtocolViolation(
            "the server answered with a task although mcp-task did not declare the tasks extension",
          );
        return { kind: "task", snapshot: snapshotFromV2(reply, "task creation reply") };
      }
      if (resultType === "complete") return { kind: "result", result: toolResultOrThrow(reply, "tools/call result") };
      if (resultType !== "input_required")
        throw new ProtocolViolation(`the server sent an unknown resultType "${sanitizeLine(String(resultType))}"`);
      // Request-level input: answer every request, then retry the same call with the echoed requestState.
      const requests = inputRequestsFromV2(reply.inputRequests ?? {}, "inputRequests");
      const inputResponses: Record<string, unknown> = {};
      for (const request of requests)
        setOwn(inputResponses, request.key, wireResponse(request, await handlerOf(this.hub)(request, null), null));
      params.inputResponses = inputResponses;
      if (typeof reply.requestState === "string") params.requestState = reply.requestState;
      else delete params.requestState;
    }
    throw new ProtocolViolation(
      `the server asked for input more than ${MAX_INPUT_ROUNDS} times before answering the call`,
    );
  }

  async getTask(taskId: string, signal?: AbortSignal): Promise<Snapshot> {
    const reply = await this.taskRequest("tasks/get", { taskId }, signal);
    // The result (or error) comes inlined in tasks/get: a completed read without its result is the server's fault.
    return completedOrThrow(sameTaskOrThrow(snapshotFromV2(reply, "tasks/get result"), taskId, "tasks/get"));
  }

  async serviceInput(snapshot: Snapshot, options: ServiceInputOptions): Promise<string[]> {
    const answered = await answerOpen(this.hub, snapshot, options);
    if (!answered) return [];
    const { inputResponses, answers } = answered;
    try {
      await this.taskRequest("tasks/update", { taskId: snapshot.taskId, inputResponses }, options.signal);
    } catch (error) {
      // No reply (the connection dropped, the stream ended, a timeout): the server may or may not have applied the
      // answers. Whoever listens settles it with the next tasks/get (keys still listed were not taken).
      if (
        error instanceof ServerError &&
        error.transient &&
        !options.signal?.aborted &&
        this.hub.has("uncertainDelivery")
      ) {
        this.hub.emit("uncertainDelivery", { taskId: snapshot.taskId, answers, stableKeys: true, error });
        return [];
      }
      throw error;
    }
    return answers.map(({ request }) => request.key);
  }

  async cancelTask(taskId: string): Promise<Snapshot | undefined> {
    await this.taskRequest("tasks/cancel", { taskId });
    return undefined; // Only an acknowledgement: the effect shows in later reads.
  }

  async listTasks(): Promise<TaskPage> {
    throw new UsageError(
      `${sanitizeLine(this.serverName)} speaks the 2026-07-28 tasks extension, which has no tasks/list`,
      "list saved handles without --remote",
    );
  }

  async watchNotifications(taskIds: string[], listener: (snapshot: Snapshot) => void): Promise<() => void> {
    return this.push.watch(taskIds, listener);
  }

  private async taskRequest(
    method: string,
    params: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<Record<string, unknown>> {
    try {
      return await this.request(method, params, { signal });
    } catch (error) {
      if (error instanceof RpcError && error.rpcCode === INVALID_PARAMS) {
        const taskId = String(params.taskId);
        throw new TaskNotFoundError(
          `the server does not know task ${taskId} (expired or unknown): ${sanitizeLine(error.message)}`,
          undefined,
          taskId,
        );
      }
      throw error;
    }
  }

  async close(): Promise<void> {
    this.push.close();
    await closeConnection(this.client, this.serverPid);
  }
}
