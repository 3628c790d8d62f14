// `mcp-task export <id>` and `mcp-task import [<file>|-]`: hand a task handle to another machine or CI job. The
// handle holds secrets only as ${env:NAME} references, so it can travel.
import { readFile } from "node:fs/promises";
import type { Command } from "commander";
import type { Context } from "../context.js";
import type { Run } from "./run.js";
import { UsageError } from "../errors.js";
import { MAX_IMPORT_STDIN_BYTES } from "../limits.js";
import { createPrinter } from "../output/printer.js";
import { parseHandle, type Handle } from "../store/handles.js";
import { PICK_SERVER, readAll } from "./common.js";

export function registerTransfer(program: Command, ctx: Context, run: Run): void {
  program
    .command("export")
    .summary("print a saved task's handle as JSON, to import elsewhere")
    .argument("<id>", "task id or unique prefix (at least 4 characters)")
    .option(...PICK_SERVER)
    .option("--json", "(the output is always JSON)")
    .action((id: string, flags: { server?: string }) =>
      run(async () => {
        const tracked = await ctx.tracker.open(id, flags.server);
        createPrinter(ctx.io, true).document(tracked.handle, () => "");
        return 0;
      }, { settings: false }),
    );
  program
    .command("import")
    .summary("save task handles exported elsewhere (a file, or - for stdin)")
    .argument("[file]", "exported handle(s); default: stdin", "-")
    .action((file: string) =>
      run(async () => {
        let text: string;
        try {
          text = file === "-" ? await readAll(ctx.io.stdin, "import -", MAX_IMPORT_STDIN_BYTES) : await readFile(file, "utf8");
        } catch (error) {
          throw new UsageError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
        }
        let values: unknown[];
        try {
          const parsed = JSON.parse(text) as unknown;
          values = Array.isArray(parsed) ? parsed : [parsed];
        } catch (error) {
          throw new UsageError(`${file === "-" ? "stdin" : file} is not valid JSON: ${(error as Error).message}`);
        }
        const handles: Handle[] = values.map((value, i) => {
          try {
            return parseHandle(JSON.stringify(value));
          } catch {
            throw new UsageError(`entry ${i + 1} is not an exported task handle`, "produce one with: mcp-task export <id>");
          }
        });
        for (const handle of handles) await ctx.tracker.adopt(handle);
        createPrinter(ctx.io, false).note(`imported ${handles.map((h) => h.taskId).join(", ")}`);
        return 0;
      }, { settings: false }),
    );
}

