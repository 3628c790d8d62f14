// `mcp-task forget <id...>`: drop saved task handles (the tasks themselves are not touched).
import type { Command } from "commander";
import type { Context } from "../../context.js";
import type { Leaf } from "../command.js";
import { pickServer, withOptions } from "../options.js";

export interface ForgetOptions {
  ids: string[];
  server?: string;
}

export const forget: Leaf<ForgetOptions, [string[]]> = {
  examples: ["mcp-task forget 5348014916be 9a1f03c2"],
  declare: (parent: Command) =>
    withOptions(
      parent
        .command("forget")
        .summary("drop saved task handles (the tasks themselves are not touched)")
        .argument("<id...>", "task ids or unique prefixes"),
      pickServer(),
    ),
  parse: ([ids], flags) => ({ ids, server: flags.server as string | undefined }),
  run: (options, ctx) => runForget(options, ctx),
  settings: false,
};

export async function runForget(options: ForgetOptions, ctx: Context): Promise<number> {
  for (const id of options.ids) {
    const { stem } = await ctx.tracker.store.find(id, options.server);
    await ctx.tracker.store.remove(stem);
  }
  return 0;
}
