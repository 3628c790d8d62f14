// Extra tools for the official conformance suite's tasks-* server scenarios (V2 only, behind the
// `conformanceFixtures` option): the scenarios call tools by these names and expect these behaviours.

import { ProtocolError } from "@modelcontextprotocol/server";
import type { ServerContext } from "@modelcontextprotocol/server";
import { declaresTasks, missingTasksExtension, requireElicitation } from "./envelope.js";
import type { InputRequest, JsonObject, TaskOps, TaskProgram, TaskRecord } from "./runtime.js";
import { answerOf, badArgs, elicitForm, strArg, textResult, type ToolDef, type V2CallEnv } from "./tools.js";

const INVALID_PARAMS = -32602;
const INTERNAL_ERROR = -32603;

export const NAME_FIELD = { name: { type: "string", title: "Name", description: "Your name" } };
export const CONFIRM_FIELD = { confirm: { type: "boolean", title: "Confirm" } };

/** Sleep `data.ms`, then finish. */
export function afterDelay(message: string, finish: (task: TaskRecord, ops: TaskOps) => void): TaskProgram {
  return (task, event, ops) => {
    if (event.kind === "start") ops.sleep(Number(task.data.ms ?? 0), "finish", message);
    else if (event.kind === "wake" && task.phase === "finish") finish(task, ops);
  };
}

/**
 * SEP-2322 request-level input: round 1 answers `resultType: "input_required"` with an HMAC-protected
 * `requestState`; the client retries the same tools/call with `inputResponses` and the echoed state.
 */
export async function requestLevelInput(
  ctx: ServerContext,
  env: V2CallEnv,
  spec: {
    tool: string;
    key: string;
    request: InputRequest;
    field: string;
    onAnswer: (value: string) => JsonObject;
    /** The answer was declined or cancelled: a result (default: -32602). */
    onRefusal?: (action: string) => JsonObject;
  },
): Promise<JsonObject> {
  requireElicitation(ctx, spec.tool);
  const rawState = ctx.mcpReq.requestState<unknown>();
  const responses = ctx.mcpReq.inputResponses as Record<string, JsonObject> | undefined;
  const ask = async (): Promise<JsonObject> => ({
    resultType: "input_required",
    inputRequests: { [spec.key]: spec.request },
    requestState: await env.mintState({ tool: spec.tool, round: 1 }),
  });
  if (rawState === undefined && responses === undefined) return ask();
  const invalid = () => new ProtocolError(INVALID_PARAMS, "Invalid or expired requestState", { reason: "invalid_request_state" });
  if (typeof rawState !== "string") throw invalid();
  let state: JsonObject;
  try {
    state = await env.verifyState(rawState, ctx);
  } catch {
    throw invalid();
  }
  if (state.tool !== spec.tool) throw invalid();
  const response = responses?.[spec.key];
  if (response === undefined) return ask();
  const { action, content } = answerOf(response);
  if (action !== "accept" && spec.onRefusal) return spec.onRefusal(action);
  if (action !== "accept") throw new ProtocolError(INVALID_PARAMS, `${spec.tool}: the input request was not accepted (${action})`);
  const value = content[spec.field];
  if (typeof value !== "string" || value.trim() === "") return ask();
  return spec.onAnswer(value);
}

export function conformanceFixtures(): ToolDef[] {
  return [
    {
      name: "greet",
      description: "Conformance fixture. Immediate: returns `Hello, {name}!`.",
      inputSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
      immediate: (args) => textResult(`Hello, ${strArg(args, "name", "World")}!`),
    },
    {
      name: "slow_compute",
      description: "Conformance fixture. A task when the client declares the tasks extension (else synchronous): sleeps `seconds`, then returns a text result. Cancellable.",
      inputSchema: { type: "object", properties: { seconds: { type: "number", minimum: 0, maximum: 3600 }, label: { type: "string" } } },
      task: {
        support: "optional",
        data: (args) => {
          const seconds = args.seconds === undefined ? 1 : Number(args.seconds);
          if (!Number.isFinite(seconds) || seconds < 0 || seconds > 3600) badArgs("seconds must be between 0 and 3600");
          return { seconds, ms: Math.round(seconds * 1000), label: strArg(args, "label", "") };
        },
      },
      program: afterDelay("computing", (task, ops) => ops.complete(textResult(`slow_compute finished: ${String(task.data.label ?? "")} after ${Number(task.data.seconds)}s`))),
    },
    {
      name: "failing_job",
      description: "Conformance fixture. Task-required: after ~1 s completes with a tool error (result.isError: true).",
      inputSchema: { type: "object", properties: {} },
      task: { support: "required", data: () => ({ ms: 1000 }) },
      program: afterDelay("running a job that will fail", (_task, ops) => ops.complete({ ...textResult("failing_job: the job failed (simulated tool error)"), isError: true })),
    },
    {
      name: "protocol_error_job",
      description: "Conformance fixture. A task when the client declares the tasks extension (else synchronous): after ~0.5 s ends failed with a JSON-RPC error.",
      inputSchema: { type: "object", properties: {} },
      task: { support: "optional", data: () => ({ ms: 500 }) },
      program: afterDelay("running a job that will crash", (_task, ops) =>
        ops.fail({ code: INTERNAL_ERROR, message: "protocol_error_job: simulated internal failure", data: { tool: "protocol_error_job" } }),
      ),
    },
    {
      name: "confirm_delete",
      description: "Conformance fixture. Task-required: asks one elicitation (`confirm`, boolean), then completes.",
      inputSchema: { type: "object", properties: { filename: { type: "string" } } },
      task: { support: "required", data: (args) => ({ filename: strArg(args, "filename", "file.txt") }) },
      program: (task, event, ops) => {
        if (event.kind === "start") ops.sleep(100, "ask", "preparing");
        else if (event.kind === "wake" && task.phase === "ask")
          ops.ask({ confirm: elicitForm(`Delete ${String(task.data.filename)}?`, CONFIRM_FIELD, ["confirm"]) }, "answered", "waiting for confirmation");
        else if (event.kind === "input") {
          const { action, content } = answerOf(event.responses.confirm);
          const yes = action === "accept" && content.confirm === true;
          ops.complete(textResult(yes ? `Deleted ${String(task.data.filename)}` : `Kept ${String(task.data.filename)} (${action})`));
        }
      },
    },
    {
      name: "multi_input",
      description: "Conformance fixture. Task-required: asks two elicitations at once (`name`, `confirm`), completes when both are answered.",
      inputSchema: { type: "object", properties: {} },
      task: { support: "required", data: () => ({}) },
      program: (task, event, ops) => {
        if (event.kind === "start") ops.sleep(100, "ask", "preparing");
        else if (event.kind === "wake" && task.phase === "ask")
          ops.ask(
            { name: elicitForm("What is your name?", NAME_FIELD, ["name"]), confirm: elicitForm("Shall I go on?", CONFIRM_FIELD, ["confirm"]) },
            "answered",
            "waiting for two answers",
          );
        else if (event.kind === "input") {
          const name = answerOf(event.responses.name);
          const confirm = answerOf(event.responses.confirm);
          ops.complete(textResult(`multi_input: name=${JSON.stringify(name.content.name ?? name.action)}, confirm=${JSON.stringify(confirm.content.confirm ?? confirm.action)}`));
        }
      },
    },
    {
      name: "test_tool_with_task",
      description: "Conformance fixture. Task-required: request-level input first (elicitation `user_name`), then a task whose result greets that name.",
      inputSchema: { type: "object", properties: {} },
      program: afterDelay("greeting", (task, ops) => ops.complete(textResult(`Hello, ${String(task.data.userName)}!`))),
      v2Call: async (_args, ctx, env) => {
        if (!declaresTasks(ctx)) throw missingTasksExtension("test_tool_with_task");
        return requestLevelInput(ctx, env, {
          tool: "test_tool_with_task",
          key: "user_name",
          request: elicitForm("What is your name?", NAME_FIELD, ["name"]),
          field: "name",
          onAnswer: (value) => env.taskResult(env.runtime.create("test_tool_with_task", { ms: 300, userName: value })),
        });
      },
    },
  ];
}
