// What a demo tool is (ToolDef: described once, for both generations: v1.ts adds `execution.taskSupport` from
// `task.support`, v2.ts lets the server decide per call), the catalogue the fronts serve, and the running of a task
// program inline for a V2 client without the tasks extension. The tools themselves: index.ts.

import { ProtocolError } from "@modelcontextprotocol/server";
import type { ServerContext } from "@modelcontextprotocol/server";
import type { TaskRuntime } from "../runtime.js";
import { newTaskRecord, type JsonObject, type TaskOps, type TaskProgram, type TaskRecord } from "../task.js";

const INTERNAL_ERROR = -32603;

/** What a V2-only tool with its own flow gets (request-level input before a task, as the tests' conformance fixtures do). */
export interface V2CallEnv {
  runtime: TaskRuntime;
  mintState(state: JsonObject): Promise<string>;
  verifyState(state: string, ctx: ServerContext): Promise<JsonObject>;
  /** The CreateTaskResult that hands a new task to the client. */
  taskResult(task: TaskRecord): JsonObject;
}

/** Per-call task settings a V2 tool may take from its arguments (the defaults are the server's). */
export interface TaskOverrides {
  ttlMs?: number;
  pollIntervalMs?: number;
}

export interface ToolDef {
  name: string;
  title?: string;
  description: string;
  inputSchema: JsonObject;
  outputSchema?: JsonObject;
  /** Answered at once; never a task (V1 `taskSupport: forbidden`). */
  immediate?: (args: JsonObject) => JsonObject;
  /**
   * A task tool. `required`: only as a task (V1 `taskSupport: required`; V2 refuses a client without the tasks
   * extension). `optional`: V1 `taskSupport: optional`; V2 runs it inline for a client without the extension.
   * `data` validates the arguments and returns the program's initial data; `overrides` (V2 only, optional) the
   * task's own ttl and poll interval.
   */
  task?: {
    support: "required" | "optional";
    data: (args: JsonObject) => JsonObject;
    overrides?: (args: JsonObject) => TaskOverrides;
  };
  program?: TaskProgram;
  /** V2 only: the tool's own flow (request-level input first). */
  v2Call?: (args: JsonObject, ctx: ServerContext, env: V2CallEnv) => Promise<JsonObject>;
}

export interface Catalogue {
  tools: ToolDef[];
  programs: Record<string, TaskProgram>;
}

export function catalogue(tools: ToolDef[]): Catalogue {
  const programs: Record<string, TaskProgram> = {};
  for (const tool of tools) if (tool.program) programs[tool.name] = tool.program;
  return { tools, programs };
}

/** Runs a task program to its end in-process, for a V2 client that did not declare the tasks extension. */
export function runInline(
  program: TaskProgram,
  tool: string,
  data: JsonObject,
  signal: AbortSignal,
  onAsk: () => Error,
): Promise<JsonObject> {
  return new Promise<JsonObject>((resolve, reject) => {
    const task = newTaskRecord("inline", tool, data, { ttlMs: 0, pollIntervalMs: 0 });
    let timer: NodeJS.Timeout | undefined;
    let done = false;
    const settle = (fn: () => void) => {
      if (done) return;
      done = true;
      if (timer) clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      fn();
    };
    const onAbort = () => settle(() => reject(new ProtocolError(INTERNAL_ERROR, "request cancelled")));
    signal.addEventListener("abort", onAbort, { once: true });
    const ops: TaskOps = {
      sleep: (ms, phase) => {
        task.phase = phase;
        timer = setTimeout(() => step({ kind: "wake" }), ms);
      },
      ask: () => settle(() => reject(onAsk())),
      note: () => {},
      complete: (result) => settle(() => resolve(result)),
      fail: (error) => settle(() => reject(new ProtocolError(error.code, error.message, error.data))),
    };
    const step = (event: Parameters<TaskProgram>[1]) => {
      try {
        program(task, event, ops);
      } catch (error) {
        settle(() => reject(error));
      }
    };
    step({ kind: "start" });
  });
}
