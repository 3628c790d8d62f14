// The tools of the V2 test server. The machinery (task runtime, V2 wire, tools/call dispatch) is the demo
// server's (demo-server/); the conformance suite's fixtures (greet, slow_compute, failing_job, protocol_error_job,
// confirm_delete, multi_input, test_tool_with_task) are the tests' (../fixtures/conformance.ts). Here: mcp-task's
// own test tools.

import { declaresTasks } from "../../../demo-server/envelope.js";
import {
  CONFIRM_FIELD,
  NAME_FIELD,
  afterDelay,
  conformanceFixtures,
  requestLevelInput,
} from "../fixtures/conformance.js";
import type { JsonObject, TaskProgram } from "../../../demo-server/task.js";
import { answerOf, elicitForm, numArg, strArg, textResult as text } from "../../../demo-server/tools/args.js";
import type { TaskOverrides, ToolDef } from "../../../demo-server/tools/tool.js";
import { resetCounts, snapshotCounts } from "./stats.js";
import { URL_TOOLS } from "./url-tools.js";

const INTERNAL_ERROR = -32603;

const COLOR_FIELD = { color: { type: "string", title: "Colour", enum: ["red", "green", "blue"] } };
const CITY_FIELD = { city: { type: "string", title: "City" } };

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

const intArg = (args: JsonObject, key: string, fallback: number, min: number, max: number): number =>
  Math.round(numArg(args, key, fallback, min, max));

// ---- task programs -----------------------------------------------------------------------------

const taskInputOnce: TaskProgram = (task, event, ops) => {
  const ms = Number(task.data.ms);
  if (event.kind === "start") ops.sleep(ms, "ask", "working");
  else if (event.kind === "wake" && task.phase === "ask")
    ops.ask({ name: elicitForm("What is your name?", NAME_FIELD, ["name"]) }, "answered", "waiting for your name");
  else if (event.kind === "wake" && task.phase === "finish") {
    ops.complete(
      text(
        typeof task.data.name === "string"
          ? `Hello, ${task.data.name}`
          : `No name given (${String(task.data.outcome)})`,
      ),
    );
  } else if (event.kind === "input") {
    const { action, content } = answerOf(event.responses.name);
    if (action === "accept" && (typeof content.name !== "string" || content.name.trim() === "")) {
      // Accepted without a usable name: ask again, under a new key.
      ops.ask(
        { name: elicitForm("A name is required. What is your name?", NAME_FIELD, ["name"]) },
        "answered",
        "waiting for your name",
      );
      return;
    }
    if (action === "accept") task.data.name = String(content.name);
    else task.data.outcome = action;
    ops.sleep(ms, "finish", "greeting");
  }
};

/** Asks for a model's reply (sampling/createMessage) as its one input request, and completes with what it got. */
const taskSampling: TaskProgram = (task, event, ops) => {
  if (event.kind === "start") ops.sleep(Number(task.data.ms), "ask", "working");
  else if (event.kind === "wake" && task.phase === "ask") {
    const params = {
      messages: [{ role: "user", content: { type: "text", text: String(task.data.text ?? "Say hello") } }],
      systemPrompt: "You are a test.",
      maxTokens: 20,
    };
    ops.ask({ reply: { method: "sampling/createMessage", params } }, "answered", "asks for a model's reply");
  } else if (event.kind === "input") ops.complete(text(JSON.stringify(event.responses.reply ?? null)));
};

const taskInputTwice: TaskProgram = (task, event, ops) => {
  const ms = Number(task.data.ms);
  if (event.kind === "start") ops.sleep(ms, "ask-color", "working");
  else if (event.kind === "wake" && task.phase === "ask-color")
    ops.ask({ color: elicitForm("Pick a colour", COLOR_FIELD, ["color"]) }, "got-color", "waiting for a colour");
  else if (event.kind === "input" && task.phase === "got-color") {
    const { action, content } = answerOf(event.responses.color);
    task.data.color = action === "accept" && typeof content.color === "string" ? content.color : `(${action})`;
    ops.sleep(ms, "ask-confirm", `colour is ${String(task.data.color)}`);
  } else if (event.kind === "wake" && task.phase === "ask-confirm")
    ops.ask(
      { confirm: elicitForm(`Use ${String(task.data.color)}?`, CONFIRM_FIELD, ["confirm"]) },
      "got-confirm",
      "waiting for confirmation",
    );
  else if (event.kind === "input" && task.phase === "got-confirm") {
    const { action, content } = answerOf(event.responses.confirm);
    task.data.confirm = action === "accept" && typeof content.confirm === "boolean" ? content.confirm : `(${action})`;
    ops.sleep(ms, "finish", "finishing");
  } else if (event.kind === "wake" && task.phase === "finish")
    ops.complete(text(`task_input_twice: color=${String(task.data.color)}, confirm=${String(task.data.confirm)}`));
};

const taskSlow: TaskProgram = (task, event, ops) => {
  const ms = Number(task.data.ms);
  const elapsed = Date.now() - Date.parse(task.createdAt);
  if (event.kind === "start") ops.sleep(Math.min(1000, ms), "tick", `0/${ms} ms`);
  else if (event.kind === "wake" && task.phase === "tick") {
    if (elapsed >= ms) ops.complete(text(`task_slow: done after ${ms} ms`));
    else ops.sleep(Math.min(1000, ms - elapsed), "tick", `${Math.min(elapsed, ms)}/${ms} ms`);
  }
};

// ---- tool definitions ----------------------------------------------------------------------------

const TASK_OVERRIDES = {
  pollIntervalMs: {
    type: "integer",
    minimum: 1,
    description: "pollIntervalMs for this task (default: the server's --poll-interval)",
  },
  ttlMs: { type: "integer", minimum: 1, description: "ttlMs for this task (default: the server's --ttl)" },
};

const msProp = (def: number) => ({
  type: "integer",
  minimum: 0,
  maximum: 3_600_000,
  default: def,
  description: `working time in ms (default ${def})`,
});

function objectSchema(properties: JsonObject, required: string[] = []): JsonObject {
  return { type: "object", properties, ...(required.length > 0 && { required }) };
}

const msData = (def: number) => (args: JsonObject) => ({ ms: intArg(args, "ms", def, 0, 3_600_000) });

function taskOverrides(args: JsonObject): TaskOverrides {
  return {
    ...(args.ttlMs !== undefined && { ttlMs: intArg(args, "ttlMs", 0, 1, 365 * 24 * 3_600_000) }),
    ...(args.pollIntervalMs !== undefined && { pollIntervalMs: intArg(args, "pollIntervalMs", 0, 1, 3_600_000) }),
  };
}

/** A tool with `ms` (working time) and the per-task ttl / poll interval overrides. */
function msTool(
  name: string,
  description: string,
  def: number,
  support: "required" | "optional",
  program: TaskProgram,
  extra: Partial<ToolDef> = {},
): ToolDef {
  return {
    name,
    description,
    inputSchema: objectSchema({ ms: msProp(def), ...TASK_OVERRIDES }),
    task: { support, data: msData(def), overrides: taskOverrides },
    program,
    ...extra,
  };
}

const OPTIONAL = "Task when the client declares the tasks extension (else synchronous)";

const OWN_TOOLS: ToolDef[] = [
  msTool(
    "task_complete",
    `${OPTIONAL}: working for \`ms\` (default 600), then completes with \`text\`.`,
    600,
    "optional",
    afterDelay("working", (task, ops) =>
      ops.complete(
        text(
          typeof task.data.text === "string" ? task.data.text : `task_complete: done after ${Number(task.data.ms)} ms`,
        ),
      ),
    ),
    {
      inputSchema: objectSchema({ ms: msProp(600), text: { type: "string" }, ...TASK_OVERRIDES }),
      task: {
        support: "optional",
        data: (args) => ({ ...msData(600)(args), ...(args.text !== undefined && { text: strArg(args, "text") }) }),
        overrides: taskOverrides,
      },
    },
  ),
  msTool(
    "task_fail",
    `${OPTIONAL}: after \`ms\` (default 600) ends \`failed\` with a JSON-RPC error {code: -32603, message}.`,
    600,
    "optional",
    afterDelay("working (will fail)", (_task, ops) =>
      ops.fail({ code: INTERNAL_ERROR, message: "task_fail: simulated failure", data: { tool: "task_fail" } }),
    ),
  ),
  msTool(
    "task_tool_error",
    `${OPTIONAL}: after \`ms\` (default 600) completes with result.isError: true.`,
    600,
    "optional",
    afterDelay("working (will report a tool error)", (_task, ops) =>
      ops.complete({ ...text("task_tool_error: the tool reported an error"), isError: true }),
    ),
  ),
  msTool(
    "task_structured",
    `${OPTIONAL}: after \`ms\` (default 600) completes with structuredContent matching the outputSchema.`,
    600,
    "optional",
    afterDelay("working", (_task, ops) => {
      const structuredContent = { value: 42, unit: "widgets", items: ["a", "b"] };
      ops.complete({ content: [{ type: "text", text: JSON.stringify(structuredContent) }], structuredContent });
    }),
    { outputSchema: STRUCTURED_OUTPUT_SCHEMA },
  ),
  msTool(
    "task_structured_bad",
    `${OPTIONAL}: after \`ms\` (default 600) completes with structuredContent that VIOLATES the outputSchema.`,
    600,
    "optional",
    afterDelay("working", (_task, ops) => {
      // Violates the declared outputSchema: wrong type, missing required `unit`, an undeclared property.
      const structuredContent = { value: "forty-two", extra: true };
      ops.complete({ content: [{ type: "text", text: JSON.stringify(structuredContent) }], structuredContent });
    }),
    { outputSchema: STRUCTURED_OUTPUT_SCHEMA },
  ),
  msTool(
    "task_input_once",
    "Task-required: after `ms` (default 600) goes input_required with one elicitation (`name`, required string), then completes with `Hello, <name>`.",
    600,
    "required",
    taskInputOnce,
  ),
  {
    ...msTool(
      "task_sampling",
      "Task-required: after `ms` (default 300) goes input_required with one sampling/createMessage request (the message is `text`), then completes with the reply as JSON text.",
      300,
      "required",
      taskSampling,
    ),
    inputSchema: objectSchema({ ms: msProp(300), text: { type: "string" }, ...TASK_OVERRIDES }),
    task: {
      support: "required",
      data: (args) => ({ ...msData(300)(args), ...(args.text !== undefined && { text: strArg(args, "text") }) }),
      overrides: taskOverrides,
    },
  },
  msTool(
    "task_input_twice",
    "Task-required: asks `color` (red/green/blue), goes back to working, asks `confirm` (boolean) under a new key, then completes naming both.",
    600,
    "required",
    taskInputTwice,
  ),
  {
    name: "request_input",
    description:
      "Request-level input: the first call answers resultType input_required (elicitation `city`) with a requestState; the retry with inputResponses + requestState creates a task (or, without the tasks extension, answers at once) naming the city.",
    inputSchema: objectSchema({ ms: msProp(600), ...TASK_OVERRIDES }),
    program: afterDelay("looking up the weather", (task, ops) =>
      ops.complete(text(`Weather in ${String(task.data.city)}: sunny, 21 °C`)),
    ),
    v2Call: async (args, ctx, env) => {
      const ms = intArg(args, "ms", 600, 0, 3_600_000);
      const overrides = taskOverrides(args);
      return requestLevelInput(ctx, env, {
        tool: "request_input",
        key: "city",
        request: elicitForm("Which city?", CITY_FIELD, ["city"]),
        field: "city",
        onAnswer: (city) =>
          declaresTasks(ctx)
            ? env.taskResult(env.runtime.create("request_input", { ms, city }, overrides))
            : text(`Weather in ${city}: sunny, 21 °C`),
        onRefusal: (action) => text(`No city given (${action})`),
      });
    },
  },
  msTool(
    "task_slow",
    "Task-required: long running (`ms`, default 30000), statusMessage shows progress every second; honours tasks/cancel (ends cancelled).",
    30_000,
    "required",
    taskSlow,
  ),
];

/** Every tool of the test server, in tools/list order. */
export function testTools(): ToolDef[] {
  const fixtures = conformanceFixtures();
  return [
    {
      name: "echo",
      description: "Immediate: returns its text. Never a task.",
      inputSchema: objectSchema({ text: { type: "string" } }),
      immediate: (args) => text(strArg(args, "text", "")),
    },
    ...fixtures.filter((tool) => tool.name === "greet"),
    {
      name: "_stats",
      description:
        "Immediate: JSON text of {method: count} for every request this server received (with `taskId`: only the requests naming that task). `reset: true` clears all counts after reading them.",
      inputSchema: objectSchema({ reset: { type: "boolean" }, taskId: { type: "string" } }),
      immediate: (args) => {
        const snapshot = snapshotCounts(args.taskId === undefined ? undefined : strArg(args, "taskId"));
        if (args.reset === true) resetCounts();
        return text(JSON.stringify(snapshot));
      },
    },
    ...fixtures.filter((tool) => tool.name !== "greet"),
    ...OWN_TOOLS,
    ...URL_TOOLS,
  ];
}
