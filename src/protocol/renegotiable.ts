// A connection made on a kept 2026-07-28 verdict without asking the server (its discover result still within its
// ttlMs): should the server have changed at that address since (a 2025-11-25 server there now, or one that speaks
// both but no longer the same way), its first answers say so. The first request that fails in such a way has the
// generation negotiated again, once: where the server now speaks another generation, the connection is replaced by
// a new one (its verdict kept) and the request made again there; where it does not, the error stands.
//
// What says the server changed, read from structure (never text): a refusal, a JSON-RPC -32601 (a method this
// generation has is unknown there) or an HTTP 400, 404 or 405 (a server that wants a session, "Mcp-Session-Id header
// is required"), after which the request, not carried out, is made again; or a result without a `resultType`, the
// 2025-11-25 shape (a 2026-07-28 server must send one: a 2025-11-25 server over stdio answers tools/list without
// initialize), after which a read is made again, and anything else stands as answered.
import { RpcError } from "../errors.js";
import type { Unsubscribe, Wire } from "./wire.js";

const METHOD_NOT_FOUND = -32601;
const REFUSED_STATUSES = new Set([400, 404, 405]);

/** The wire's requests a server that changed refuses first (the ones a command starts with); the reads among them. */
const GUARDED = new Set<PropertyKey>(["listTools", "callTool", "getTask", "cancelTask", "listTasks"]);
const READS = new Set<PropertyKey>(["listTools", "getTask", "listTasks"]);

/** Whether an error (or one of its causes, five deep) is a refusal that says the server may have changed. */
export function saysServerChanged(error: unknown): boolean {
  for (let e = error as { cause?: unknown } | undefined, depth = 0; e && depth < 6; e = e.cause as typeof e, depth++) {
    if (e instanceof RpcError && e.rpcCode === METHOD_NOT_FOUND) return true;
    const { status, code } = e as { status?: unknown; code?: unknown };
    if (typeof status === "number" && REFUSED_STATUSES.has(status)) return true;
    if (code === METHOD_NOT_FOUND) return true;
  }
  return false;
}

/**
 * `first`, as a wire whose first request failing as `saysServerChanged`, or first answer without a `resultType`
 * (`untyped`), has `again` connect afresh (negotiating the generation): if that finds another generation, the new
 * wire takes over (its owner's subscriptions and what it set on the old one move to it, and the old one is closed)
 * and the request is made on it (an answered one only if it is a read); otherwise the new one is closed and the
 * error or answer stands.
 */
export function renegotiable(first: Wire, again: () => Promise<Wire>, untyped: () => boolean): Wire {
  let current = first;
  let tried = false;
  /** What the wire's owner set on it: set on a wire that takes over too. */
  const assigned = new Map<PropertyKey, unknown>();
  /** The owner's subscriptions (events, the input handler): made again on a wire that takes over. */
  const subscriptions = new Set<{ to: (wire: Wire) => Unsubscribe; off: Unsubscribe }>();
  const subscribe = (to: (wire: Wire) => Unsubscribe): Unsubscribe => {
    const subscription = { to, off: to(current) };
    subscriptions.add(subscription);
    return () => (subscriptions.delete(subscription), subscription.off());
  };
  let ended!: (error: Error) => void;
  const closed = new Promise<Error>((resolve) => (ended = resolve));
  const follow = (wire: Wire) => void wire.closed.then((error) => wire === current && ended(error));
  follow(first);

  const takeOver = async (): Promise<boolean> => {
    if (tried) return false;
    tried = true;
    const next = await again().catch(() => undefined);
    if (!next) return false;
    if (next.capabilities.generation === current.capabilities.generation) {
      await next.close().catch(() => {});
      return false;
    }
    for (const [key, value] of assigned) Reflect.set(next, key, value);
    for (const subscription of subscriptions) {
      subscription.off();
      subscription.off = subscription.to(next);
    }
    const old = current;
    current = next;
    follow(next);
    await old.close().catch(() => {});
    return true;
  };
  const guarded = new Map<PropertyKey, (...args: never[]) => unknown>([
    ["on", ((event, fn) => subscribe((wire) => wire.on(event, fn))) satisfies Wire["on"]],
    ["handleInput", ((handler) => subscribe((wire) => wire.handleInput(handler))) satisfies Wire["handleInput"]],
  ]);
  for (const name of GUARDED)
    guarded.set(name, async (...args: unknown[]) => {
      const call = () => (Reflect.get(current, name) as (...a: unknown[]) => Promise<unknown>).apply(current, args);
      let answer: unknown;
      try {
        answer = await call();
      } catch (error) {
        if (!saysServerChanged(error) || !(await takeOver())) throw error;
        return call();
      }
      if (current === first && untyped() && (await takeOver()) && READS.has(name)) return call();
      return answer;
    });

  return new Proxy(first, {
    get(_target, key) {
      if (key === "closed") return closed;
      const own = guarded.get(key);
      if (own) return own;
      const value = Reflect.get(current, key, current);
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(current) : value;
    },
    set(_target, key, value) {
      assigned.set(key, value);
      return Reflect.set(current, key, value, current);
    },
    has: (_target, key) => Reflect.has(current, key),
  });
}
