// A 2025-11-25 ("V1") tasks server written on the official SDK's v1 line (@modelcontextprotocol/sdk 1.x), with its
// public experimental tasks API only: McpServer with an InMemoryTaskStore and InMemoryTaskMessageQueue, and tools
// registered with registerToolTask. Nobody here wrote the protocol side: the SDK speaks it.
//
//   node sdk-v1-server.js --stdio            over stdio
//   node sdk-v1-server.js --port 0           over Streamable HTTP (stateful sessions); prints `listening <url>`
//   node sdk-v1-server.js --sse --port 0     over legacy HTTP+SSE (2024-11-05: GET /sse, POST /messages); prints
//                                            `listening <url>` with the /sse address; a POST to /sse is refused (405)
//   --exit-after-work                        the process exits as soon as a `work` task has ended
//
// Tools (all task-required); `work {ms, fail}` asks nothing and completes (or fails) after ms; `slow-create
// {delayMs, ms, gate?}` likewise, but only creates its task delayMs after the call came (its reply is late), or, given
// `gate` (a file's path), once that file exists (a test opens it when the client is where it wants it); the others each ask
// one question, a form of {name: string, count: integer >= 1}:
//   - confirm {item}: asks with the related-task metadata (the SDK queues it for tasks/result, status input_required)
//   - confirm-bare {item, delayMs?, gate?}: asks WITHOUT it (server.elicitInput during the task, as many SDK-based
//     servers do), delayMs after the task began or, given `gate` (a file's path), once that file exists: over HTTP on
//     the session's standalone GET stream; the task stays `working` while it waits.
//   - ask-first {item}: asks (without the metadata) before it creates its task: its tools/call reply waits for it.
//   - ask-beside {item, gapMs?}: asks (without the metadata) and, without waiting for the answer, creates its task
//     gapMs later (default 300) and replies: the question comes before the reply (as the SDK's example
//     collect-user-info-task's may); the answer completes the task.
//   - ask-twice {item, gapMs?, other?}: asks (with the metadata), and once answered asks again gapMs later (default
//     0: at once), the same form (`Again {item}`), or with `other` a form of {color: string} (`Color for {item}`);
//     the result's `content` is the first answer's, `again` the second's.
//   - sample {prompt}: asks for a model's reply (sampling/createMessage, with the metadata) instead of a form; a
//     client that did not declare sampling is not asked (action "no-sampling").
// And `progress {steps, stepMs}`: during its task, reports progress step/steps every stepMs with the call's
// progressToken (2025-11-25: it stays valid for the task's life) and logs each step (notifications/message, level
// warning on the last step, info before), then completes.
// The result's text is the answer as JSON: {"item":..., "action":..., "content":...}. Over HTTP only, URL mode:
//   - open-page {url?}: asks a URL-mode elicitation (with the metadata) of its own page `/page?id=`, or of `url`;
//     once accepted and the page fetched, it sends notifications/elicitation/complete and completes.
//   - needs-page: a plain tool refused with -32042 (URLElicitationRequiredError) until its page was fetched.
import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { createServer, type IncomingMessage } from "node:http";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import {
  InMemoryTaskMessageQueue,
  InMemoryTaskStore,
} from "@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js";
import { isInitializeRequest, UrlElicitationRequiredError } from "@modelcontextprotocol/sdk/types.js";
import * as z from "zod/v4";

const argv = process.argv.slice(2);
if (argv.includes("--help") || argv.includes("-h")) {
  process.stdout.write(
    "usage: node sdk-v1-server.js --stdio | [--sse] --port <n>\n" +
      "  a 2025-11-25 tasks server on the official SDK's v1 line: over stdio, or Streamable HTTP on 127.0.0.1:<n>\n" +
      "  (0: any free port; it prints `listening <url>`)\n",
  );
  process.exit(0);
}
const flag = (name: string) => {
  const at = argv.indexOf(name);
  return at >= 0 ? argv[at + 1] : undefined;
};
const EXIT_AFTER_WORK = argv.includes("--exit-after-work");
/** How long the server waits for an answer before it gives up (the SDK's default is 60 s). */
const ANSWER_TIMEOUT_MS = Number(flag("--answer-timeout") ?? 600_000);
/**
 * `confirm` only: after this long without an answer the task completes without it ({"action":"gave-up"}), and the
 * question is left as it is, never withdrawn (no notifications/cancelled): a server that gives up without a word.
 */
const GIVE_UP_MS = flag("--give-up-after") === undefined ? undefined : Number(flag("--give-up-after"));

const FORM = {
  type: "object" as const,
  properties: {
    name: { type: "string" as const, title: "Name" },
    count: { type: "integer" as const, minimum: 1, title: "Count" },
  },
  required: ["name", "count"],
};
const COLOR = {
  type: "object" as const,
  properties: { color: { type: "string" as const, title: "Color" } },
  required: ["color"],
};

const taskStore = new InMemoryTaskStore();
/** The server's own address (HTTP), and its pages: fetching `/page?id=` marks one visited. */
let base = "";
const pages = new Map<string, { visited: boolean; wake: () => void; seen: Promise<void> }>();
function page(): string {
  const id = randomUUID();
  let wake!: () => void;
  const seen = new Promise<void>((resolve) => (wake = resolve));
  pages.set(id, { visited: false, wake, seen });
  return id;
}

function makeServer(): McpServer {
  const server = new McpServer(
    { name: "sdk-v1-test-server", version: "1.0.0" },
    {
      capabilities: { tasks: { requests: { tools: { call: {} } }, list: {}, cancel: {} }, logging: {} },
      taskStore,
      taskMessageQueue: new InMemoryTaskMessageQueue(),
    },
  );
  const finish = async (taskId: string, item: string, work: () => Promise<{ action: string; content?: unknown }>) => {
    try {
      const answer = await work();
      await taskStore.storeTaskResult(taskId, "completed", {
        content: [{ type: "text", text: JSON.stringify({ item, ...answer }) }],
      });
    } catch (error) {
      await taskStore
        .storeTaskResult(taskId, "failed", {
          content: [{ type: "text", text: `Error: ${String(error)}` }],
          isError: true,
        })
        .catch(() => {});
    }
  };
  server.experimental.tasks.registerToolTask(
    "work",
    {
      description: "asks nothing: completes after ms with its text, or fails (an isError result) when fail is true",
      inputSchema: { ms: z.number().int().min(0).default(500), fail: z.boolean().default(false) },
      execution: { taskSupport: "required" },
    },
    {
      async createTask({ ms, fail }, extra) {
        const task = await extra.taskStore.createTask({ ttl: extra.taskRequestedTtl ?? 300_000, pollInterval: 200 });
        setTimeout(() => {
          const result = {
            content: [{ type: "text" as const, text: fail ? "work failed" : `work done after ${ms} ms` }],
            isError: fail,
          };
          // A task cancelled meanwhile keeps its status: the store refuses a result for a terminal task.
          void taskStore
            .storeTaskResult(task.taskId, fail ? "failed" : "completed", result)
            .catch(() => {})
            // --exit-after-work: the process ends as its task does (a server run for one job).
            .then(() => EXIT_AFTER_WORK && process.exit(0));
        }, ms);
        return { task };
      },
      getTask: async (_args, extra) => (await extra.taskStore.getTask(extra.taskId))!,
      getTaskResult: async (_args, extra) => (await extra.taskStore.getTaskResult(extra.taskId)) as never,
    },
  );
  server.experimental.tasks.registerToolTask(
    "slow-create",
    {
      description:
        "waits delayMs before it creates its task (a server waiting on its database), which completes after ms",
      inputSchema: {
        delayMs: z.number().int().min(0).default(2000),
        ms: z.number().int().min(0).default(500),
        gate: z.string().optional(),
      },
      execution: { taskSupport: "required" },
    },
    {
      async createTask({ delayMs, ms, gate }, extra) {
        // The tools/call reply (the task) comes delayMs late, or once the gate file exists: a client may stop waiting
        // before it.
        if (gate) while (!existsSync(gate)) await new Promise((resolve) => setTimeout(resolve, 20));
        else await new Promise((resolve) => setTimeout(resolve, delayMs));
        const task = await extra.taskStore.createTask({ ttl: extra.taskRequestedTtl ?? 300_000, pollInterval: 200 });
        const created = gate ? "once its gate opened" : `after ${delayMs} ms`;
        setTimeout(() => {
          const result = {
            content: [{ type: "text" as const, text: `created ${created}, done after ${ms} ms` }],
          };
          void taskStore.storeTaskResult(task.taskId, "completed", result).catch(() => {});
        }, ms);
        return { task };
      },
      getTask: async (_args, extra) => (await extra.taskStore.getTask(extra.taskId))!,
      getTaskResult: async (_args, extra) => (await extra.taskStore.getTaskResult(extra.taskId)) as never,
    },
  );
  server.experimental.tasks.registerToolTask(
    "progress",
    {
      description: "reports progress (and logs) during its task, one step every stepMs, then completes",
      inputSchema: { steps: z.number().int().min(1).default(4), stepMs: z.number().int().min(0).default(300) },
      execution: { taskSupport: "required" },
    },
    {
      async createTask({ steps, stepMs }, extra) {
        const task = await extra.taskStore.createTask({ ttl: extra.taskRequestedTtl ?? 300_000, pollInterval: 200 });
        const progressToken = extra._meta?.progressToken;
        void finish(task.taskId, "progress", async () => {
          for (let step = 1; step <= steps; step++) {
            await new Promise((resolve) => setTimeout(resolve, stepMs));
            if (progressToken !== undefined)
              await server.server.notification({
                method: "notifications/progress",
                params: { progressToken, progress: step, total: steps, message: `step ${step} of ${steps}` },
              });
            const level = step === steps ? "warning" : "info";
            await server.server.sendLoggingMessage({ level, logger: "progress-tool", data: { step, of: steps } });
          }
          return { action: "done" };
        });
        return { task };
      },
      getTask: async (_args, extra) => (await extra.taskStore.getTask(extra.taskId))!,
      getTaskResult: async (_args, extra) => (await extra.taskStore.getTaskResult(extra.taskId)) as never,
    },
  );
  server.experimental.tasks.registerToolTask(
    "confirm",
    {
      description: "asks one question with the related-task metadata",
      inputSchema: { item: z.string() },
      execution: { taskSupport: "required" },
    },
    {
      async createTask({ item }, extra) {
        const task = await extra.taskStore.createTask({ ttl: extra.taskRequestedTtl ?? 300_000, pollInterval: 200 });
        void finish(task.taskId, item, async () => {
          // Tagged with its task: the SDK queues it in the task message queue and delivers it on tasks/result.
          await taskStore.updateTaskStatus(task.taskId, "input_required", `asks about ${item}`);
          const asked = server.server.elicitInput(
            { mode: "form", message: `Confirm ${item}`, requestedSchema: FORM },
            { relatedTask: { taskId: task.taskId }, timeout: ANSWER_TIMEOUT_MS },
          );
          if (GIVE_UP_MS === undefined) return asked;
          asked.catch(() => {});
          return Promise.race([
            asked,
            new Promise<{ action: string }>((r) => setTimeout(() => r({ action: "gave-up" }), GIVE_UP_MS)),
          ]);
        });
        return { task };
      },
      getTask: async (_args, extra) => (await extra.taskStore.getTask(extra.taskId))!,
      getTaskResult: async (_args, extra) => (await extra.taskStore.getTaskResult(extra.taskId)) as never,
    },
  );
  server.experimental.tasks.registerToolTask(
    "sample",
    {
      description: "asks for a model's reply (sampling/createMessage) with the related-task metadata",
      inputSchema: { prompt: z.string() },
      execution: { taskSupport: "required" },
    },
    {
      async createTask({ prompt }, extra) {
        const task = await extra.taskStore.createTask({ ttl: extra.taskRequestedTtl ?? 300_000, pollInterval: 200 });
        void finish(task.taskId, prompt, async () => {
          // A client that did not declare sampling is not asked: the server does without (as the spec wants).
          if (!server.server.getClientCapabilities()?.sampling) return { action: "no-sampling" };
          await taskStore.updateTaskStatus(task.taskId, "input_required", "asks for a model's reply");
          const reply = await server.server.createMessage(
            {
              messages: [{ role: "user", content: { type: "text", text: prompt } }],
              systemPrompt: `Answer briefly. ${prompt}`,
              modelPreferences: { hints: [{ name: "claude" }], speedPriority: 0.5 },
              maxTokens: 50,
            },
            { relatedTask: { taskId: task.taskId }, timeout: ANSWER_TIMEOUT_MS },
          );
          return { action: "sampled", content: reply };
        });
        return { task };
      },
      getTask: async (_args, extra) => (await extra.taskStore.getTask(extra.taskId))!,
      getTaskResult: async (_args, extra) => (await extra.taskStore.getTaskResult(extra.taskId)) as never,
    },
  );
  server.experimental.tasks.registerToolTask(
    "confirm-bare",
    {
      description: "asks one question without the related-task metadata",
      inputSchema: { item: z.string(), delayMs: z.number().optional(), gate: z.string().optional() },
      execution: { taskSupport: "required" },
    },
    {
      async createTask({ item, delayMs, gate }, extra) {
        const task = await extra.taskStore.createTask({ ttl: extra.taskRequestedTtl ?? 300_000, pollInterval: 200 });
        void finish(task.taskId, item, async () => {
          await new Promise((resolve) => setTimeout(resolve, delayMs ?? 0));
          if (gate) while (!existsSync(gate)) await new Promise((resolve) => setTimeout(resolve, 20));
          return server.server.elicitInput(
            { mode: "form", message: `Confirm ${item} (bare)`, requestedSchema: FORM },
            { timeout: ANSWER_TIMEOUT_MS },
          );
        });
        return { task };
      },
      getTask: async (_args, extra) => (await extra.taskStore.getTask(extra.taskId))!,
      getTaskResult: async (_args, extra) => (await extra.taskStore.getTaskResult(extra.taskId)) as never,
    },
  );
  server.experimental.tasks.registerToolTask(
    "ask-twice",
    {
      description: "asks one question with the related-task metadata, then another once it is answered",
      inputSchema: { item: z.string(), gapMs: z.number().int().min(0).default(0), other: z.boolean().default(false) },
      execution: { taskSupport: "required" },
    },
    {
      async createTask({ item, gapMs, other }, extra) {
        const task = await extra.taskStore.createTask({ ttl: extra.taskRequestedTtl ?? 300_000, pollInterval: 200 });
        const ask = async (message: string, requestedSchema: typeof FORM | typeof COLOR) => {
          await taskStore.updateTaskStatus(task.taskId, "input_required", message);
          return server.server.elicitInput(
            { mode: "form", message, requestedSchema },
            { relatedTask: { taskId: task.taskId }, timeout: ANSWER_TIMEOUT_MS },
          );
        };
        void finish(task.taskId, item, async () => {
          const first = await ask(`Confirm ${item}`, FORM);
          // Asked again at once, the task never leaves input_required (no read can see it between the questions).
          if (gapMs > 0) {
            await taskStore.updateTaskStatus(task.taskId, "working", "answered once");
            await new Promise((resolve) => setTimeout(resolve, gapMs));
          }
          const again = await (other ? ask(`Color for ${item}`, COLOR) : ask(`Again ${item}`, FORM));
          return { ...first, again };
        });
        return { task };
      },
      getTask: async (_args, extra) => (await extra.taskStore.getTask(extra.taskId))!,
      getTaskResult: async (_args, extra) => (await extra.taskStore.getTaskResult(extra.taskId)) as never,
    },
  );
  server.experimental.tasks.registerToolTask(
    "ask-first",
    {
      description: "asks one question before it creates its task (it holds back its reply)",
      inputSchema: { item: z.string() },
      execution: { taskSupport: "required" },
    },
    {
      async createTask({ item }, extra) {
        const answer = await server.server.elicitInput(
          { mode: "form", message: `Before ${item}`, requestedSchema: FORM },
          { timeout: ANSWER_TIMEOUT_MS },
        );
        const task = await extra.taskStore.createTask({ ttl: extra.taskRequestedTtl ?? 300_000, pollInterval: 200 });
        await taskStore.storeTaskResult(task.taskId, "completed", {
          content: [{ type: "text", text: JSON.stringify({ item, ...answer }) }],
        });
        return { task };
      },
      getTask: async (_args, extra) => (await extra.taskStore.getTask(extra.taskId))!,
      getTaskResult: async (_args, extra) => (await extra.taskStore.getTaskResult(extra.taskId)) as never,
    },
  );
  server.experimental.tasks.registerToolTask(
    "ask-beside",
    {
      description: "asks one question (without the metadata) before its reply, and does not wait for the answer",
      inputSchema: { item: z.string(), gapMs: z.number().int().min(0).default(300) },
      execution: { taskSupport: "required" },
    },
    {
      async createTask({ item, gapMs }, extra) {
        const asked = server.server.elicitInput(
          { mode: "form", message: `Beside ${item}`, requestedSchema: FORM },
          { timeout: ANSWER_TIMEOUT_MS },
        );
        asked.catch(() => {}); // the task's result says what became of it
        await new Promise((resolve) => setTimeout(resolve, gapMs));
        const task = await extra.taskStore.createTask({ ttl: extra.taskRequestedTtl ?? 300_000, pollInterval: 200 });
        void finish(task.taskId, item, () => asked);
        return { task };
      },
      getTask: async (_args, extra) => (await extra.taskStore.getTask(extra.taskId))!,
      getTaskResult: async (_args, extra) => (await extra.taskStore.getTaskResult(extra.taskId)) as never,
    },
  );
  server.experimental.tasks.registerToolTask(
    "open-page",
    {
      description: "asks a URL-mode elicitation",
      inputSchema: { url: z.string().optional() },
      execution: { taskSupport: "required" },
    },
    {
      async createTask({ url }, extra) {
        const task = await extra.taskStore.createTask({ ttl: extra.taskRequestedTtl ?? 300_000, pollInterval: 200 });
        const id = page();
        void finish(task.taskId, "page", async () => {
          await taskStore.updateTaskStatus(task.taskId, "input_required", "asks to open a page");
          const answer = await server.server.elicitInput(
            {
              mode: "url",
              message: "Sign in to the test service",
              url: url ?? `${base}/page?id=${id}`,
              elicitationId: id,
            },
            { relatedTask: { taskId: task.taskId }, timeout: ANSWER_TIMEOUT_MS },
          );
          if (answer.action !== "accept" || url) return answer;
          await pages.get(id)!.seen;
          await server.server.createElicitationCompletionNotifier(id)();
          return { ...answer, visited: true };
        });
        return { task };
      },
      getTask: async (_args, extra) => (await extra.taskStore.getTask(extra.taskId))!,
      getTaskResult: async (_args, extra) => (await extra.taskStore.getTaskResult(extra.taskId)) as never,
    },
  );
  let needed: string | undefined; // this session's page for needs-page
  server.registerTool("needs-page", { description: "refused with -32042 until its page was fetched" }, async () => {
    if (needed && pages.get(needed)!.visited) return { content: [{ type: "text", text: "paid: page visited" }] };
    const id = (needed = page());
    void pages.get(id)!.seen.then(() => server.server.createElicitationCompletionNotifier(id)());
    throw new UrlElicitationRequiredError([
      { mode: "url", message: "Confirm the payment", url: `${base}/page?id=${id}`, elicitationId: id },
    ]);
  });
  return server;
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  return text ? JSON.parse(text) : undefined;
}

if (argv.includes("--stdio")) {
  await makeServer().connect(new StdioServerTransport());
} else if (argv.includes("--sse")) {
  // Legacy HTTP+SSE: the session is the GET /sse event stream; the client posts to the endpoint it names.
  const sessions = new Map<string, SSEServerTransport>();
  const http = createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? "/", base);
      if (req.method === "GET" && url.pathname === "/sse") {
        const transport = new SSEServerTransport("/messages", res);
        sessions.set(transport.sessionId, transport);
        res.on("close", () => sessions.delete(transport.sessionId));
        await makeServer().connect(transport);
        return;
      }
      const transport = sessions.get(url.searchParams.get("sessionId") ?? "");
      if (req.method === "POST" && url.pathname === "/messages" && transport) {
        await transport.handlePostMessage(req, res, await readBody(req));
        return;
      }
      res.writeHead(url.pathname === "/sse" ? 405 : 404).end();
    } catch (error) {
      if (!res.headersSent) res.writeHead(500).end(String(error));
    }
  });
  http.listen(Number(flag("--port") ?? 0), "127.0.0.1", () => {
    const address = http.address() as { port: number };
    base = `http://127.0.0.1:${address.port}`;
    process.stdout.write(`listening http://127.0.0.1:${address.port}/sse\n`);
  });
} else {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const http = createServer(async (req, res) => {
    try {
      if (req.url?.startsWith("/page")) {
        const entry = pages.get(new URL(req.url, base).searchParams.get("id") ?? "");
        if (entry) ((entry.visited = true), entry.wake());
        res.writeHead(entry ? 200 : 404, { "content-type": "text/plain" }).end(entry ? "done" : "no such page");
        return;
      }
      const sessionId = req.headers["mcp-session-id"] as string | undefined;
      const body = req.method === "POST" ? await readBody(req) : undefined;
      let transport = sessionId ? sessions.get(sessionId) : undefined;
      if (!transport) {
        if (sessionId || req.method !== "POST" || !isInitializeRequest(body)) {
          res.writeHead(sessionId ? 404 : 400, { "content-type": "application/json" });
          res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null }));
          return;
        }
        const fresh = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => void sessions.set(id, fresh),
        });
        fresh.onclose = () => fresh.sessionId && sessions.delete(fresh.sessionId);
        await makeServer().connect(fresh);
        transport = fresh;
      }
      await transport.handleRequest(req, res, body);
    } catch (error) {
      if (!res.headersSent) res.writeHead(500).end(String(error));
    }
  });
  http.listen(Number(flag("--port") ?? 0), "127.0.0.1", () => {
    const address = http.address() as { port: number };
    base = `http://127.0.0.1:${address.port}`;
    process.stdout.write(`listening http://127.0.0.1:${address.port}/mcp\n`);
  });
}
