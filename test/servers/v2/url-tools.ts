// The V2 test server's URL-mode elicitation tool: a task that asks, in its inputRequests, that the person open a
// web page (the address given as `url`), and completes naming the answer's action.
import type { JsonObject, TaskProgram } from "../../../demo-server/task.js";
import { answerOf, strArg, textResult as text } from "../../../demo-server/tools/args.js";
import type { ToolDef } from "../../../demo-server/tools/tool.js";

const openPage: TaskProgram = (task, event, ops) => {
  if (event.kind === "start") ops.sleep(300, "ask", "working");
  else if (event.kind === "wake" && task.phase === "ask") {
    const params = { mode: "url", message: "Sign in (V2)", url: task.data.url, elicitationId: `page-${task.taskId}` };
    ops.ask({ page: { method: "elicitation/create", params } }, "answered", "asks to open a page");
  } else if (event.kind === "input") ops.complete(text(`page: ${answerOf(event.responses.page).action}`));
};

export const URL_TOOLS: ToolDef[] = [
  {
    name: "task_open_page",
    description: "Task-required: asks a URL-mode elicitation of `url`, then completes with `page: <action>`.",
    inputSchema: { type: "object", properties: { url: { type: "string" } }, required: ["url"] },
    task: { support: "required", data: (args: JsonObject) => ({ url: strArg(args, "url", "") }) },
    program: openPage,
  },
];
