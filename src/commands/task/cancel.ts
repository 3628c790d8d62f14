// `mcp-task cancel <id>`: ask the server to cancel a saved task, and show what it reports (./get.ts's runGet).
import type { Leaf } from "../command.js";
import { declareTaskRead, parseTaskRead, runGet, type GetOptions } from "./get.js";

export const cancel: Leaf<GetOptions, [string]> = {
  examples: ["mcp-task cancel 5348014916be"],
  declare: (parent) =>
    declareTaskRead(parent, "cancel", "ask the server to cancel a saved task, and show what it reports"),
  parse: parseTaskRead,
  run: (options, ctx) => runGet(options, "cancel", options.json, ctx),
};
