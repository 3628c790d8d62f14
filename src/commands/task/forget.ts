// `mcp-task forget <id...>`: drop saved task handles (the tasks themselves are not touched).
import type { Command } from "commander";
import type { Context } from "../../context.js";
import type { Leaf } from "../command.js";
import { pickServer, withOptions } from "../options.js";
import type { Handle, HandleSummary } from "../../model.js";
import { sanitizeLine } from "../../sanitize.js";

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

/**
 * Every id is found before any handle is dropped: one that matches none (exit 5) or several (exit 2) drops nothing,
 * so that a typo in the second id does not leave the first dropped and the command failed. What went is printed.
 */
export async function runForget(options: ForgetOptions, ctx: Context): Promise<number> {
  const found: Array<{ stem: string; handle: Handle }> = [];
  for (const id of options.ids) {
    const one = await ctx.tracker.store.find(id, options.server);
    if (!found.some((f) => f.stem === one.stem)) found.push(one);
  }
  const dropped: Array<Pick<HandleSummary, "taskId" | "tool" | "server" | "status">> = [];
  for (const { stem, handle } of found)
    if (await ctx.tracker.store.remove(stem))
      dropped.push({
        taskId: handle.taskId,
        tool: handle.tool,
        server: handle.server.name,
        status: handle.outcome?.status ?? handle.last.status,
      });
  printDropped(ctx, dropped);
  return 0;
}

/** One line on stdout for each handle dropped (or that would be): its task id, tool, server and last status. */
export function printDropped(
  ctx: Context,
  dropped: ReadonlyArray<Pick<HandleSummary, "taskId" | "tool" | "server" | "status">>,
): void {
  for (const { taskId, tool, server, status } of dropped)
    ctx.io.stdout.write(`${sanitizeLine(taskId)}  ${sanitizeLine(tool)} on ${sanitizeLine(server)} (${status})\n`);
}
