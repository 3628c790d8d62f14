// What `mcp-task serve` is asked to do (src/commands/serve.ts parses it; the bridge in this folder runs it).

/** The agents whose configuration entry `--print-config` prints. */
export const CONFIG_CLIENTS = ["claude-code", "claude-desktop", "vscode", "cursor"] as const;
export type ConfigClient = (typeof CONFIG_CLIENTS)[number];

/**
 * How long a call waits for its task's result before it replies with the task's id: under the 60 s for which common
 * agents (Claude Code, Claude Desktop, VS Code, Cursor) wait for a tool's reply by default.
 */
export const DEFAULT_SERVE_WAIT = "25s";

export interface ServeOptions {
  /** The saved servers offered, by name. */
  servers: string[];
  /** How long a call (and task_result) waits for the task's result. */
  waitMs: number;
  /** The agent may answer a task's question through task_answer (else a person does, or the agent's user). */
  agentAnswers: boolean;
  printConfig?: ConfigClient;
}
