// Progress of the raw channel's requests (rpc.ts): a request asks for it with `_meta.progressToken` (its own id),
// each `notifications/progress` of that token reaches its listener, and restarts the request's timeout within
// MAX_PROGRESS_WAIT_MS of its start. A V1 task's token lasts the task's life: its listener stays after the reply.
import { MAX_PROGRESS_MESSAGE, MAX_PROGRESS_WAIT_MS } from "../limits.js";
import type { Progress } from "./wire.js";

interface Entry {
  listener: (progress: Progress) => void;
  /** Restarts the request's timeout (none once it has its reply). */
  touch: () => void;
}

export class ProgressListeners {
  private readonly byToken = new Map<string, Entry>();

  /** `params` asking for progress under `token`, whose reports go to `listener` (each one calls `touch`). */
  ask(params: Record<string, unknown>, token: string, listener: (p: Progress) => void, touch: () => void) {
    this.byToken.set(token, { listener, touch });
    return { ...params, _meta: { ...((params._meta ?? {}) as Record<string, unknown>), progressToken: token } };
  }

  /** The request ended: its listener goes, unless the token outlives the request (`keep`). */
  ended(token: string, keep: boolean): void {
    const entry = this.byToken.get(token);
    if (!entry) return;
    if (keep) entry.touch = () => {};
    else this.byToken.delete(token);
  }

  /** Hands a `notifications/progress` to its listener (or drops it if nobody listens); false when the SDK may. */
  take(params: unknown): boolean {
    const p = params as { progressToken?: unknown; progress?: unknown; total?: unknown; message?: unknown } | undefined;
    const token = p?.progressToken;
    const entry = typeof token === "string" ? this.byToken.get(token) : undefined;
    // Not ours, and no SDK request's either (the SDK's tokens are its numeric message ids, which it reads with
    // Number()): nobody listens, so it goes here; the SDK would parse it and build an Error to say so, at 10,000 a
    // second from a server that floods.
    if (!entry) return !(typeof token === "number" || (typeof token === "string" && !Number.isNaN(Number(token))));
    const finite = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
    const progress = finite(p!.progress);
    if (progress === undefined) return true; // not a progress report: dropped
    const total = finite(p!.total);
    entry.touch();
    entry.listener({
      progress,
      ...(total !== undefined && total > 0 ? { total } : {}),
      ...(typeof p!.message === "string" ? { message: p!.message.slice(0, MAX_PROGRESS_MESSAGE) } : {}),
    });
    return true;
  }
}

/** A request's timeout (0: none), which progress restarts, within MAX_PROGRESS_WAIT_MS of its start. */
export function requestTimer(timeoutMs: number, expire: () => void): { restart(): void; clear(): void } {
  // Timed on the monotonic clock (a wall clock stepping back would stretch the bound by the step).
  const startedAt = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const restart = () => {
    if (!timeoutMs) return;
    clearTimeout(timer);
    timer = setTimeout(expire, Math.min(timeoutMs, Math.max(0, startedAt + MAX_PROGRESS_WAIT_MS - performance.now())));
  };
  restart();
  return { restart, clear: () => clearTimeout(timer) };
}
