// What a command is to the command surface (src/cli.ts's buildProgram): a leaf declares itself under its parent,
// turns commander's parsed values into its options, and runs them; a noun (`server`) groups leaves.
import type { Command } from "commander";
import type { Context } from "../context.js";
import type { Flags } from "./options.js";

/**
 * How a command runs its work: `run(job)` executes it, prints any error the one way errors are printed, and sets
 * the exit code. Settings are loaded first unless the command says it needs none (`{ settings: false }`: their
 * loading costs start-up time that `list` and friends need not pay).
 */
export type Run = (job: () => Promise<number>, options?: { settings?: boolean }) => Promise<void>;

/** One leaf command. `A` is its positional arguments as commander hands them over, `O` its options. */
export interface Leaf<O, A extends unknown[] = unknown[]> {
  /** Adds the command (name, help, arguments, options) under `parent`. */
  declare(parent: Command): Command;
  /**
   * Command lines shown under "Examples:" in its --help (at least one; a `# ...` tail is a comment). Each is checked
   * to parse as its command (test/commands/argv.test.ts), so that no example teaches what cannot run.
   */
  examples: readonly string[];
  /** Its options from commander's parsed values: pure, and a bad value is a UsageError. */
  parse(args: A, flags: Flags): O;
  /** Does the work; resolves to the exit code. */
  run(options: O, ctx: Context): Promise<number>;
  /** false: the command needs no settings (see Run). */
  settings?: false;
}

/** A leaf of any options (what the list of commands holds). */
export type AnyLeaf = Leaf<unknown, unknown[]>;

/** A noun with verbs of its own (`mcp-task server add`). */
export interface Noun {
  declare(parent: Command): Command;
  verbs: readonly AnyLeaf[];
}

/** The options of `leaf` from the values commander calls an action with: the arguments, the options, the command. */
export function optionsOf<O, A extends unknown[]>(leaf: Leaf<O, A>, values: readonly unknown[]): O {
  return leaf.parse(values.slice(0, -2) as A, values.at(-2) as Flags);
}

/** Declares `entries` under `parent`, in order; running a leaf calls `act` with it and commander's values. */
export function declareAll(
  parent: Command,
  entries: ReadonlyArray<AnyLeaf | Noun>,
  act: (leaf: AnyLeaf, values: unknown[]) => Promise<void>,
): void {
  for (const entry of entries) {
    if ("verbs" in entry) declareAll(described(entry.declare(parent)), entry.verbs, act);
    else
      described(entry.declare(parent))
        .addHelpText(
          "after",
          `\nExample${entry.examples.length > 1 ? "s" : ""}:\n${entry.examples.map((e) => `  ${e}\n`).join("")}`,
        )
        .action((...values: unknown[]) => act(entry, values));
  }
}

/**
 * A command whose own --help opens with a one-line description: its summary (the line its parent's list shows)
 * where it declares no longer description.
 */
function described(command: Command): Command {
  const summary = command.summary();
  if (!command.description() && summary) command.description(`${summary[0]!.toUpperCase()}${summary.slice(1)}.`);
  return command;
}

/** Declares `entries` under `parent` to run for real: parse, then `run…(options, ctx)`, inside `run`. */
export function registerAll(parent: Command, entries: ReadonlyArray<AnyLeaf | Noun>, ctx: Context, run: Run): void {
  declareAll(parent, entries, (leaf, values) =>
    run(() => leaf.run(optionsOf(leaf, values), ctx), { settings: leaf.settings }),
  );
}
