// A raw JSON-RPC channel beside the SDK client, on the same transport.
//
// Why not `client.request`: the SDK v2 rejects a V2 `resultType: "task"` reply (UNSUPPORTED_RESULT_TYPE) and
// refuses `tasks/*` on a 2026 connection without explicit schemas (see docs/stack.md#mcp-sdk). Task traffic is
// therefore sent here with request ids of our own ("mt-N", a space the SDK never uses) and matched in a
// wrapper around `transport.onmessage`; everything else (handshake, server-to-client requests, notifications)
// still flows through the SDK client.
import type { Transport } from "@modelcontextprotocol/client";
import { parseLog, type LogMessage } from "./logging.js";
import { ProgressListeners, requestTimer } from "./progress.js";
import { TASK_NOTIFICATIONS } from "./push-stream.js";
import type { Progress } from "./wire.js";
import { ProtocolViolation, RpcError, ServerError, SessionLostError, type McpTaskError } from "../errors.js";

interface Pending {
  resolve: (result: Record<string, unknown>) => void;
  reject: (error: Error) => void;
  cleanup: () => void;
}

export interface RawRequestOptions {
  signal?: AbortSignal;
  /** Undefined: the channel's request timeout; 0: none (a request that may rightly block, like V1 tasks/result). */
  timeoutMs?: number;
  /**
   * Asks for progress (`_meta.progressToken`, the request's own id) and hears each `notifications/progress` of it;
   * each one restarts the request's timeout, within MAX_PROGRESS_WAIT_MS in all.
   */
  onProgress?: (progress: Progress) => void;
  /** The token stays valid after the reply (a V1 task's progress token lasts the task's life): until close. */
  keepProgress?: boolean;
  /** Extra HTTP headers for this request (the `Mcp-Param-*` of a tools/call); the transport's own cannot be replaced. */
  headers?: Record<string, string>;
}

import { DEFAULT_REQUEST_TIMEOUT_MS } from "./server.js";
export { DEFAULT_REQUEST_TIMEOUT_MS };

// The largest single message accepted from a server: see src/limits.ts.
import { MAX_MESSAGE_BYTES, READS_AT_ONCE } from "../limits.js";
import { liveServer, stopServer } from "./process.js";
import { authFailure, sessionRefused, toServerError } from "./failures.js";
import { Turns } from "./turns.js";
export { MAX_MESSAGE_BYTES };

export function oversizedMessage(limit = MAX_MESSAGE_BYTES): ProtocolViolation {
  return new ProtocolViolation(
    `the server sent a message larger than ${Math.round(limit / 1024 / 1024)} MiB; mcp-task does not read messages that big`,
  );
}

/**
 * Ends a connection. A stdio server is given its end of input and a moment to exit, then its process group gets
 * SIGTERM and, past a grace, SIGKILL (src/protocol/process.ts): the SDK's own close waits up to 2 s for a server
 * that would exit anyway (server-everything takes ~350 ms, and never exits while a question is pending) and never
 * reaches what the server started, and a command has nothing more to wait for once it has its answer.
 */
export async function closeConnection(
  client: { close(): Promise<void> },
  serverPid: number | undefined,
): Promise<void> {
  const closing = client.close().catch(() => {});
  const child = serverPid === undefined ? undefined : liveServer(serverPid);
  if (!child) return closing;
  await stopServer(child);
}

export class RawChannel {
  private readonly pending = new Map<string, Pending>();
  private next = 0;
  private closedError: McpTaskError | undefined;
  private resolveClosed!: (error: McpTaskError) => void;
  /** Resolves (never rejects) with the reason once the connection has closed. */
  readonly closed = new Promise<McpTaskError>((resolve) => (this.resolveClosed = resolve));
  /**
   * Sees each server-to-client request before the SDK parses it: "held" keeps it from the SDK (the screen replies
   * itself, with `reply`), an error returned is the reply; undefined lets the SDK have it.
   */
  screenRequest?: (
    method: string,
    params: Record<string, unknown>,
    id: unknown,
  ) => { code: number; message: string } | "held" | undefined;

  /** Told of each logging notification (`notifications/message`); without it they are dropped. */
  onLog?: (log: LogMessage) => void;

  /**
   * How many results came without a `resultType`: the 2025-11-25 shape, which a 2026-07-28 server never sends (its
   * results must carry one); read where the generation was taken from a kept verdict (renegotiable.ts).
   */
  untypedResults = 0;

  /**
   * Told of the task notifications (TASK_NOTIFICATIONS) instead of the SDK client: a dashboard following 1,000
   * tasks receives about 1,000 a second, and the SDK's handling of each (schema parses to learn it is a
   * notification, then its handler lookup) cost as much as all of ours.
   */
  onTaskNotification?: (method: string, params: unknown) => void;

  constructor(
    private readonly transport: Transport,
    /** The error of why the connection closed (e.g. with a stdio server's stderr tail). */
    private readonly describeClose: () => ServerError,
    /** The timeout of requests that do not set their own (0: none). */
    readonly requestTimeoutMs = DEFAULT_REQUEST_TIMEOUT_MS,
  ) {
    const onmessage = transport.onmessage;
    transport.onmessage = (message, extra) => {
      const msg = message as { id?: unknown; method?: unknown };
      if (typeof msg.id === "string" && msg.id.startsWith("mt-") && msg.method === undefined) {
        this.settle(msg.id, message as unknown as Record<string, unknown>);
        return;
      }
      if (msg.method === "notifications/progress" && this.progress.take((message as { params?: unknown }).params))
        return;
      if (this.onTaskNotification && msg.id === undefined && TASK_NOTIFICATIONS.has(msg.method as string)) {
        this.onTaskNotification(msg.method as string, (message as { params?: unknown }).params);
        return;
      }
      if (msg.method === "notifications/message" && msg.id === undefined) {
        const log = parseLog((message as { params?: unknown }).params);
        if (log) this.onLog?.(log);
        return;
      }
      const refusal =
        typeof msg.method === "string" && msg.id !== undefined
          ? this.screenRequest?.(msg.method, (message as { params?: Record<string, unknown> }).params ?? {}, msg.id)
          : undefined;
      if (refusal === "held") return;
      if (refusal) return void transport.send({ jsonrpc: "2.0", id: msg.id, error: refusal } as never).catch(() => {});
      onmessage?.call(transport, message, extra);
    };
    const onclose = transport.onclose;
    transport.onclose = () => {
      const error = this.describeClose();
      this.failAll(error);
      this.resolveClosed(this.closedError ?? error);
      onclose?.call(transport);
    };
  }

  /** Replies to a server-to-client request held by the screen. */
  reply(id: unknown, answer: { result: unknown } | { error: { code: number; message: string } }): void {
    void this.transport.send({ jsonrpc: "2.0", id, ...answer } as never).catch(() => {});
  }

  /** Why the connection ended, once it has (a size or stream limit, a refused redirect or authorization, a close). */
  get failure(): McpTaskError | undefined {
    return this.closedError;
  }

  /** The tasks/get requests waiting for one of the READS_AT_ONCE places (see request). */
  private readonly reads = new Turns(READS_AT_ONCE);

  /**
   * Sends a request and settles with its reply. A tasks/get (a read the server answers at once, in both generations)
   * is one of at most READS_AT_ONCE in flight on this connection; the rest wait their turn, unsent. A dashboard's
   * 1,000 tasks read together went out as 1,000 requests at once: over HTTP, 1,000 connections, whose parsers and
   * buffers the process kept (about 75 MiB of resident memory, never given back).
   */
  request(
    method: string,
    params: Record<string, unknown>,
    options: RawRequestOptions = {},
  ): Promise<Record<string, unknown>> {
    if (method !== "tasks/get" || this.closedError) return this.send(method, params, options);
    return this.reads.run(
      () => this.send(method, params, options),
      options.signal,
      () => abortError(options.signal, method),
    );
  }

  private send(
    method: string,
    params: Record<string, unknown>,
    options: RawRequestOptions,
  ): Promise<Record<string, unknown>> {
    if (this.closedError) return Promise.reject(this.closedError);
    const id = `mt-${++this.next}`;
    const timeoutMs = options.timeoutMs ?? this.requestTimeoutMs;
    return new Promise((resolve, reject) => {
      const abortController = new AbortController();
      const stop = (error: Error, reason?: string) => {
        this.pending.delete(id);
        cleanup();
        abortController.abort();
        const cancelled = { requestId: id, ...(reason ? { reason } : {}) };
        void this.transport
          .send({ jsonrpc: "2.0", method: "notifications/cancelled", params: cancelled })
          .catch(() => {});
        reject(error);
      };
      const onAbort = () => stop(abortError(options.signal, method));
      const timer = requestTimer(timeoutMs, () => {
        const error = new ServerError(
          `the server did not answer ${method} within ${formatSeconds(timeoutMs)} (MCP_TASK_REQUEST_TIMEOUT)`,
        );
        error.transient = true;
        stop(error, "timeout");
      });
      const cleanup = () => {
        timer.clear();
        options.signal?.removeEventListener("abort", onAbort);
        this.progress.ended(id, options.keepProgress === true);
      };
      if (options.signal?.aborted) return onAbort();
      options.signal?.addEventListener("abort", onAbort, { once: true });
      if (options.onProgress) params = this.progress.ask(params, id, options.onProgress, timer.restart);
      this.pending.set(id, { resolve, reject, cleanup });
      // Over HTTP, a response stream that ends without the response (the server restarted) must not leave the
      // request waiting forever: it fails as a transient error, and the caller may ask again.
      const onRequestStreamEnd = () => {
        const waiter = this.pending.get(id);
        if (!waiter) return;
        this.pending.delete(id);
        cleanup();
        const error = new ServerError(`the server ended the response stream of ${method} without answering`);
        error.transient = true;
        reject(error);
      };
      // The session the request goes out in (V1 over HTTP), to tell "the server forgot it" from other refusals.
      const sessionId = (this.transport as { sessionId?: string }).sessionId;
      this.transport
        .send(
          { jsonrpc: "2.0", id, method, params } as never,
          { requestSignal: abortController.signal, onRequestStreamEnd, headers: options.headers } as never,
        )
        .catch((error: unknown) => {
          if (!this.pending.delete(id)) return;
          cleanup();
          reject(
            authFailure(error) ??
              (sessionId !== undefined && sessionRefused(error)
                ? new SessionLostError(`the server no longer knows this session (it restarted?); ${method} was refused`)
                : toServerError(error, method)),
          );
        });
    });
  }

  /** The progress listeners of this channel's requests (./progress.ts). */
  private readonly progress = new ProgressListeners();

  private settle(id: string, message: Record<string, unknown>): void {
    const waiter = this.pending.get(id);
    if (!waiter) return;
    this.pending.delete(id);
    waiter.cleanup();
    const error = message.error as { code?: unknown; message?: unknown; data?: unknown } | undefined;
    if (error && typeof error === "object") {
      const code = typeof error.code === "number" ? error.code : -32603;
      waiter.reject(
        new RpcError(typeof error.message === "string" ? error.message : "error without a message", code, error.data),
      );
      return;
    }
    const result = message.result;
    if (result === null || typeof result !== "object" || Array.isArray(result)) {
      waiter.reject(new ServerError("the server's reply has no result object"));
      return;
    }
    if ((result as { resultType?: unknown }).resultType === undefined) this.untypedResults++;
    waiter.resolve(result as Record<string, unknown>);
  }

  failAll(error: McpTaskError): void {
    this.closedError ??= error;
    for (const [id, waiter] of this.pending) {
      this.pending.delete(id);
      waiter.cleanup();
      waiter.reject(error);
    }
  }
}

const formatSeconds = (ms: number) => (ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`);

/** The error of a request given up by its caller: the signal's reason where it is an error. */
function abortError(signal: AbortSignal | undefined, method: string): Error {
  return signal?.reason instanceof Error ? signal.reason : new ServerError(`${method} aborted`);
}
