// A wire's optional facets: what only `mcp-task check` asks of it (probes), and what only a wire behind a broker
// offers (the broker's trace, its schema checks).
import type { TraceEvent } from "./trace.js";

/** How a server answered a probe: refused (with which JSON-RPC error, and whether it is the one the spec names). */
export interface ProbeAnswer {
  refused: boolean;
  code?: number;
  expected?: boolean;
  /** Server text: not display-safe. */
  message?: string;
}

/** `mcp-task check`'s facet: requests a client must not send, to see how the server answers them (probes.ts). */
export interface WireProbes {
  /** V2: a tasks/get of `taskId` without the tasks extension declared: -32021 expected. */
  undeclared?: (taskId: string, signal?: AbortSignal) => Promise<ProbeAnswer>;
  /** V2 over HTTP: a tasks/get of `taskId` whose Mcp-Name header names another task: -32020 expected. */
  misrouted?: (taskId: string, signal?: AbortSignal) => Promise<ProbeAnswer>;
  /**
   * V1: opens `tasks/result` on a task that has not ended, as mcp-task does to take a task's questions (the questions
   * that come on it are left unanswered), to see whether the server waits for the end.
   */
  openResult?: (taskId: string) => void;
  /** V1: what the server answered to a `tasks/result` for a task that had not ended, once seen; undefined till then. */
  resultAnsweredEarly?: () => string | undefined;
}

/** The facet of a wire whose connection is another process's (a broker's), for the commands behind it. */
export interface BrokerFacet {
  /** That connection's trace from now on, to `listener`. */
  watchWire(listener: (event: TraceEvent) => void): Promise<void>;
  /**
   * What is wrong with `value` against `schema` (undefined: it fits), checked where the connection is kept: the
   * broker has its checker loaded and its schemas compiled, which a command would load anew for one call.
   */
  schemaProblem(schema: Record<string, unknown>, value: unknown, what: string): Promise<string | undefined>;
}
