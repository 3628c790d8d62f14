// An agent's side of `mcp-task serve` for the tests: the built binary spawned by the official SDK's v1 client over
// stdio, as an agent's configuration spawns it, and tool calls with a hang-only bound.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { join } from "node:path";
import { cliEnv } from "./cli.js";
import { ROOT } from "./servers.js";
import { until } from "./until.js";

export type ToolReply = {
  content: Array<{ type: string; text?: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};

/** An agent's session: `mcp-task serve ...` spawned by the v1 SDK client (with `capabilities`). */
export async function agent(
  dir: string,
  serveArgs: string[],
  capabilities: ConstructorParameters<typeof Client>[1] = {},
): Promise<Client & { stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(ROOT, "bin/mcp-task.js"), "serve", ...serveArgs],
    env: cliEnv(dir) as Record<string, string>,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk) => (stderr += chunk));
  const client = new Client({ name: "test-agent", version: "1.0.0" }, capabilities);
  await client.connect(transport);
  return Object.assign(client, { stderr: () => stderr });
}

/** A tool call with a hang-only bound (a real hang of the bridge is the only thing that trips it). */
export async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolReply> {
  return (await client.callTool({ name, arguments: args }, CallToolResultSchema, {
    timeout: 120_000,
  })) as ToolReply;
}

export const textOf = (reply: ToolReply) => reply.content.map((c) => c.text ?? "").join("\n");

/** As an agent does: reads task_status until the task asks its question (a hang-only bound); returns that status. */
export function untilAsking(client: Client, taskId: string): Promise<ToolReply> {
  return until(
    async () => {
      const s = await call(client, "task_status", { taskId });
      return s.structuredContent?.status === "input_required" ? s : undefined;
    },
    { hangMs: 60_000, everyMs: 200, what: "the task asking its question" },
  );
}
