// `mcp-task completion bash|zsh|fish`: a shell completion script, made from the declared commands (so it cannot drift
// from them), which asks `mcp-task __complete servers|tasks` for the saved servers and task ids as you type.
import { Argument, type Command } from "commander";
import type { Context } from "../context.js";
import { UsageError } from "../errors.js";
import type { Leaf } from "./command.js";

const SHELLS = ["bash", "zsh", "fish"] as const;
type Shell = (typeof SHELLS)[number];

/** The program the commands are declared on (captured at declaration: the script lists what it holds). */
let root: Command | undefined;

/** A command as completion sees it: its words, its long flags, and whether its argument is a task or a server. */
interface Completed {
  path: string[];
  flags: string[];
  takes?: "tasks" | "servers";
}

function commandsOf(command: Command, path: string[] = []): Completed[] {
  return command.commands
    .filter((sub) => !(sub as unknown as { _hidden?: boolean })._hidden)
    .flatMap((sub) => {
      const here = [...path, sub.name()];
      const first = sub.registeredArguments[0]?.name();
      const takes =
        first === "id"
          ? "tasks"
          : first === "server" || (here[0] === "server" && first === "name")
            ? "servers"
            : undefined;
      const flags = sub.options.map((option) => option.long).filter((flag): flag is string => flag !== undefined);
      return [{ path: here, flags, ...(takes ? { takes } : {}) }, ...commandsOf(sub, here)];
    });
}

function bash(commands: Completed[]): string {
  const top = commands.filter((c) => c.path.length === 1).map((c) => c.path[0]);
  const cases = commands
    .map((c) => {
      const dynamic = c.takes ? `mcp-task __complete ${c.takes} 2>/dev/null` : "";
      const subs = commands
        .filter((s) => s.path.length === c.path.length + 1 && s.path[0] === c.path[0])
        .map((s) => s.path.at(-1));
      const words = [...subs, ...c.flags].join(" ");
      return `    "${c.path.join(" ")}") words="${words}"; dynamic="${dynamic}" ;;`;
    })
    .join("\n");
  return `# mcp-task completion for bash: eval "$(mcp-task completion bash)"
_mcp_task() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}" path="" words="" dynamic="" i
  for ((i = 1; i < COMP_CWORD; i++)); do
    case "\${COMP_WORDS[i]}" in -*) ;; *) [[ -z "$path" ]] && path="\${COMP_WORDS[i]}" || { [[ "$path" == server ]] && path="$path \${COMP_WORDS[i]}"; } ;; esac
  done
  if [[ "$prev" == -s || "$prev" == --server ]]; then
    COMPREPLY=($(compgen -W "$(mcp-task __complete servers 2>/dev/null)" -- "$cur")); return
  fi
  case "$path" in
    "") words="${top.join(" ")}" ;;
${cases}
  esac
  [[ "$cur" != -* && -n "$dynamic" ]] && words="$words $(eval "$dynamic")"
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -F _mcp_task mcp-task
`;
}

function fish(commands: Completed[]): string {
  const lines = ["# mcp-task completion for fish: mcp-task completion fish | source", "complete -c mcp-task -f"];
  for (const c of commands) {
    const at =
      c.path.length === 1
        ? "__fish_use_subcommand"
        : `__fish_seen_subcommand_from ${c.path[0]}; and not __fish_seen_subcommand_from ${commands
            .filter((s) => s.path.length === 2 && s.path[0] === c.path[0])
            .map((s) => s.path[1])
            .join(" ")}`;
    lines.push(`complete -c mcp-task -n '${at}' -a '${c.path.at(-1)}'`);
    const seen = `__fish_seen_subcommand_from ${c.path.at(-1)}`;
    for (const flag of c.flags) lines.push(`complete -c mcp-task -n '${seen}' -l ${flag.replace(/^--/, "")}`);
    if (c.takes) lines.push(`complete -c mcp-task -n '${seen}' -a '(mcp-task __complete ${c.takes} 2>/dev/null)'`);
  }
  lines.push("complete -c mcp-task -s s -l server -x -a '(mcp-task __complete servers 2>/dev/null)'");
  return `${lines.join("\n")}\n`;
}

export const completion: Leaf<{ shell: Shell }, [string]> = {
  examples: ['eval "$(mcp-task completion bash)"'],
  declare: (parent: Command) => {
    root = parent;
    return parent
      .command("completion")
      .summary("print a shell completion script (commands, flags, saved servers and task ids)")
      .addArgument(new Argument("<shell>", "bash, zsh or fish").choices(SHELLS));
  },
  parse: ([shell]) => ({ shell: shell as Shell }),
  run: async ({ shell }, ctx) => {
    const commands = commandsOf(root!);
    const script =
      shell === "fish"
        ? fish(commands)
        : shell === "zsh"
          ? `# mcp-task completion for zsh: eval "$(mcp-task completion zsh)"\nautoload -U +X bashcompinit && bashcompinit\n${bash(commands)}`
          : bash(commands);
    ctx.io.stdout.write(script);
    return 0;
  },
  settings: false,
};

/** `mcp-task __complete servers|tasks` (hidden): the words a completion script offers, one a line. */
export const complete: Leaf<{ what: string }, [string]> = {
  examples: ["mcp-task __complete tasks  # what the shell completion script runs as you type"],
  declare: (parent: Command) => parent.command("__complete", { hidden: true }).argument("<what>"),
  parse: ([what]) => {
    if (what !== "servers" && what !== "tasks") throw new UsageError("__complete takes servers or tasks");
    return { what };
  },
  run: async ({ what }, ctx: Context) => {
    const words =
      what === "servers"
        ? Object.keys((await ctx.loadSettings()).servers())
        : (await ctx.tracker.store.summaries(() => {})).map((summary) => summary.taskId);
    // Only words a shell can take as they are (a hostile task id never reaches a completion line).
    ctx.io.stdout.write(
      words.filter((word) => /^[\w.:@%+=-]{1,200}$/.test(word)).join("\n") + (words.length ? "\n" : ""),
    );
    return 0;
  },
  settings: false,
};
