// `mcp-task export <id>`: print a saved task's handle as JSON, to import elsewhere (./import.ts). An exported
// handle carries no credentials (SECURITY.md: "Handles from elsewhere").
import type { Command } from "commander";
import type { Context } from "../../context.js";
import type { Leaf } from "../command.js";
import { createPrinter } from "../../output/printer.js";
import { withoutCredentials } from "../../protocol/server.js";
import { homeMark } from "../../tasks/away.js";
import { jsonOption, pickServer, withOptions, taskIdArgument, taskRef, type TaskRef } from "../options.js";

export const exportTask: Leaf<TaskRef, [string]> = {
  examples: ["mcp-task export 5348014916be > task.json"],
  declare: (parent: Command) =>
    withOptions(
      parent
        .command("export")
        .summary("print a saved task's handle as JSON, to import elsewhere")
        .addArgument(taskIdArgument()),
      pickServer(),
      jsonOption("(the output is always JSON)"),
    ),
  parse: ([id], flags) => taskRef(id, flags),
  run: (options, ctx) => runExport(options, ctx),
  settings: false,
};

export async function runExport(ref: TaskRef, ctx: Context): Promise<number> {
  const tracked = await ctx.tracker.open(ref.id, ref.server);
  // An exported handle carries the server's address, never its credentials (headers, environment).
  const { server } = tracked.handle;
  createPrinter(ctx.io, true).document(
    {
      ...tracked.handle,
      server: { name: server.name, descriptor: withoutCredentials(server.descriptor) },
      // The home its task's broker and keeper run in (a random id, not a path): this one, or the one it was imported
      // from. Imported elsewhere they are out of reach (src/tasks/away.ts); imported back there, they are not.
      imported: {
        at: tracked.handle.imported?.at ?? new Date(ctx.clock.now()).toISOString(),
        from: tracked.handle.imported ? tracked.handle.imported.from : homeMark(ctx.home),
      },
    },
    () => "",
  );
  return 0;
}
