// A real terminal for a test: one tmux session at a time, running a command without CI in its environment.
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { ROOT } from "./servers.js";

/** The built CLI as a command line, for a terminal to run. */
export const bin = `${process.execPath} ${join(ROOT, "bin/mcp-task.js")}`;
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One terminal at a time, its sessions named `<prefix>-<pid>-<n>`; `close` ends the current one. */
export function tmuxTerminal(prefix: string) {
  let session = "";
  let counter = 0;
  const tmux = (...args: string[]) => execFileSync("tmux", args, { encoding: "utf8" });
  // -J: lines the terminal wrapped are joined, so that a pattern finds text across the wrap.
  const screen = () => tmux("capture-pane", "-p", "-J", "-t", session);
  const keys = (...k: string[]) => tmux("send-keys", "-t", session, ...k);
  // hang-only: the bound is a screen that never comes, generous for a terminal's process on a loaded machine (a
  // frame drawn after a broker and a server started took over 20 s at a load of 14).
  async function waitFor(pattern: RegExp, timeoutMs = 60_000): Promise<string> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const text = screen();
      if (pattern.test(text)) return text;
      if (Date.now() > until) throw new Error(`screen never showed ${pattern}:\n${text}`);
      await sleep(100);
    }
  }
  /** Runs `command` in a fresh session (then prints EXIT=<code> and stays 60 s, so that the end can be read). */
  function terminal(home: string, command: string, size = ["-x", "130", "-y", "40"]) {
    session = `${prefix}-${process.pid}-${++counter}`;
    tmux(
      "new-session",
      "-d",
      "-s",
      session,
      ...size,
      // The suite's mark (helpers/global-setup.ts): a tmux server started elsewhere would not pass it on.
      `env -u CI NO_COLOR=1 MCP_TASK_TEST_SUITE=${process.env.MCP_TASK_TEST_SUITE ?? ""} MCP_TASK_HOME=${home} ${command}; echo EXIT=$?; sleep 60`,
    );
  }
  function close() {
    try {
      tmux("kill-session", "-t", session);
    } catch {
      /* already gone */
    }
  }
  const resize = (...size: string[]) => tmux("resize-window", "-t", session, ...size);
  return { screen, keys, waitFor, terminal, close, resize };
}
