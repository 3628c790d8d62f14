// `mcp-task result <id>`: print a saved task's result, waiting for it (see ./watch.ts's runFollow) unless --no-wait.
import { Option, type Command } from "commander";
import type { Leaf } from "../command.js";
import {
  JSON_EVENTS,
  jsonFlag,
  jsonOption,
  pickServer,
  timeoutFlag,
  timeoutOption,
  withOptions,
  taskIdArgument,
  taskRef,
} from "../options.js";
import { runFollow, type FollowCommandOptions } from "./watch.js";

export const result: Leaf<FollowCommandOptions, [string]> = {
  examples: ["mcp-task result 5348014916be", "mcp-task result 5348014916be --no-wait --json"],
  declare: (parent: Command) =>
    withOptions(
      parent
        .command("result")
        .summary("print a saved task's result, waiting for it unless --no-wait")
        .addArgument(taskIdArgument()),
      pickServer(),
      new Option("--no-wait", "exit 7 at once if the task is still running"),
      timeoutOption(),
      jsonOption(JSON_EVENTS),
    ),
  parse: ([id], flags) => ({
    ...taskRef(id, flags),
    decline: false,
    openUrl: [],
    timeoutMs: timeoutFlag(flags),
    json: jsonFlag(flags),
    resultOnly: true,
    noWait: flags.wait === false,
  }),
  run: (options, ctx) => runFollow(options, ctx),
};
