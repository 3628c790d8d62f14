// `mcp-task serve -s <server>...`: an MCP server over stdio (the command line an agent's configuration names) that
// offers the named saved servers' tools to an agent and runs each call that may be a task as a task of mcp-task's
// own (src/serve/). `--print-config <client>` prints the entry that agent's configuration takes instead.
import { Option, type Command } from "commander";
import type { Context } from "../context.js";
import { UsageError } from "../errors.js";
import { parseDuration } from "../duration.js";
import type { Leaf } from "./command.js";
import { collect, withOptions, type Flags } from "./options.js";
import { CONFIG_CLIENTS, DEFAULT_SERVE_WAIT, type ConfigClient, type ServeOptions } from "../serve/options.js";

export const serve: Leaf<ServeOptions, []> = {
  examples: [
    "mcp-task serve -s demo",
    "mcp-task serve -s demo -s everything --wait 50s",
    "mcp-task serve -s demo --print-config claude-code > .mcp.json",
  ],
  declare: (parent: Command) =>
    withOptions(
      parent
        .command("serve")
        .summary("offer saved servers' tools to an agent (an MCP server on stdio), each call run as a task here")
        .description(
          "Offer saved servers' tools to an agent: an MCP server on stdio, whose calls run as tasks of mcp-task " +
            "(saved, followed, answered by a person in the dashboard), plus task tools to come back for them.",
        ),
      new Option("-s, --server <name>", "a saved server to offer (repeatable)").argParser(collect),
      new Option("--wait <duration>", "how long a call waits for its result before replying with its task id").default(
        DEFAULT_SERVE_WAIT,
      ),
      new Option("--agent-answers", "let the agent answer a task's questions (task_answer); by default a person does"),
      new Option("--print-config <client>", "print the agent's configuration entry and exit").choices(CONFIG_CLIENTS),
    ),
  parse: (_args, flags: Flags): ServeOptions => {
    const servers = (flags.server as string[] | undefined) ?? [];
    if (servers.length === 0)
      throw new UsageError("serve offers saved servers only: name at least one", "mcp-task serve -s <name>");
    if (new Set(servers).size !== servers.length) throw new UsageError("a server is named twice");
    return {
      servers,
      waitMs: parseDuration(String(flags.wait ?? DEFAULT_SERVE_WAIT), "--wait"),
      agentAnswers: Boolean(flags.agentAnswers),
      printConfig: flags.printConfig as ConfigClient | undefined,
    };
  },
  run: (options, ctx) => runServe(options, ctx),
};

async function runServe(options: ServeOptions, ctx: Context): Promise<number> {
  const settings = await ctx.loadSettings();
  for (const name of options.servers)
    if (!settings.server(name)) {
      const known = Object.keys(settings.servers());
      throw new UsageError(
        `unknown server: ${name} (serve offers saved servers only)`,
        known.length ? `known servers: ${known.join(", ")}` : "add one with: mcp-task server add <name> --url <url>",
      );
    }
  if (options.printConfig) {
    const { clientConfig } = await import("../serve/config.js");
    ctx.io.stdout.write(`${clientConfig(options, ctx)}\n`);
    return 0;
  }
  ctx.longRun?.();
  const { runBridge } = await import("../serve/index.js");
  return runBridge(options, ctx);
}
