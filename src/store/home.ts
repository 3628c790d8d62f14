// The home (<home>: MCP_TASK_HOME, else the per-user config directory) and the private directories in it.
import { chmodSync, lstatSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import envPaths from "env-paths";
import { StoreUnwritableError, UsageError } from "../errors.js";
import { makeDirs, unwritable } from "./unwritable.js";

export function homeDir(env: Record<string, string | undefined>): string {
  return env.MCP_TASK_HOME || envPaths("mcp-task", { suffix: "" }).config;
}

export interface PrivacyCheck {
  /** The user's id: a directory owned by anyone else is refused. */
  uid?: number;
  /** Told (one line) when a directory others could enter was made private. */
  onRepair?: (message: string) => void;
}

/**
 * Makes `dir` a private directory (0700), creating it if need be. One owned by another user is refused: its owner
 * could read the handles, whose arguments, answers and results may be sensitive. One that others could enter is
 * made private, with the files in it (0600), and `onRepair` is told. `inside`: a directory mcp-task makes inside
 * the home (tasks, brokers), which must be a real directory: a link there is refused, not followed (the home
 * itself may be a link the user made).
 */
export function ensurePrivateDir(dir: string, check: PrivacyCheck = {}, inside = false): void {
  makeDirs(dir, 0o700); // a store that cannot be written: StoreUnwritableError
  const stat = inside ? lstatSync(dir) : statSync(dir);
  const fix = "set MCP_TASK_HOME to a directory of your own";
  if (stat.isSymbolicLink())
    throw new UsageError(
      `${dir} is a symbolic link, and mcp-task keeps its files only in a directory of its own`,
      "remove the link (mcp-task makes the directory again)",
    );
  if (!stat.isDirectory()) throw new UsageError(`${dir} is not a directory`, fix);
  if (check.uid !== undefined && stat.uid !== check.uid)
    throw new UsageError(
      `${dir} belongs to another user (uid ${stat.uid}), and mcp-task keeps private data there`,
      fix,
    );
  if ((stat.mode & 0o077) === 0) return;
  const mode = (stat.mode & 0o777).toString(8);
  let files = 0;
  try {
    chmodSync(dir, 0o700);
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isFile() && (statSync(path).mode & 0o077) !== 0) {
        chmodSync(path, 0o600);
        files++;
      }
    }
  } catch (error) {
    const fault = unwritable(error, dir, true);
    if (!(fault instanceof StoreUnwritableError)) throw fault;
    // A read-only store cannot be repaired, nor written: what only reads it (`list`) still works, and says so.
    check.onRepair?.(`${dir} is open to other users (mode ${mode}) and could not be made private: ${fault.message}`);
    return;
  }
  check.onRepair?.(
    `${dir} was open to other users (mode ${mode}): made it private (0700)${files ? `, and ${files} file(s) in it (0600)` : ""}`,
  );
}
