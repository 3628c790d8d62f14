// Runs the built binary as a user or a pipeline would: a fresh process, no TTY, CI set.
import { spawn, type ChildProcess } from "node:child_process";
import { expect } from "vitest";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "./servers.js";

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Every home made by this test file: test/helpers/setup.ts stops the brokers left in them. */
export const homes: string[] = [];

export function tempHome(): string {
  const home = mkdtempSync(join(tmpdir(), "mcp-task-test-"));
  homes.push(home);
  return home;
}

/**
 * Resolves with the exit code once the process has exited AND its stdout and stderr have been read to their end:
 * 'exit' can come before the last output is read (on a loaded machine a command that printed its result was seen
 * with an empty stdout). 'close' is that moment; a grandchild still holding the pipes (a server that outlives the
 * command) delays it, so after 'exit' it is waited for 3 s at most.
 */
export function exitedAndRead(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    let code: number | null = null;
    child.once("exit", (c) => {
      code = c;
      setTimeout(() => resolve(code), 3000).unref();
    });
    child.once("close", (c) => resolve(c ?? code));
  });
}

/** The environment of a CLI run in a test: CI, no colour, the home, and brokers that leave 1 s after their last task. */
export function cliEnv(home: string, env?: Record<string, string>): NodeJS.ProcessEnv {
  return { ...process.env, CI: "true", NO_COLOR: "1", MCP_TASK_BROKER_GRACE: "1s", MCP_TASK_HOME: home, ...env };
}

/**
 * Runs the built CLI in a fresh process (after `wrapper`, a command line that runs it, such as /usr/bin/time) and
 * resolves once it has exited and its output is read.
 */
export function runCli(
  args: string[],
  options: {
    home: string;
    env?: Record<string, string>;
    input?: Buffer | string;
    timeoutMs?: number;
    wrapper?: string[];
    /** The folder it runs in (default the test's). */
    cwd?: string;
  },
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const [command, ...prefix] = [...(options.wrapper ?? []), process.execPath];
    const child = spawn(command!, [...prefix, join(ROOT, "bin/mcp-task.js"), ...args], {
      env: cliEnv(options.home, options.env),
      stdio: ["pipe", "pipe", "pipe"],
      cwd: options.cwd,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`mcp-task ${args.join(" ")} did not finish; stderr: ${stderr.slice(0, 2000)}`));
    }, options.timeoutMs ?? 45_000);
    void exitedAndRead(child).then((code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.on("error", () => {}); // a command that does not read its input may end before it is written
    child.stdin.end(options.input ?? "");
  });
}

/** Parses NDJSON stdout, failing on any line that is not JSON. */
export function events(stdout: string): Array<Record<string, unknown>> {
  return stdout
    .split("\n")
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line));
}

/**
 * respond's output once the answer was taken and its task moved on, as documented: ended (completed), or out of
 * input_required and still working (its tool ends just after the answer; on a loaded machine respond's read can come
 * first). `--json` output is checked as the document; text, as its line.
 */
export function expectAnsweredAndMovedOn(stdout: string, taskId?: string): void {
  if (!stdout.trimStart().startsWith("{")) {
    expect(stdout).toMatch(/ended \(completed\)|is working again; follow it with: mcp-task watch /);
    return;
  }
  const doc = JSON.parse(stdout) as { taskId: string; status: string; outcome: unknown };
  if (taskId !== undefined) expect(doc.taskId).toBe(taskId);
  if (doc.status === "completed") expect(doc.outcome).toMatchObject({ status: "completed" });
  else expect(doc).toMatchObject({ status: "working", outcome: null });
}

/** Starts the binary (of `root`, default this checkout) and returns the child, for tests that signal it. */
export function startCli(args: string[], options: { home: string; env?: Record<string, string>; root?: string }) {
  const child = spawn(process.execPath, [join(options.root ?? ROOT, "bin/mcp-task.js"), ...args], {
    env: cliEnv(options.home, options.env),
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output = { stdout: "", stderr: "" };
  child.stdout.on("data", (chunk) => (output.stdout += chunk));
  child.stderr.on("data", (chunk) => (output.stderr += chunk));
  const exited = exitedAndRead(child);
  return { child, output, exited };
}
