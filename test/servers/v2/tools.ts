// The tools of the V2 test server: their definitions (tools/list), their task programs, and the
// tools/call dispatcher that decides per call whether to answer at once, ask for request-level input,
// or create a task.

import { MissingRequiredClientCapabilityError, ProtocolError, createRequestStateCodec } from "@modelcontextprotocol/server";
import type { RequestStateCodec, ServerContext } from "@modelcontextprotocol/server";
import { randomBytes } from "node:crypto";
import type { InputRequest, JsonObject, RpcError, TaskOps, TaskProgram, TaskRecord, TaskRuntime } from "./runtime.js";
import { resetCounts, snapshotCounts } from "./stats.js";

export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";
const CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
const INVALID_PARAMS = -32602;
const INTERNAL_ERROR = -32603;

// ---- helpers -----------------------------------------------------------------------------------

const text = (t: string): JsonObject => ({ content: [{ type: "text", text: t }] });

function elicit(message: string, properties: JsonObject, required: string[]): InputRequest {
  return {
    method: "elicitation/create",
    params: { mode: "form", message, requestedSchema: { type: "object", properties, required } },
  };
}

function badArgs(message: string): never {
  throw new ProtocolError(INVALID_PARAMS, `Invalid arguments: ${message}`);
}

function intArg(args: JsonObject, key: string, fallback: number, min: number, max: number): number {
  const v = args[key];
  if (v === undefined || v === null) return fallback;
  if (typeof v !== "number" || !Number.isFinite(v)) badArgs(`${key} must be a number`);
  if (v < min || v > max) badArgs(`${key} must be between ${min} and ${max}`);
  return Math.round(v);
}

function strArg(args: JsonObject, key: string, fallback?: string): string {
  const v = args[key];
  if (v === undefined || v === null) {
    if (fallback === undefined) badArgs(`${key} is required`);
    return fallback;
  }
  if (typeof v !== "string") badArgs(`${key} must be a string`);
  return v;
}

/** The client capabilities the request declared in its `_meta` envelope. */
export function clientCapabilities(ctx: ServerContext): JsonObject {
  const caps = (ctx.mcpReq.envelope as JsonObject | undefined)?.[CLIENT_CAPABILITIES];
  return caps !== null && typeof caps === "object" && !Array.isArray(caps) ? (caps as JsonObject) : {};
}

export function declaresTasks(ctx: ServerContext): boolean {
  const ext = clientCapabilities(ctx).extensions;
  if (ext === null || typeof ext !== "object" || Array.isArray(ext)) return false;
  const entry = (ext as JsonObject)[TASKS_EXTENSION];
  return entry !== null && typeof entry === "object" && !Array.isArray(entry);
}

export function missingTasksExtension(what: string): MissingRequiredClientCapabilityError {
  return new MissingRequiredClientCapabilityError(
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
    `${what} requires the ${TASKS_EXTENSION} extension: declare it in _meta["${CLIENT_CAPABILITIES}"].extensions`,
  );
}

function requireElicitation(ctx: ServerContext, tool: string): void {
  if (clientCapabilities(ctx).elicitation === undefined)
    throw new MissingRequiredClientCapabilityError(
      { requiredCapabilities: { elicitation: {} } },
      `${tool} asks for input by elicitation: declare the elicitation client capability`,
    );
}

/** The accepted form content of an elicitation answer, or the action when it was not accepted. */
function answerOf(response: JsonObject | undefined): { action: string; content: JsonObject } {
  const action = typeof response?.action === "string" ? response.action : "cancel";
  const content =
    response?.content !== null && typeof response?.content === "object" && !Array.isArray(response?.content)
      ? (response.content as JsonObject)
      : {};
  return { action, content };
}

// ---- task programs -----------------------------------------------------------------------------

/** Sleep `data.ms` in one phase, then finish. */
function afterDelay(message: string, finish: (task: TaskRecord, ops: TaskOps) => void): TaskProgram {
  return (task, event, ops) => {
    if (event.kind === "start") ops.sleep(Number(task.data.ms ?? 0), "finish", message);
    else if (event.kind === "wake" && task.phase === "finish") finish(task, ops);
  };
}

const STRUCTURED_OUTPUT_SCHEMA = {
  type: "object",
  properties: {
    value: { type: "integer" },
    unit: { type: "string" },
    items: { type: "array", items: { type: "string" } },
  },
  required: ["value", "unit"],
  additionalProperties: false,
};

const NAME_FIELD = { name: { type: "string", title: "Name", description: "Your name" } };
const CONFIRM_FIELD = { confirm: { type: "boolean", title: "Confirm" } };
const COLOR_FIELD = { color: { type: "string", title: "Colour", enum: ["red", "green", "blue"] } };
const CITY_FIELD = { city: { type: "string", title: "City" } };

const programs: Record<string, TaskProgram> = {
  // -- fixtures of the conformance suite's tasks-* scenarios --
  slow_compute: afterDelay("computing", (task, ops) => {
    const seconds = Number(task.data.seconds);
    ops.complete(text(`slow_compute finished: ${String(task.data.label ?? "")} after ${seconds}s`));
  }),
  failing_job: afterDelay("running a job that will fail", (_task, ops) =>
    ops.complete({ ...text("failing_job: the job failed (simulated tool error)"), isError: true }),
  ),
  protocol_error_job: afterDelay("running a job that will crash", (_task, ops) =>
    ops.fail({ code: INTERNAL_ERROR, message: "protocol_error_job: simulated internal failure", data: { tool: "protocol_error_job" } }),
  ),
  confirm_delete: (task, event, ops) => {
    if (event.kind === "start") ops.sleep(100, "ask", "preparing");
    else if (event.kind === "wake" && task.phase === "ask")
      ops.ask({ confirm: elicit(`Delete ${String(task.data.filename)}?`, CONFIRM_FIELD, ["confirm"]) }, "answered", "waiting for confirmation");
    else if (event.kind === "input") {
      const { action, content } = answerOf(event.responses.confirm);
      const yes = action === "accept" && content.confirm === true;
      ops.complete(text(yes ? `Deleted ${String(task.data.filename)}` : `Kept ${String(task.data.filename)} (${action})`));
    }
  },
  multi_input: (task, event, ops) => {
    if (event.kind === "start") ops.sleep(100, "ask", "preparing");
    else if (event.kind === "wake" && task.phase === "ask")
      ops.ask(
        {
          name: elicit("What is your name?", NAME_FIELD, ["name"]),
          confirm: elicit("Shall I go on?", CONFIRM_FIELD, ["confirm"]),
        },
        "answered",
        "waiting for two answers",
      );
    else if (event.kind === "input") {
      const name = answerOf(event.responses.name);
      const confirm = answerOf(event.responses.confirm);
      ops.complete(
        text(`multi_input: name=${JSON.stringify(name.content.name ?? name.action)}, confirm=${JSON.stringify(confirm.content.confirm ?? confirm.action)}`),
      );
    }
  },
  test_tool_with_task: afterDelay("greeting", (task, ops) => ops.complete(text(`Hello, ${String(task.data.userName)}!`))),

  // -- mcp-task's own fixtures --
  task_complete: afterDelay("working", (task, ops) =>
    ops.complete(text(typeof task.data.text === "string" ? task.data.text : `task_complete: done after ${Number(task.data.ms)} ms`)),
  ),
  task_fail: afterDelay("working (will fail)", (_task, ops) =>
    ops.fail({ code: INTERNAL_ERROR, message: "task_fail: simulated failure", data: { tool: "task_fail" } }),
  ),
  task_tool_error: afterDelay("working (will report a tool error)", (_task, ops) =>
    ops.complete({ ...text("task_tool_error: the tool reported an error"), isError: true }),
  ),
  task_structured: afterDelay("working", (_task, ops) => {
    const structuredContent = { value: 42, unit: "widgets", items: ["a", "b"] };
    ops.complete({ content: [{ type: "text", text: JSON.stringify(structuredContent) }], structuredContent });
  }),
  task_structured_bad: afterDelay("working", (_task, ops) => {
    // Violates the declared outputSchema: wrong type, missing required `unit`, an undeclared property.
    const structuredContent = { value: "forty-two", extra: true };
    ops.complete({ content: [{ type: "text", text: JSON.stringify(structuredContent) }], structuredContent });
  }),
  task_input_once: (task, event, ops) => {
    const ms = Number(task.data.ms);
    if (event.kind === "start") ops.sleep(ms, "ask", "working");
    else if (event.kind === "wake" && task.phase === "ask")
      ops.ask({ name: elicit("What is your name?", NAME_FIELD, ["name"]) }, "answered", "waiting for your name");
    else if (event.kind === "wake" && task.phase === "finish") {
      ops.complete(text(typeof task.data.name === "string" ? `Hello, ${task.data.name}` : `No name given (${String(task.data.outcome)})`));
    } else if (event.kind === "input") {
      const { action, content } = answerOf(event.responses.name);
      if (action === "accept" && (typeof content.name !== "string" || content.name.trim() === "")) {
        // Accepted without a usable name: ask again, under a new key.
        ops.ask({ name: elicit("A name is required. What is your name?", NAME_FIELD, ["name"]) }, "answered", "waiting for your name");
        return;
      }
      if (action === "accept") task.data.name = String(content.name);
      else task.data.outcome = action;
      ops.sleep(ms, "finish", "greeting");
    }
  },
  task_input_twice: (task, event, ops) => {
    const ms = Number(task.data.ms);
    if (event.kind === "start") ops.sleep(ms, "ask-color", "working");
    else if (event.kind === "wake" && task.phase === "ask-color")
      ops.ask({ color: elicit("Pick a colour", COLOR_FIELD, ["color"]) }, "got-color", "waiting for a colour");
    else if (event.kind === "input" && task.phase === "got-color") {
      const { action, content } = answerOf(event.responses.color);
      task.data.color = action === "accept" && typeof content.color === "string" ? content.color : `(${action})`;
      ops.sleep(ms, "ask-confirm", `colour is ${String(task.data.color)}`);
    } else if (event.kind === "wake" && task.phase === "ask-confirm")
      ops.ask({ confirm: elicit(`Use ${String(task.data.color)}?`, CONFIRM_FIELD, ["confirm"]) }, "got-confirm", "waiting for confirmation");
    else if (event.kind === "input" && task.phase === "got-confirm") {
      const { action, content } = answerOf(event.responses.confirm);
      task.data.confirm = action === "accept" && typeof content.confirm === "boolean" ? content.confirm : `(${action})`;
      ops.sleep(ms, "finish", "finishing");
    } else if (event.kind === "wake" && task.phase === "finish")
      ops.complete(text(`task_input_twice: color=${String(task.data.color)}, confirm=${String(task.data.confirm)}`));
  },
  request_input: afterDelay("looking up the weather", (task, ops) =>
    ops.complete(text(`Weather in ${String(task.data.city)}: sunny, 21 °C`)),
  ),
  task_slow: (task, event, ops) => {
    const ms = Number(task.data.ms);
    const elapsed = Date.now() - Date.parse(task.createdAt);
    if (event.kind === "start") ops.sleep(Math.min(1000, ms), "tick", `0/${ms} ms`);
    else if (event.kind === "wake" && task.phase === "tick") {
      if (elapsed >= ms) ops.complete(text(`task_slow: done after ${ms} ms`));
      else ops.sleep(Math.min(1000, ms - elapsed), "tick", `${Math.min(elapsed, ms)}/${ms} ms`);
    }
  },
};

export function taskPrograms(): Record<string, TaskProgram> {
  return programs;
}

// ---- tool definitions ----------------------------------------------------------------------------

interface ToolDef {
  name: string;
  title?: string;
  description: string;
  inputSchema: JsonObject;
  outputSchema?: JsonObject;
  /** Immediate tools: answered at once, never a task. */
  now?: (args: JsonObject, ctx: ServerContext) => JsonObject | Promise<JsonObject>;
  /** Task-backed tools: the program data for a call (validates arguments). */
  task?: { required: boolean; data: (args: JsonObject) => JsonObject };
  /** Tools with their own flow (request-level input first). */
  custom?: (args: JsonObject, ctx: ServerContext, env: CallEnv) => Promise<JsonObject>;
}

interface CallEnv {
  runtime: TaskRuntime;
  stateCodec: RequestStateCodec<JsonObject>;
}

const TASK_OVERRIDES = {
  pollIntervalMs: { type: "integer", minimum: 1, description: "pollIntervalMs for this task (default: the server's --poll-interval)" },
  ttlMs: { type: "integer", minimum: 1, description: "ttlMs for this task (default: the server's --ttl)" },
};

const msProp = (def: number) => ({ type: "integer", minimum: 0, maximum: 3_600_000, default: def, description: `working time in ms (default ${def})` });

function objectSchema(properties: JsonObject, required: string[] = []): JsonObject {
  return { type: "object", properties, ...(required.length > 0 && { required }) };
}

const msData = (def: number) => (args: JsonObject) => ({ ms: intArg(args, "ms", def, 0, 3_600_000) });

const TOOLS: ToolDef[] = [
  {
    name: "echo",
    description: "Immediate: returns its text. Never a task.",
    inputSchema: objectSchema({ text: { type: "string" } }),
    now: (args) => text(strArg(args, "text", "")),
  },
  {
    name: "greet",
    description: "Immediate: returns `Hello, {name}!`. Never a task (conformance fixture).",
    inputSchema: objectSchema({ name: { type: "string" } }, ["name"]),
    now: (args) => text(`Hello, ${strArg(args, "name", "World")}!`),
  },
  {
    name: "_stats",
    description:
      "Immediate: JSON text of {method: count} for every request this server received (with `taskId`: only the requests naming that task). `reset: true` clears all counts after reading them.",
    inputSchema: objectSchema({ reset: { type: "boolean" }, taskId: { type: "string" } }),
    now: (args) => {
      const snapshot = snapshotCounts(args.taskId === undefined ? undefined : strArg(args, "taskId"));
      if (args.reset === true) resetCounts();
      return text(JSON.stringify(snapshot));
    },
  },
  {
    name: "slow_compute",
    description: "Task when the client declares the tasks extension (else synchronous): sleeps `seconds`, then returns a text result. Cancellable (conformance fixture).",
    inputSchema: objectSchema({ seconds: { type: "number", minimum: 0, maximum: 3600 }, label: { type: "string" } }),
    task: {
      required: false,
      data: (args) => {
        const seconds = args.seconds === undefined ? 1 : Number(args.seconds);
        if (!Number.isFinite(seconds) || seconds < 0 || seconds > 3600) badArgs("seconds must be between 0 and 3600");
        return { seconds, ms: Math.round(seconds * 1000), label: strArg(args, "label", "") };
      },
    },
  },
  {
    name: "failing_job",
    description: "Task-required: after ~1 s completes with a tool error (result.isError: true). Without the tasks extension: -32021 (conformance fixture).",
    inputSchema: objectSchema({}),
    task: { required: true, data: () => ({ ms: 1000 }) },
  },
  {
    name: "protocol_error_job",
    description: "Task when the client declares the tasks extension (else synchronous): after ~0.5 s ends `failed` with a JSON-RPC error (conformance fixture).",
    inputSchema: objectSchema({}),
    task: { required: false, data: () => ({ ms: 500 }) },
  },
  {
    name: "confirm_delete",
    description: "Task-required: asks one elicitation (`confirm`, boolean), then completes (conformance fixture).",
    inputSchema: objectSchema({ filename: { type: "string" } }),
    task: { required: true, data: (args) => ({ filename: strArg(args, "filename", "file.txt") }) },
  },
  {
    name: "multi_input",
    description: "Task-required: asks two elicitations at once (`name`, `confirm`), completes when both are answered (conformance fixture).",
    inputSchema: objectSchema({}),
    task: { required: true, data: () => ({}) },
  },
  {
    name: "test_tool_with_task",
    description: "Task-required: request-level input first (elicitation `user_name`), then a task whose result greets that name (conformance fixture).",
    inputSchema: objectSchema({}),
    custom: async (_args, ctx, env) => {
      if (!declaresTasks(ctx)) throw missingTasksExtension("test_tool_with_task");
      return requestLevelInput(ctx, env, {
        tool: "test_tool_with_task",
        key: "user_name",
        request: elicit("What is your name?", NAME_FIELD, ["name"]),
        field: "name",
        onAnswer: (value) => env.runtime.create("test_tool_with_task", { ms: 300, userName: value }),
      });
    },
  },
  {
    name: "task_complete",
    description: "Task when the client declares the tasks extension (else synchronous): working for `ms` (default 600), then completes with `text`.",
    inputSchema: objectSchema({ ms: msProp(600), text: { type: "string" }, ...TASK_OVERRIDES }),
    task: { required: false, data: (args) => ({ ...msData(600)(args), ...(args.text !== undefined && { text: strArg(args, "text") }) }) },
  },
  {
    name: "task_fail",
    description: "Task when the client declares the tasks extension (else synchronous): after `ms` (default 600) ends `failed` with a JSON-RPC error {code: -32603, message}.",
    inputSchema: objectSchema({ ms: msProp(600), ...TASK_OVERRIDES }),
    task: { required: false, data: msData(600) },
  },
  {
    name: "task_tool_error",
    description: "Task when the client declares the tasks extension (else synchronous): after `ms` (default 600) completes with result.isError: true.",
    inputSchema: objectSchema({ ms: msProp(600), ...TASK_OVERRIDES }),
    task: { required: false, data: msData(600) },
  },
  {
    name: "task_structured",
    description: "Task when the client declares the tasks extension (else synchronous): after `ms` (default 600) completes with structuredContent matching the outputSchema.",
    inputSchema: objectSchema({ ms: msProp(600), ...TASK_OVERRIDES }),
    outputSchema: STRUCTURED_OUTPUT_SCHEMA,
    task: { required: false, data: msData(600) },
  },
  {
    name: "task_structured_bad",
    description: "Task when the client declares the tasks extension (else synchronous): after `ms` (default 600) completes with structuredContent that VIOLATES the outputSchema.",
    inputSchema: objectSchema({ ms: msProp(600), ...TASK_OVERRIDES }),
    outputSchema: STRUCTURED_OUTPUT_SCHEMA,
    task: { required: false, data: msData(600) },
  },
  {
    name: "task_input_once",
    description: "Task-required: after `ms` (default 600) goes input_required with one elicitation (`name`, required string), then completes with `Hello, <name>`.",
    inputSchema: objectSchema({ ms: msProp(600), ...TASK_OVERRIDES }),
    task: { required: true, data: msData(600) },
  },
  {
    name: "task_input_twice",
    description: "Task-required: asks `color` (red/green/blue), goes back to working, asks `confirm` (boolean) under a new key, then completes naming both.",
    inputSchema: objectSchema({ ms: msProp(600), ...TASK_OVERRIDES }),
    task: { required: true, data: msData(600) },
  },
  {
    name: "request_input",
    description: "Request-level input: the first call answers resultType input_required (elicitation `city`) with a requestState; the retry with inputResponses + requestState creates a task (or, without the tasks extension, answers at once) naming the city.",
    inputSchema: objectSchema({ ms: msProp(600), ...TASK_OVERRIDES }),
    custom: async (args, ctx, env) => {
      const ms = intArg(args, "ms", 600, 0, 3_600_000);
      const overrides = taskOverrides(args);
      return requestLevelInput(ctx, env, {
        tool: "request_input",
        key: "city",
        request: elicit("Which city?", CITY_FIELD, ["city"]),
        field: "city",
        onAnswer: (city) =>
          declaresTasks(ctx) ? env.runtime.create("request_input", { ms, city }, overrides) : text(`Weather in ${city}: sunny, 21 °C`),
        onRefusal: (action) => text(`No city given (${action})`),
      });
    },
  },
  {
    name: "task_slow",
    description: "Task-required: long running (`ms`, default 30000), statusMessage shows progress every second; honours tasks/cancel (ends cancelled).",
    inputSchema: objectSchema({ ms: msProp(30_000), ...TASK_OVERRIDES }),
    task: { required: true, data: msData(30_000) },
  },
];

const BY_NAME = new Map(TOOLS.map((t) => [t.name, t]));

export function listTools(): JsonObject[] {
  return TOOLS.map((t) => ({
    name: t.name,
    ...(t.title !== undefined && { title: t.title }),
    description: t.description,
    inputSchema: t.inputSchema,
    ...(t.outputSchema !== undefined && { outputSchema: t.outputSchema }),
  }));
}

function taskOverrides(args: JsonObject): { ttlMs?: number; pollIntervalMs?: number } {
  return {
    ...(args.ttlMs !== undefined && { ttlMs: intArg(args, "ttlMs", 0, 1, 365 * 24 * 3_600_000) }),
    ...(args.pollIntervalMs !== undefined && { pollIntervalMs: intArg(args, "pollIntervalMs", 0, 1, 3_600_000) }),
  };
}

/** CreateTaskResult: flat `resultType: "task"` + the Task fields, nothing else. */
export function createTaskResult(runtime: TaskRuntime, task: TaskRecord): JsonObject {
  return { resultType: "task", ...runtime.base(task) };
}

interface RequestLevelSpec {
  tool: string;
  key: string;
  request: InputRequest;
  field: string;
  /** The answer arrived: a task record (turned into a CreateTaskResult) or a complete result. */
  onAnswer: (value: string) => TaskRecord | JsonObject;
  onRefusal?: (action: string) => JsonObject;
}

/**
 * SEP-2322 request-level input ("multi round-trip"): round 1 answers `resultType: "input_required"`
 * with `inputRequests` and an HMAC-protected `requestState`; the client retries the same tools/call
 * with `inputResponses` and the echoed `requestState`.
 */
async function requestLevelInput(ctx: ServerContext, env: CallEnv, spec: RequestLevelSpec): Promise<JsonObject> {
  requireElicitation(ctx, spec.tool);
  const rawState = ctx.mcpReq.requestState<unknown>();
  const responses = ctx.mcpReq.inputResponses as Record<string, JsonObject> | undefined;
  const ask = async (): Promise<JsonObject> => ({
    resultType: "input_required",
    inputRequests: { [spec.key]: spec.request },
    requestState: await env.stateCodec.mint({ tool: spec.tool, round: 1 }),
  });
  if (rawState === undefined && responses === undefined) return ask();
  if (typeof rawState !== "string") throw new ProtocolError(INVALID_PARAMS, "Invalid or expired requestState", { reason: "invalid_request_state" });
  let state: JsonObject;
  try {
    state = await env.stateCodec.verify(rawState, ctx);
  } catch {
    throw new ProtocolError(INVALID_PARAMS, "Invalid or expired requestState", { reason: "invalid_request_state" });
  }
  if (state.tool !== spec.tool) throw new ProtocolError(INVALID_PARAMS, "Invalid or expired requestState", { reason: "invalid_request_state" });
  const response = responses?.[spec.key];
  if (response === undefined) return ask(); // the answer is missing: ask again
  const { action, content } = answerOf(response);
  if (action !== "accept") {
    if (spec.onRefusal) return spec.onRefusal(action);
    throw new ProtocolError(INVALID_PARAMS, `${spec.tool}: the input request was not accepted (${action})`);
  }
  const value = content[spec.field];
  if (typeof value !== "string" || value.trim() === "") return ask();
  const outcome = spec.onAnswer(value);
  return isTaskRecord(outcome) ? createTaskResult(env.runtime, outcome) : outcome;
}

function isTaskRecord(v: TaskRecord | JsonObject): v is TaskRecord {
  return typeof (v as TaskRecord).taskId === "string" && typeof (v as TaskRecord).phase === "string";
}

/** Runs a task program in-process, for a client that did not declare the tasks extension. */
function runInline(tool: string, data: JsonObject, signal: AbortSignal): Promise<JsonObject> {
  const program = programs[tool];
  return new Promise<JsonObject>((resolve, reject) => {
    const now = new Date().toISOString();
    const task: TaskRecord = {
      taskId: "inline",
      tool,
      status: "working",
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: 0,
      pollIntervalMs: 0,
      phase: "start",
      data,
      keySeq: 0,
      pending: {},
      keyPurpose: {},
      collected: {},
    };
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
      ask: () => settle(() => reject(missingTasksExtension(tool))),
      note: () => {},
      complete: (result) => settle(() => resolve(result)),
      fail: (error: RpcError) => settle(() => reject(new ProtocolError(error.code, error.message, error.data))),
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

/** tools/call: answers at once, asks for request-level input, or creates a task. */
export async function callTool(params: JsonObject, ctx: ServerContext, env: CallEnv): Promise<JsonObject> {
  const name = params.name;
  if (typeof name !== "string") throw new ProtocolError(INVALID_PARAMS, "Invalid params: name is required");
  const def = BY_NAME.get(name);
  if (!def) throw new ProtocolError(INVALID_PARAMS, `Unknown tool: ${name}`);
  const rawArgs = params.arguments ?? {};
  if (rawArgs === null || typeof rawArgs !== "object" || Array.isArray(rawArgs)) badArgs("arguments must be an object");
  const args = rawArgs as JsonObject;
  // A legacy `task: {ttl, pollInterval}` hint (2025-11-25) is tolerated and ignored: the server decides.
  if (def.now) return def.now(args, ctx);
  if (def.custom) return def.custom(args, ctx, env);
  const spec = def.task!;
  const data = spec.data(args);
  if (declaresTasks(ctx)) return createTaskResult(env.runtime, env.runtime.create(name, data, taskOverrides(args)));
  if (spec.required) throw missingTasksExtension(`${name} (a task-required tool)`);
  return runInline(name, data, ctx.mcpReq.signal);
}

export function makeStateCodec(secret?: string): RequestStateCodec<JsonObject> {
  return createRequestStateCodec<JsonObject>({ key: secret ?? randomBytes(32).toString("hex"), ttlSeconds: 3600 });
}
