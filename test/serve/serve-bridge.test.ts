// `mcp-task serve` as an agent meets it: the built binary spawned as an MCP server over stdio (it IS a process an
// agent spawns) and driven by the official SDK's clients, which know nothing of tasks (v1 line: Client +
// StdioClientTransport; one case on the v2 line, @modelcontextprotocol/client), against real task servers:
// server-everything over stdio (V1, its tasks kept by mcp-task's broker) and our V2 test server over HTTP.
// Bounds: every wait here is hang-only (a task's own duration is far below it); polls are counted where they matter.
import { CallToolResultSchema, ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliEnv, events, tempHome } from "../helpers/cli.js";
import { runInProcess } from "../helpers/context.js";
import { agent, call, textOf, untilAsking, type ToolReply } from "../helpers/serve-agent.js";
import { everythingStdio, ROOT, SDK_V1_SERVER, startV2Http, type RunningServer } from "../helpers/servers.js";
import { until } from "../helpers/until.js";

let v2: RunningServer;
beforeAll(async () => {
  v2 = await startV2Http();
});
afterAll(async () => {
  await v2?.stop();
});

/**
 * A home with server-everything (stdio) saved as `everything`, our V2 test server (HTTP) as `v2`, and the server on
 * the SDK's v1 line (stdio) as `sdkv1`.
 */
async function home(): Promise<string> {
  const dir = tempHome();
  for (const args of [
    ["server", "add", "everything", "--stdio", everythingStdio],
    ["server", "add", "v2", "--url", v2.url],
    ["server", "add", "sdkv1", "--stdio", `node ${SDK_V1_SERVER} --stdio`],
  ]) {
    const added = await runInProcess(args, { home: dir });
    expect(added.code, added.stderr).toBe(0);
  }
  return dir;
}

describe("mcp-task serve, driven by the SDK's v1 client", () => {
  // One bridge on server-everything for the tests that only read its tools and run one task to its end there.
  describe("a bridge on server-everything (--wait 100s)", () => {
    let dir: string;
    let everything: Awaited<ReturnType<typeof agent>>;
    beforeAll(async () => {
      dir = await home();
      everything = await agent(dir, ["-s", "everything", "--wait", "100s"]);
    }, 120_000);
    afterAll(async () => {
      await everything?.close();
    });

    it("lists the upstream tools with their schemas as sent, and the task tools; outputSchema only where the reply is always the result", async () => {
      const { tools } = await everything.listTools();
      const names = tools.map((t) => t.name);
      expect(names).toEqual(
        expect.arrayContaining(["echo", "simulate-research-query", "task_status", "task_result", "task_cancel"]),
      );
      expect(names).toContain("task_list");
      // task_answer only with --agent-answers: by default a person answers.
      expect(names).not.toContain("task_answer");
      const research = tools.find((t) => t.name === "simulate-research-query")!;
      expect(research.inputSchema.properties).toHaveProperty("topic");
      expect(research.inputSchema.properties).toHaveProperty("ambiguous");
      // Never a task: its outputSchema is kept (its reply is always its result).
      expect(tools.find((t) => t.name === "get-structured-content")!.outputSchema).toBeDefined();
      // The bridge is no task server to the agent: no task support is announced.
      expect(tools.every((t) => !("execution" in t))).toBe(true);
    }, 120_000);

    it("a task that ends within --wait: the upstream result exactly, its handle saved and marked as started through serve", async () => {
      const reply = await call(everything, "simulate-research-query", { topic: "bridges" });
      expect(reply.isError).toBeFalsy();
      expect(textOf(reply)).toMatch(/# Research Report: bridges/);
      // Saved as any task is: `list` shows it, `result` reads it from its handle, which says it came through serve.
      const listed = JSON.parse((await runInProcess(["list", "--json"], { home: dir })).stdout) as Array<
        Record<string, unknown>
      >;
      expect(listed).toHaveLength(1);
      expect(listed[0]).toMatchObject({ server: "everything", tool: "simulate-research-query", status: "completed" });
      const exported = await runInProcess(["export", String(listed[0]!.taskId)], { home: dir });
      expect(exported.code, exported.stderr).toBe(0);
      expect(exported.stdout).toMatch(/"via": ?"serve"/);
      const result = await runInProcess(["result", String(listed[0]!.taskId)], { home: dir });
      expect(result.stdout).toMatch(/# Research Report: bridges/);
    }, 120_000);
  });

  it("two servers: their tools named by server, task_answer with --agent-answers; a tool that may run as a task without its outputSchema, its result the server's exactly", async () => {
    const dir = await home();
    const two = await agent(dir, ["-s", "everything", "-s", "v2", "--agent-answers"]);
    try {
      const { tools } = await two.listTools();
      const names = tools.map((t) => t.name);
      expect(names).toEqual(
        expect.arrayContaining(["everything__echo", "v2__task_complete", "v2__echo", "task_answer"]),
      );
      expect(names).not.toContain("echo");
      // A tool that may run as a task is listed without its outputSchema (its reply may be the task's id)...
      const structured = tools.find((t) => t.name === "v2__task_structured")!;
      expect(structured.outputSchema).toBeUndefined();
      // ...and its result, once it comes, is the server's exactly, structuredContent included.
      const reply = await call(two, "v2__task_structured", { ms: 200 });
      expect(reply.isError).toBeFalsy();
      expect(reply.structuredContent).toEqual({ value: 42, unit: "widgets", items: ["a", "b"] });
    } finally {
      await two.close();
    }
  }, 120_000);

  it("a task that does not end within --wait: its id now, its result later from a new session after the first ended", async () => {
    const dir = await home();
    const first = await agent(dir, ["-s", "v2", "--wait", "0s"]);
    let taskId: string;
    try {
      const reply = await call(first, "task_complete", { ms: 1500, text: "came back for it" });
      expect(reply.isError).toBeFalsy();
      taskId = String(reply.structuredContent?.taskId);
      expect(reply.structuredContent).toMatchObject({ server: "v2", tool: "task_complete", status: "working" });
      expect(textOf(reply)).toContain(`task_result {"taskId":"${taskId}"}`);
    } finally {
      await first.close();
    }
    const later = await agent(dir, ["-s", "v2", "--wait", "60s"]);
    try {
      const listed = await call(later, "task_list");
      expect(listed.structuredContent?.tasks).toEqual([expect.objectContaining({ taskId, tool: "task_complete" })]);
      const result = await call(later, "task_result", { taskId });
      expect(result).toEqual({ content: [{ type: "text", text: "came back for it" }] });
      const status = await call(later, "task_status", { taskId });
      expect(status.structuredContent).toMatchObject({ taskId, status: "completed" });
    } finally {
      await later.close();
    }
    // `mcp-task result` reads the same outcome from the handle.
    const result = await runInProcess(["result", taskId, "--json"], { home: dir });
    expect(events(result.stdout).at(-1)).toMatchObject({ type: "result", status: "completed" });
  }, 120_000);

  it("a question is held for a person: the agent sees input_required and the question while `mcp-task respond` answers it", async () => {
    const dir = await home();
    const client = await agent(dir, ["-s", "v2", "--wait", "0s"]);
    try {
      const reply = await call(client, "task_input_once", { ms: 100 });
      const taskId = String(reply.structuredContent?.taskId);
      let polls = 0;
      let status: ToolReply | undefined;
      await until(
        async () => {
          polls++;
          status = await call(client, "task_status", { taskId });
          return status.structuredContent?.status === "input_required";
        },
        { hangMs: 60_000, everyMs: 200, what: "the task asking its question" },
      );
      expect(status!.structuredContent).toMatchObject({
        status: "input_required",
        questions: [expect.objectContaining({ kind: "form", message: "What is your name?" })],
      });
      expect(String(status!.structuredContent?.answeredBy)).toMatch(/mcp-task respond/);
      // The agent cannot answer it: task_answer is not offered.
      expect(textOf(await call(client, "task_answer", { taskId, action: "accept", content: { name: "x" } }))).toMatch(
        /no tool task_answer/,
      );
      const responded = await runInProcess(["respond", taskId, "--input", '{"name":"Ada"}'], { home: dir });
      expect(responded.code, responded.stderr).toBe(0);
      const result = await until(
        async () => {
          const r = await call(client, "task_result", { taskId });
          return r.structuredContent?.taskId === undefined ? r : undefined;
        },
        { hangMs: 60_000, everyMs: 200, what: "the answered task's result" },
      );
      expect(textOf(result)).toBe("Hello, Ada");
      expect(polls).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  }, 120_000);

  it("a V1 question held by the broker for a person (server-everything over stdio), answered with respond", async () => {
    const dir = await home();
    const client = await agent(dir, ["-s", "everything", "--wait", "0s"]);
    try {
      const reply = await call(client, "simulate-research-query", { topic: "ambiguity", ambiguous: true });
      const taskId = String(reply.structuredContent?.taskId);
      const status = await until(
        async () => {
          const s = await call(client, "task_status", { taskId });
          return s.structuredContent?.status === "input_required" && s.structuredContent.questions ? s : undefined;
        },
        { hangMs: 60_000, everyMs: 200, what: "the task's question, held by the broker" },
      );
      // The question as the server asked it (its form), shown to the agent; held by the broker for a person.
      expect(status.structuredContent?.questions).toEqual([
        expect.objectContaining({
          kind: "form",
          requestedSchema: expect.objectContaining({
            properties: expect.objectContaining({ interpretation: expect.anything() }),
          }),
        }),
      ]);
      const responded = await runInProcess(["respond", taskId, "--input", '{"interpretation":"technical"}'], {
        home: dir,
      });
      expect(responded.code, responded.stderr).toBe(0);
      const result = await until(
        async () => {
          const r = await call(client, "task_result", { taskId });
          return r.structuredContent?.taskId === undefined ? r : undefined;
        },
        { hangMs: 90_000, everyMs: 300, what: "the answered task's result" },
      );
      expect(result.isError).toBeFalsy();
      expect(textOf(result)).toMatch(/# Research Report: ambiguity/);
    } finally {
      await client.close();
    }
  }, 150_000);

  it("--agent-answers: the agent answers the question through task_answer", async () => {
    const dir = await home();
    const client = await agent(dir, ["-s", "v2", "--wait", "0s", "--agent-answers"]);
    try {
      const taskId = String((await call(client, "task_input_once", { ms: 100 })).structuredContent?.taskId);
      // As an agent does: it reads the status until the task asks, then answers.
      const status = await untilAsking(client, taskId);
      expect(String(status.structuredContent?.answeredBy)).toMatch(/task_answer/);
      const answered = await call(client, "task_answer", { taskId, action: "accept", content: { name: "Model" } });
      expect(answered.isError, textOf(answered)).toBeFalsy();
      expect(answered.structuredContent).toMatchObject({ taskId, action: "accept" });
      const result = await until(
        async () => {
          const r = await call(client, "task_result", { taskId });
          return r.structuredContent?.taskId === undefined ? r : undefined;
        },
        { hangMs: 60_000, everyMs: 200, what: "the answered task's result" },
      );
      expect(textOf(result)).toBe("Hello, Model");
    } finally {
      await client.close();
    }
  }, 120_000);

  it("an agent that declares elicitation is asked the question itself, and its answer relayed", async () => {
    const dir = await home();
    const client = await agent(dir, ["-s", "v2", "--wait", "100s"], { capabilities: { elicitation: {} } });
    const asked: unknown[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params);
      return { action: "accept", content: { name: "Eli" } };
    });
    try {
      const reply = await call(client, "task_input_once", { ms: 100 });
      expect(textOf(reply)).toBe("Hello, Eli");
      expect(asked).toEqual([expect.objectContaining({ message: "What is your name?" })]);
    } finally {
      await client.close();
    }
  }, 120_000);

  it("a URL question goes to an agent that declares URL elicitation, with the address as parsed", async () => {
    const dir = await home();
    const client = await agent(dir, ["-s", "v2", "--wait", "100s"], {
      capabilities: { elicitation: { form: {}, url: {} } },
    });
    const asked: Array<Record<string, unknown>> = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params as Record<string, unknown>);
      return { action: "accept" };
    });
    try {
      const reply = await call(client, "task_open_page", { url: "https://example.com/sign-in" });
      expect(textOf(reply)).toBe("page: accept");
      expect(asked).toEqual([
        expect.objectContaining({ mode: "url", message: "Sign in (V2)", url: "https://example.com/sign-in" }),
      ]);
    } finally {
      await client.close();
    }
  }, 120_000);

  // One bridge on our V2 server for the tests that start their own tasks and look only at those.
  describe("a bridge on the V2 server (--wait 100s)", () => {
    let client: Awaited<ReturnType<typeof agent>>;
    beforeAll(async () => {
      client = await agent(await home(), ["-s", "v2", "--wait", "100s"]);
    }, 120_000);
    afterAll(async () => {
      await client?.close();
    });

    it("task_cancel cancels; the agent's own cancellation of its request stops only the waiting", async () => {
      // The agent gives up on its request (notifications/cancelled): the task goes on.
      const abort = new AbortController();
      const gaveUp = client
        .callTool({ name: "task_slow", arguments: { ms: 60_000 } }, CallToolResultSchema, { signal: abort.signal })
        .catch((error: unknown) => error);
      const slow = async () =>
        ((await call(client, "task_list")).structuredContent?.tasks as Array<{ taskId: string; tool: string }>).filter(
          (t) => t.tool === "task_slow",
        );
      const listed = await until(async () => (await slow()).length > 0, {
        hangMs: 60_000,
        everyMs: 200,
        what: "the task saved",
      });
      expect(listed).toBe(true);
      abort.abort();
      expect(await gaveUp).toBeInstanceOf(Error);
      const [task] = await slow();
      const status = await call(client, "task_status", { taskId: task!.taskId });
      expect(status.structuredContent).toMatchObject({ status: "working" });
      const cancelled = await call(client, "task_cancel", { taskId: task!.taskId });
      expect(cancelled.structuredContent).toMatchObject({ status: "cancelled" });
      const result = await call(client, "task_result", { taskId: task!.taskId });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/was cancelled/);
    }, 120_000);

    it("an upstream that fails: the agent's tool error, with the server's message", async () => {
      const failed = await call(client, "task_fail", { ms: 100 });
      expect(failed.isError).toBe(true);
      expect(textOf(failed)).toMatch(/failed: task_fail: simulated failure/);
      const refused = await call(client, "task_complete", { ms: "not a number" });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toMatch(/ms/);
      const unknown = await call(client, "task_status", { taskId: "no-such-task" });
      expect(unknown.isError).toBe(true);
      expect(textOf(unknown)).toMatch(/no task no-such-task of this bridge/);
    }, 120_000);
  });

  it("progress from the upstream task reaches an agent that asked for it (a progressToken)", async () => {
    const dir = await home();
    const client = await agent(dir, ["-s", "sdkv1", "--wait", "100s"]);
    const seen: Array<{ progress: number; total?: number; message?: string }> = [];
    try {
      const reply = (await client.callTool(
        { name: "progress", arguments: { steps: 3, stepMs: 200 } },
        CallToolResultSchema,
        {
          timeout: 120_000,
          onprogress: (progress) => void seen.push(progress),
        },
      )) as ToolReply;
      expect(reply.isError).toBeFalsy();
    } finally {
      await client.close();
    }
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.at(-1)).toMatchObject({ total: 3, message: expect.stringMatching(/^step \d of 3$/) });
  }, 120_000);

  it("the task tools reach only tasks started through serve: a task `call` started is not this bridge's", async () => {
    const dir = await home();
    const detached = await runInProcess(["call", "task_slow", "ms=60000", "-s", "v2", "--detach"], { home: dir });
    expect(detached.code, detached.stderr).toBe(0);
    const taskId = detached.stdout.trim();
    const client = await agent(dir, ["-s", "v2"]);
    try {
      for (const tool of ["task_status", "task_result", "task_cancel"]) {
        const reply = await call(client, tool, { taskId });
        expect(reply.isError, tool).toBe(true);
        expect(textOf(reply)).toContain(`no task ${taskId} of this bridge`);
      }
      expect((await call(client, "task_list")).structuredContent).toEqual({ tasks: [] });
    } finally {
      await client.close();
    }
    // It still runs: the bridge did not touch it.
    const got = await runInProcess(["get", taskId, "--json"], { home: dir });
    expect(JSON.parse(got.stdout)).toMatchObject({ taskId, status: "working" });
    await runInProcess(["cancel", taskId], { home: dir });
  }, 120_000);

  it("a client that speaks tasks gets the same bridge: plain tool calls and the task tools", async () => {
    const dir = await home();
    const client = await agent(dir, ["-s", "v2", "--wait", "100s"], {
      capabilities: { tasks: { requests: { tools: { call: {} } } } } as never,
    });
    try {
      expect(client.getServerCapabilities()?.tasks).toBeUndefined();
      const reply = await call(client, "task_complete", { ms: 200, text: "plain" });
      expect(reply).toEqual({ content: [{ type: "text", text: "plain" }] });
    } finally {
      await client.close();
    }
  }, 120_000);
});

describe("mcp-task serve, driven by the SDK's v2 client", () => {
  it("lists and calls through the bridge, over the v2 client line", async () => {
    const dir = await home();
    const { Client: Client2 } = await import("@modelcontextprotocol/client");
    const { StdioClientTransport: Stdio2 } = await import("@modelcontextprotocol/client/stdio");
    const client = new Client2({ name: "test-agent-v2", version: "1.0.0" });
    await client.connect(
      new Stdio2({
        command: process.execPath,
        args: [join(ROOT, "bin/mcp-task.js"), "serve", "-s", "v2", "--wait", "100s"],
        env: cliEnv(dir) as Record<string, string>,
      }),
    );
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(["task_complete", "task_status"]));
      const reply = await client.callTool({ name: "task_complete", arguments: { ms: 200, text: "v2 line" } });
      expect(reply.content).toEqual([{ type: "text", text: "v2 line" }]);
    } finally {
      await client.close();
    }
  }, 120_000);
});

describe("mcp-task serve --print-config", () => {
  it("prints each client's entry, which parses in that client's format", async () => {
    const dir = await home();
    const shapes = {
      "claude-code": (c: any) => c.mcpServers["mcp-task"],
      "claude-desktop": (c: any) => c.mcpServers["mcp-task"],
      cursor: (c: any) => c.mcpServers["mcp-task"],
      vscode: (c: any) => c.servers["mcp-task"],
    };
    for (const [client, entryOf] of Object.entries(shapes)) {
      const printed = await runInProcess(["serve", "-s", "v2", "--print-config", client], { home: dir });
      expect(printed.code, printed.stderr).toBe(0);
      const entry = entryOf(JSON.parse(printed.stdout));
      expect(entry.command).toBe(process.execPath);
      expect(entry.args).toEqual([join(ROOT, "bin/mcp-task.js"), "serve", "-s", "v2"]);
      expect(entry.env).toEqual({ MCP_TASK_HOME: dir });
      if (client === "vscode" || client === "claude-code") expect(entry.type).toBe("stdio");
    }
    const unknown = await runInProcess(["serve", "-s", "nowhere", "--print-config", "cursor"], { home: dir });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown server: nowhere/);
  }, 120_000);
});
