// A 2025-11-25 ("V1") tasks server over stdio, raw JSON-RPC, whose tasks/result does not wait for the task's end (as
// mcp-framework's does not): for a task still working it answers at once, one way per `--early`:
//   error   the JSON-RPC error -32603 "not ready yet"
//   empty   an empty tool result ({"content": []})
//   task    the task itself, still working (a Task where a CallToolResult belongs)
// Once the task has ended, tasks/result answers its result. One tool, `work {ms}` (task-required): completes after ms
// (default 800) with `done after <ms> ms`. Also tasks/get, tasks/list and tasks/cancel; anything else is -32601.
//
//   node early-result-server.js --early error|empty|task
import { createInterface } from "node:readline";

const argv = process.argv.slice(2);
const EARLY = argv[argv.indexOf("--early") + 1] ?? "error";

interface Task {
  taskId: string;
  status: "working" | "completed" | "cancelled";
  createdAt: string;
  lastUpdatedAt: string;
  ttl: number;
  pollInterval: number;
  result?: Record<string, unknown>;
}
const tasks = new Map<string, Task>();
let next = 0;

const send = (message: Record<string, unknown>) =>
  process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...message }) + "\n");
const view = ({ result: _result, ...task }: Task) => task;

function answer(method: string, params: Record<string, unknown>): { result?: unknown; error?: unknown } {
  const task = tasks.get(String(params.taskId));
  switch (method) {
    case "initialize":
      return {
        result: {
          protocolVersion: "2025-11-25",
          capabilities: { tools: {}, tasks: { requests: { tools: { call: {} } }, list: {}, cancel: {} } },
          serverInfo: { name: "early-result-server", version: "1.0.0" },
        },
      };
    case "ping":
      return { result: {} };
    case "tools/list":
      return {
        result: {
          tools: [
            {
              name: "work",
              description: "completes after ms",
              inputSchema: { type: "object", properties: { ms: { type: "integer", minimum: 0 } } },
              execution: { taskSupport: "required" },
            },
          ],
        },
      };
    case "tools/call": {
      const ms = Number((params.arguments as { ms?: unknown } | undefined)?.ms ?? 800);
      const now = new Date().toISOString();
      const created: Task = {
        taskId: `early-${++next}`,
        status: "working",
        createdAt: now,
        lastUpdatedAt: now,
        ttl: 300_000,
        pollInterval: 200,
      };
      tasks.set(created.taskId, created);
      setTimeout(() => {
        if (created.status !== "working") return;
        created.status = "completed";
        created.lastUpdatedAt = new Date().toISOString();
        created.result = { content: [{ type: "text", text: `done after ${ms} ms` }] };
      }, ms);
      return { result: { task: view(created) } };
    }
    case "tasks/get":
      return task ? { result: view(task) } : { error: { code: -32602, message: "no such task" } };
    case "tasks/list":
      // One page: a cursor is never given, so any is refused.
      if (params.cursor !== undefined) return { error: { code: -32602, message: "unknown cursor" } };
      return { result: { tasks: [...tasks.values()].map(view) } };
    case "tasks/cancel":
      if (!task || task.status !== "working") return { error: { code: -32602, message: "not cancellable" } };
      task.status = "cancelled";
      return { result: view(task) };
    case "tasks/result":
      if (!task) return { error: { code: -32602, message: "no such task" } };
      if (task.status === "completed") return { result: task.result };
      if (EARLY === "empty") return { result: { content: [] } };
      if (EARLY === "task") return { result: view(task) };
      return { error: { code: -32603, message: "not ready yet" } };
    default:
      return { error: { code: -32601, message: `method not found: ${method}` } };
  }
}

createInterface({ input: process.stdin }).on("line", (line) => {
  let message: { id?: unknown; method?: string; params?: Record<string, unknown> };
  try {
    message = JSON.parse(line) as typeof message;
  } catch {
    return;
  }
  if (message.id === undefined || typeof message.method !== "string") return; // a notification, or a reply
  send({ id: message.id, ...answer(message.method, message.params ?? {}) });
});
process.stdin.on("end", () => process.exit(0));
