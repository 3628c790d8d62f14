// `mcp-task broker <key>` (hidden): the background process that keeps a stdio server alive between commands.
// Started by mcp-task itself (src/broker/client.ts), never by a user.
import type { Command } from "commander";
import type { Context } from "../context.js";
import type { Run } from "./run.js";
import { parseDuration } from "./common.js";

export function registerBroker(program: Command, ctx: Context, run: Run): void {
  program
    .command("broker", { hidden: true })
    .argument("<key>")
    .action((key: string) =>
      run(async () => {
        const { runBroker } = await import("../broker/server.js");
        const grace = ctx.env.MCP_TASK_BROKER_GRACE
          ? parseDuration(ctx.env.MCP_TASK_BROKER_GRACE, "MCP_TASK_BROKER_GRACE")
          : undefined;
        return runBroker(ctx, key, grace);
      }),
    );
}
