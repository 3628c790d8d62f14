// A 2025-11-25 ("V1") tasks server written on mcp-framework (0.2.22, a devDependency) with its public API only:
// MCPServer with `tasks: { enabled: true }`, tools added with addTool, each an MCPTool whose `execution` allows tasks.
// Nobody here wrote the protocol side: mcp-framework speaks it (its TaskManager and task handlers).
//
//   node framework-server.js --stdio            over stdio
//   node framework-server.js --port 0           over its HTTP Stream transport (Streamable HTTP, stateful sessions)
//                                               on 127.0.0.1 (0: a free port); prints `listening <url>`
//
// What mcp-framework does with tasks, as found in its code (and what the tests meet):
//   - `tasks/result` of a task that has not completed is an error (-32603 "Task … is not completed (status:
//     working)"), at once: it never blocks. Its tasks/get is the only way to learn that a task ended.
//   - A task never says `input_required`, and a tool cannot name its task: a question (this.elicit) is an ordinary
//     `elicitation/create` without the related-task metadata, over stdio on the connection, over HTTP on the
//     session's standalone GET stream. It comes while the task says `working`.
//   - A task fails (`failed`, its statusMessage the error) only when the tool's toolCall rejects; an MCPTool's
//     execute that throws is caught by toolCall and completes the task with an isError result. Its tasks/result of a
//     failed task is the same "is not completed (status: failed)" error.
//   - tasks/cancel marks the task cancelled; the tool runs on (its result is then dropped).
//
// Tools (all task-required, poll interval --poll-interval, default 200 ms):
//   work {ms}            completes after ms (default 500) with `work done after <ms> ms`
//   fail {ms}            fails after ms (its toolCall rejects: `failed`, statusMessage "work failed on purpose")
//   broken {ms}          its execute throws after ms: completed with an isError result "broken on purpose"
//   confirm {item}       asks one question, a form of {name: string, count: integer}, and completes with
//                        {"item":…,"action":…,"content":…} as its text
//   slow {ms}            completes after ms (default 60000): to cancel, or to leave running
import { connect, createServer } from "node:net";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { MCPServer, MCPTool, type ToolResponse } from "mcp-framework";
// mcp-framework's own zod (its peer, 3.x): the build resolves this import to the copy it uses (scripts/build.mjs).
// (The type checker sees the project's zod 4, so the inputs are typed by hand, not with MCPInput.)
import { z } from "zod";

const argv = process.argv.slice(2);
if (argv.includes("--help") || argv.includes("-h")) {
  process.stdout.write(
    "usage: node framework-server.js --stdio | --port <n> [--poll-interval <ms>]\n" +
      "  a 2025-11-25 tasks server on mcp-framework: over stdio, or its HTTP Stream transport on 127.0.0.1:<n>\n" +
      "  (0: a free port; it prints `listening <url>`)\n",
  );
  process.exit(0);
}
const flag = (name: string) => {
  const at = argv.indexOf(name);
  return at >= 0 ? argv[at + 1] : undefined;
};
const POLL_INTERVAL = Number(flag("--poll-interval") ?? 200);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const TASK = { taskSupport: "required" as const };

// Optional, not .default(): mcp-framework lists a field with a default as required.
const msSchema = () => z.object({ ms: z.number().int().min(0).optional().describe("how long the work takes, in ms") });

/** Its text as returned (an MCPTool JSON-encodes a string result unless told not to). */
abstract class TextTool extends MCPTool {
  protected override useStringify = false;
}

class WorkTool extends TextTool {
  name = "work";
  description = "completes after ms with its text";
  schema = msSchema();
  execution = TASK;
  async execute(input: { ms?: number }) {
    const ms = input.ms ?? 500;
    await sleep(ms);
    return `work done after ${ms} ms`;
  }
}

class SlowTool extends TextTool {
  name = "slow";
  description = "completes after ms (default a minute): to cancel, or to leave running";
  schema = msSchema();
  execution = TASK;
  async execute(input: { ms?: number }) {
    const ms = input.ms ?? 60_000;
    await sleep(ms);
    return `slow done after ${ms} ms`;
  }
}

class BrokenTool extends TextTool {
  name = "broken";
  description = "its execute throws after ms: an isError result";
  schema = msSchema();
  execution = TASK;
  async execute(input: { ms?: number }): Promise<string> {
    await sleep(input.ms ?? 300);
    throw new Error("broken on purpose");
  }
}

class FailTool extends TextTool {
  name = "fail";
  description = "fails after ms (the task's status is failed)";
  schema = msSchema();
  execution = TASK;
  async execute(): Promise<string> {
    return "never";
  }
  // MCPTool's toolCall turns a thrown execute into an isError result; a task fails only when toolCall itself
  // rejects (ToolProtocol.toolCall, public).
  override async toolCall(request: {
    params: { name: string; arguments?: Record<string, unknown> };
  }): Promise<ToolResponse> {
    const ms = Number(request.params.arguments?.ms ?? 300);
    await sleep(ms);
    throw new Error("work failed on purpose");
  }
}

class ConfirmTool extends TextTool {
  name = "confirm";
  description = "asks one question (a form of name and count) and completes with the answer";
  schema = z.object({ item: z.string().describe("what to confirm") });
  execution = TASK;
  async execute(input: { item: string }) {
    const answer = await this.elicit(
      `Confirm ${input.item}`,
      {
        name: { type: "string", title: "Name" },
        count: { type: "integer", minimum: 1, title: "Count" },
      },
      { timeout: 600_000 },
    );
    return JSON.stringify({ item: input.item, action: answer.action, content: answer.content });
  }
}

/** A free port on loopback (mcp-framework's transport takes 0 as "its default, 8080"). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
    probe.on("error", reject);
  });
}

const stdio = argv.includes("--stdio");
const port = stdio ? 0 : Number(flag("--port") ?? 0) || (await freePort());
const server = new MCPServer({
  name: "framework-test-server",
  version: "1.0.0",
  // Its tools are added below: the folder it would load more from is this file's, which has no tools/.
  basePath: dirname(fileURLToPath(import.meta.url)),
  tasks: { enabled: true, defaultPollInterval: POLL_INTERVAL },
  transport: stdio
    ? { type: "stdio" }
    : { type: "http-stream", options: { port, host: "127.0.0.1", endpoint: "/mcp", responseMode: "stream" } },
});
for (const tool of [WorkTool, SlowTool, BrokenTool, FailTool, ConfirmTool]) server.addTool(tool);
// start() resolves only once the server stops.
server.start().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`framework-server: ${String(error)}\n`);
    process.exit(1);
  },
);
if (!stdio) {
  // Listening once its port takes a connection.
  for (;;) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1", () => (socket.end(), resolve(true)));
      socket.on("error", () => resolve(false));
    });
    if (up) break;
    await sleep(50);
  }
  process.stdout.write(`listening http://127.0.0.1:${port}/mcp\n`);
}
