// `mcp-task import [<file>|-]`: save task handles exported elsewhere (`mcp-task export`, ./export.ts). An imported
// handle reaches only servers saved here, or ones the person confirms (SECURITY.md: "Handles from elsewhere").
import { Option, type Command } from "commander";
import type { Context } from "../../context.js";
import type { Leaf } from "../command.js";
import { UsageError } from "../../errors.js";
import { MAX_IMPORT_STDIN_BYTES } from "../../limits.js";
import { createPrinter } from "../../output/printer.js";
import { parseHandle } from "../../store/handle-file.js";
import { readNamedFile } from "../../store/named-files.js";
import type { Handle } from "../../model.js";
import { readAll } from "../args.js";
import { withOptions } from "../options.js";
import {
  descriptorKey,
  describeServer,
  forHandle,
  savedServer,
  withoutCredentials,
  type ServerDescriptor,
} from "../../protocol/server.js";
import { sanitizeLine, shellValue } from "../../sanitize.js";
import { confirm } from "../../ask/line-prompt.js";
import { homeMark } from "../../tasks/away.js";

export interface ImportOptions {
  /** The exported handle(s); `-`: stdin. */
  file: string;
  /** Reach the servers of imported tasks that are not saved here, without asking. */
  yes: boolean;
}

export const importTasks: Leaf<ImportOptions, [string]> = {
  examples: ["mcp-task import tasks.json", "mcp-task export 5348014916be | mcp-task import -"],
  declare: (parent: Command) =>
    withOptions(
      parent
        .command("import")
        .summary("save task handles exported elsewhere (a file, or - for stdin)")
        .argument("[file]", "exported handle(s); default: stdin", "-"),
      new Option("-y, --yes", "reach the servers of imported tasks that are not saved here (without credentials)"),
    ),
  parse: ([file], flags) => ({ file, yes: Boolean(flags.yes) }),
  run: (options, ctx) => runImport(options, ctx),
};

export async function runImport(options: ImportOptions, ctx: Context): Promise<number> {
  // A file only if it is a regular one (a FIFO is refused at once); stdin is read as a stream Ctrl-C stops.
  const text =
    options.file === "-"
      ? await readAll(ctx.io.stdin, "import -", MAX_IMPORT_STDIN_BYTES, ctx.interrupt)
      : readNamedFile(options.file, MAX_IMPORT_STDIN_BYTES, { stdin: true });
  let values: unknown[];
  try {
    const parsed = JSON.parse(text) as unknown;
    values = Array.isArray(parsed) ? parsed : [parsed];
  } catch (error) {
    throw new UsageError(
      `${options.file === "-" ? "stdin" : options.file} is not valid JSON: ${(error as Error).message}`,
    );
  }
  const handles: Handle[] = values.map((value, i) => {
    try {
      return parseHandle(JSON.stringify(value));
    } catch {
      throw new UsageError(`entry ${i + 1} is not an exported task handle`, "produce one with: mcp-task export <id>");
    }
  });
  const settings = await ctx.loadSettings();
  const { handles: adopted, unsaved } = bindImported(handles, settings.servers());
  if (unsaved.length && !options.yes) {
    const list = unsaved.map((server) => sanitizeLine(describeServer(server))).join(", ");
    const question = `the imported task(s) name ${unsaved.length === 1 ? "a server" : "servers"} not saved here: ${list}`;
    if (
      !ctx.io.interactive ||
      !(await confirm(
        ctx.io,
        `mcp-task: ${question}. Reach ${unsaved.length === 1 ? "it" : "them"} (without credentials)?`,
      ))
    ) {
      throw new UsageError(
        `not imported: ${question}`,
        unsaved.length === 1 && unsaved[0].transport === "http"
          ? `check it, then import again with --yes, or save it first with: mcp-task server add <name> --url ${shellValue(unsaved[0].url)}`
          : "check them, then import again with --yes, or save them first with: mcp-task server add",
      );
    }
  }
  const imported: string[] = [];
  const kept: string[] = [];
  const here = homeMark(ctx.home);
  const at = new Date(ctx.clock.now()).toISOString();
  for (const handle of adopted)
    // From another home (or one that does not say): what that home's broker or keeper holds is out of reach here
    // (src/tasks/away.ts). Back in the home it came from: as it was.
    if (here !== undefined && handle.imported?.from === here) delete handle.imported;
    else handle.imported = { at, ...(typeof handle.imported?.from === "string" && { from: handle.imported.from }) };
  for (const handle of adopted)
    ((await ctx.tracker.adopt(handle)).kept ? kept : imported).push(`${handle.taskId} (server ${handle.server.name})`);
  const printer = createPrinter(ctx.io, false);
  if (imported.length) printer.note(`imported ${imported.join(", ")}`);
  if (kept.length)
    printer.note(`not imported: a handle is saved here for ${kept.join(", ")}; an import never replaces one`);
  return 0;
}

/**
 * A handle from elsewhere carries no credentials and names no server by a name of its own: one at the address of a
 * server saved here takes that server (its name, and its credentials when reached); any other keeps its address
 * only, stripped of headers and environment, and is listed in `unsaved` for the person to confirm.
 */
export function bindImported(
  handles: Handle[],
  saved: Record<string, ServerDescriptor>,
): { handles: Handle[]; unsaved: ServerDescriptor[] } {
  const unsaved = new Map<string, ServerDescriptor>();
  const bound = handles.map((handle) => {
    const match = savedServer(handle.server.descriptor, saved);
    if (match) return { ...handle, server: { name: match.name, descriptor: forHandle(match.descriptor) } };
    const descriptor = withoutCredentials(handle.server.descriptor);
    unsaved.set(descriptorKey(descriptor), descriptor);
    return { ...handle, server: { name: describeServer(descriptor), descriptor } };
  });
  return { handles: bound, unsaved: [...unsaved.values()] };
}
