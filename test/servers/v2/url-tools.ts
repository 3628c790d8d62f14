// The V2 test server's URL-mode elicitation tools: a task that asks, in its inputRequests, that the person open a
// web page (the address given as `url`), and completes naming the answer's action; and a plain tool whose first
// call with a given `url` is refused with -32042 (URLElicitationRequiredError) listing that page, the next answered.
import { ProtocolError } from "@modelcontextprotocol/server";
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

const refused = new Set<string>();

export const URL_TOOLS: ToolDef[] = [
  {
    name: "needs_page",
    description:
      "Immediate: refused with -32042 listing `url` (and `also`, when given) the first time, then `paid (v2)`.",
    inputSchema: {
      type: "object",
      properties: { url: { type: "string" }, also: { type: "string" } },
      required: ["url"],
    },
    immediate: (args) => {
      const url = strArg(args, "url", "");
      const also = strArg(args, "also", "");
      if (refused.has(url)) return text("paid (v2)");
      refused.add(url);
      const elicitations = [url, ...(also ? [also] : [])].map((page, i) => ({
        mode: "url",
        message: "Pay first (V2)",
        url: page,
        elicitationId: `pay-${refused.size}-${i}`,
      }));
      throw new ProtocolError(-32042, "This request requires more information.", { elicitations });
    },
  },
  {
    name: "task_open_page",
    description: "Task-required: asks a URL-mode elicitation of `url`, then completes with `page: <action>`.",
    inputSchema: { type: "object", properties: { url: { type: "string" } }, required: ["url"] },
    task: { support: "required", data: (args: JsonObject) => ({ url: strArg(args, "url", "") }) },
    program: openPage,
  },
];
