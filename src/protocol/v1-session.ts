// A V1 wire's session (over HTTP, tasks are bound to it): requests sent in the current one, a new one opened when
// the server no longer knows it (it restarted), and the tasks found again there, whose owners must save the new
// session's token (v1.ts tells its `taskMoved` subscribers).
import { RpcError, SessionLostError, TaskNotFoundError } from "../errors.js";
import { sanitizeLine } from "../sanitize.js";
import type { RawChannel, RawRequestOptions } from "./rpc.js";

const INVALID_PARAMS = -32602;

export class V1Session {
  /** How many times the session was renewed (the server had forgotten it); 0: still the first one. */
  private epoch = 0;
  /** Per task: the epoch in which the server last knew it (it created it, or answered a read of it). */
  private readonly knownIn = new Map<string, number>();
  private renewing?: Promise<void>;

  constructor(
    /** The channel of the current session. */
    private readonly channel: () => RawChannel,
    /**
     * Opens a new session and takes it into use; resolves with how to retire the old one. Undefined where there are
     * no sessions (stdio).
     */
    private readonly replace: (() => Promise<() => Promise<void>>) | undefined,
    /** Told (and awaited) when a task is first found in a session opened since the server last knew it. */
    private readonly moved: (taskId: string) => Promise<void>,
  ) {}

  /**
   * Sends a request in the current session. When the server no longer knows the session, a new one is opened (one
   * renewal shared by every request that hit the lost session) and the request is sent again there, once.
   */
  async request(
    method: string,
    params: Record<string, unknown>,
    options: RawRequestOptions = {},
  ): Promise<Record<string, unknown>> {
    for (let renewed = false; ; renewed = true) {
      const epoch = this.epoch;
      try {
        return await this.channel().request(method, params, options);
      } catch (error) {
        if (!(error instanceof SessionLostError) || !this.replace || renewed) throw error;
        await this.renew(epoch);
      }
    }
  }

  /** Opens a new session after the one of `epoch` was lost (nothing to do when another request renewed it already). */
  private renew(epoch: number): Promise<void> {
    if (this.epoch !== epoch) return Promise.resolve();
    this.renewing ??= (async () => {
      const retire = await this.replace!();
      this.epoch++;
      // Requests still waiting in the lost session are asked again in the new one (see request()).
      await retire();
    })().finally(() => (this.renewing = undefined));
    return this.renewing;
  }

  /** A task the server knows in the current session (it just created it). */
  known(taskId: string): void {
    this.knownIn.set(taskId, this.epoch);
  }

  /** A request about one task: an unknown task is TaskNotFoundError; one found in a new session is told `moved`. */
  async taskRequest(method: string, taskId: string, signal?: AbortSignal): Promise<Record<string, unknown>> {
    let reply: Record<string, unknown>;
    try {
      reply = await this.request(method, { taskId }, { signal });
    } catch (error) {
      if (error instanceof RpcError && error.rpcCode === INVALID_PARAMS) {
        if (this.movedAway(taskId)) {
          // The session the task was reached in is gone, and the new one does not know the task.
          throw new TaskNotFoundError(
            `the server no longer knows this session (it restarted?), and with it task ${taskId}`,
            undefined,
            taskId,
          );
        }
        throw new TaskNotFoundError(
          `the server does not know task ${taskId} (expired, or created on another connection): ${sanitizeLine(error.message)}`,
          undefined,
          taskId,
        );
      }
      throw error;
    }
    if (this.movedAway(taskId)) {
      // The server kept the task across the loss of its session: later processes must come in the new session.
      this.knownIn.set(taskId, this.epoch);
      await this.moved(taskId);
    }
    this.knownIn.set(taskId, this.epoch);
    return reply;
  }

  /** True when the session was renewed since the server last knew this task. */
  private movedAway(taskId: string): boolean {
    return this.epoch > 0 && this.knownIn.get(taskId) !== this.epoch;
  }

  /** Resolves once no new session is being opened (one being opened is closed with the wire too). */
  settled(): Promise<void> {
    return this.renewing?.catch(() => {}) ?? Promise.resolve();
  }
}
