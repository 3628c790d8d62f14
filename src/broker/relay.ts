// The broker's wire, relayed to the commands that trace (`--trace`, MCP_TASK_TRACE): each such command gets the
// messages its own requests caused (a request, its reply, the HTTP exchange that carried it) and the notifications
// and requests of the server about its tasks, as `trace` notifications on its socket (its own Trace writes them,
// marked "via":"broker"). Nothing is relayed to a command that did not ask, and nothing is recorded while no
// attached command traces.
//
// Which command a message is for: a request to the server is sent in the async context of the command's request to
// the broker (requests.ts runs each handler in `requestScope`); its reply, and the progress of its token, are
// matched to it by id. The broker's own work (following a task, tasks.ts) runs outside any command's scope. A
// command that starts to trace is first given the connection's opening (initialize and its reply: what the broker
// declared), which happened before any command could attach.
import { AsyncLocalStorage } from "node:async_hooks";
import type { Trace, TraceEvent } from "../protocol/trace.js";
import { send } from "./protocol.js";
import type { Client } from "./attached.js";

/** The command on whose behalf the broker is working (undefined: its own work). */
export const requestScope = new AsyncLocalStorage<Client>();

/** Ids awaiting their reply are forgotten past this many (a server that never answers cannot grow the map). */
const MAX_AWAITED = 10_000;
/** The connection's opening kept for the commands that trace (initialize, its reply, initialized...). */
const MAX_OPENING = 16;
const RELATED_TASK = "io.modelcontextprotocol/related-task";

type Rpc = { id?: string | number; method?: string; params?: Record<string, unknown> };

function remember<K, V>(map: Map<K, V>, key: K, value: V): void {
  if (map.size >= MAX_AWAITED) map.delete(map.keys().next().value as K);
  map.set(key, value);
}

/** The task a server's notification or request is about, if it says. */
function taskOf(params: Record<string, unknown> | undefined): string | undefined {
  if (!params) return undefined;
  const meta = params._meta as Record<string, { taskId?: unknown } | undefined> | undefined;
  const task = params.task as { taskId?: unknown } | undefined;
  for (const id of [params.taskId, task?.taskId, meta?.[RELATED_TASK]?.taskId]) if (typeof id === "string") return id;
  return undefined;
}

export class TraceRelay implements Trace {
  /** Our requests awaiting their reply, and the server's awaiting ours, by JSON-RPC id: who sees the reply. */
  private readonly ours = new Map<string | number, Client>();
  private readonly theirs = new Map<string | number, Client[]>();
  private readonly tokens = new Map<string | number, Client>();
  /** How the connection was opened (before any command could attach): given to each command that traces. */
  private readonly start: TraceEvent[] = [];
  private opening = true;

  constructor(
    private readonly clients: ReadonlySet<Client>,
    /** The command that owns a task (made its call, or answers its questions). */
    private readonly ownerOf: (taskId: string) => Client | undefined,
  ) {}

  /** The connection is open: what was traced until now is its opening. */
  opened(): void {
    this.opening = false;
  }

  /** The opening of the connection, for a command that starts to trace. */
  get openingEvents(): readonly TraceEvent[] {
    return this.start;
  }

  write(event: TraceEvent): void {
    if (this.opening && this.start.length < MAX_OPENING) this.start.push(event);
    let traced = false;
    for (const client of this.clients) traced ||= client.traced === true;
    if (!traced) return;
    for (const client of new Set(this.targets(event)))
      if (client.traced && this.clients.has(client)) send(client.socket, { method: "trace", params: { event } });
  }

  private targets(event: TraceEvent): Client[] {
    const current = requestScope.getStore();
    if (event.dir === "http") return current ? [current] : [];
    const message = (event.message ?? {}) as Rpc;
    const { id, method, params } = message;
    if (event.dir === "out") {
      if (method !== undefined && id !== undefined) {
        // Our request: its reply goes to the same command, and so does the progress of its token.
        if (current?.traced) {
          remember(this.ours, id, current);
          const token = (params?._meta as { progressToken?: unknown } | undefined)?.progressToken;
          if (typeof token === "string" || typeof token === "number") remember(this.tokens, token, current);
        }
        return current ? [current] : [];
      }
      if (method === undefined && id !== undefined) {
        // Our reply to a server's request: to whoever saw the request.
        const seen = this.theirs.get(id) ?? [];
        this.theirs.delete(id);
        return current ? [...seen, current] : seen;
      }
      return current ? [current] : [];
    }
    if (method === undefined && id !== undefined) {
      const client = this.ours.get(id);
      this.ours.delete(id);
      return client ? [client] : [];
    }
    const token = (params as { progressToken?: unknown } | undefined)?.progressToken;
    const byToken = typeof token === "string" || typeof token === "number" ? this.tokens.get(token) : undefined;
    const about = this.about(taskOf(params));
    const targets = byToken ? [byToken, ...about] : about;
    if (id !== undefined) remember(this.theirs, id, targets);
    return targets;
  }

  /** The commands a task's messages go to: those watching it, and its owner. */
  private about(taskId: string | undefined): Client[] {
    if (taskId === undefined) return [];
    const out = [...this.clients].filter((client) => client.watching.has(taskId));
    const owner = this.ownerOf(taskId);
    return owner ? [...out, owner] : out;
  }
}
