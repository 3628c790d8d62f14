// `mcp-task server add|list|remove|use|ps|stop|logs|import|forget-verdict`: the saved servers, and the brokers of stdio servers.
import type { Command } from "commander";
import type { Noun } from "../command.js";
import { serverAdd } from "./add.js";
import { serverImport } from "./import.js";
import { serverList } from "./list.js";
import { serverPs } from "./ps.js";
import { serverRemove } from "./remove.js";
import { serverStop } from "./stop.js";
import { serverUse } from "./use.js";
import { serverLogs } from "./logs.js";
import { serverForgetVerdict } from "./forget-verdict.js";

export const server: Noun = {
  declare: (parent: Command) =>
    parent
      .command("server")
      .summary("save, list and choose servers")
      .description("Save, list and choose MCP servers.")
      .addHelpText(
        "after",
        '\nExample:\n  mcp-task server add everything --stdio "npx -y @modelcontextprotocol/server-everything"',
      ),
  verbs: [
    serverAdd,
    serverList,
    serverRemove,
    serverUse,
    serverPs,
    serverStop,
    serverLogs,
    serverImport,
    serverForgetVerdict,
  ],
};
