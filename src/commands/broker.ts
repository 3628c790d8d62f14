// `mcp-task broker <key>` (hidden): the background process that keeps a stdio server alive between commands.
// Started by mcp-task itself (src/broker/client.ts), never by a user.
import type { Command } from "commander";
import type { Leaf } from "./command.js";

export interface BrokerOptions {
  key: string;
}

export const broker: Leaf<BrokerOptions, [string]> = {
  examples: ["mcp-task broker 3f9c2a7b  # started by mcp-task itself to keep a server, never by hand"],
  declare: (parent: Command) => parent.command("broker", { hidden: true }).argument("<key>"),
  parse: ([key]) => ({ key }),
  run: async (options, ctx) => {
    ctx.longRun?.();
    const { runBroker } = await import("../broker/server.js");
    return runBroker(ctx, options.key);
  },
};
