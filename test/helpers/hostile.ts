// What every hostile test checks of a run of the CLI (test/hostile*.test.ts), and the measured run they use where a
// bound is the point: no control character reaches stdout or stderr, no stack trace, one error line with the
// documented exit code; CPU time and peak memory as the kernel counts them.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import { events, runCli, type CliResult } from "./cli.js";
import { runInProcess } from "./context.js";
import { startHostileHttp, type RunningServer } from "./servers.js";

export type Generation = "v1" | "v2";
export const BOTH: Generation[] = ["v1", "v2"];

// What must never reach a terminal: C0 controls but \t and \n (ESC included), DEL, C1, bidi controls, separators, and
// invisible characters text never needs (zero-width space, word joiner, byte order mark, soft hyphen, fillers, tags).
// eslint-disable-next-line no-control-regex
export const UNSAFE =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b\u200e\u200f\u2028\u2029\u202a-\u202e\u2060-\u206f\u3164\ufeff\uffa0\ufff0-\ufffb]|[\udb40-\udb43][\udc00-\udfff]/;

export function expectClean(run: CliResult): void {
  for (const [name, text] of [
    ["stdout", run.stdout],
    ["stderr", run.stderr],
  ] as const) {
    const at = text.search(UNSAFE);
    expect(
      at,
      `${name} has a control character at ${at}: ${JSON.stringify(text.slice(Math.max(0, at - 40), at + 40))}`,
    ).toBe(-1);
  }
  expect(run.stderr, "no stack trace").not.toMatch(/^\s+at .+[:(]/m);
  expect(run.stderr).not.toMatch(/internal error|Unhandled|node:internal|Warning:|Maximum call stack/);
}

/** Text mode: the exit code, exactly one error line (a hint line may follow), clean output. */
export function expectError(run: CliResult, code: number, message?: RegExp): void {
  expect(run.code, run.stderr.slice(-3000)).toBe(code);
  expectClean(run);
  const errors = run.stderr.split("\n").filter((line) => /error/i.test(line));
  expect(errors, run.stderr.slice(-3000)).toHaveLength(1);
  expect(errors[0]).toMatch(/^mcp-task: error: /);
  if (message) expect(errors[0]).toMatch(message);
}

/** --json: the exit code, nothing on stderr, every stdout line JSON, the last one the error event. */
export function expectJsonError(run: CliResult, code: number, message?: RegExp): Record<string, unknown> {
  expect(run.code, run.stderr + run.stdout.slice(-2000)).toBe(code);
  expectClean(run);
  expect(run.stderr).toBe("");
  const last = events(run.stdout).at(-1)!;
  expect(last).toMatchObject({ type: "error", exitCode: code });
  if (message) expect(last.message).toMatch(message);
  return last;
}

/** The hostile server of one case over HTTP, for the length of `work`. */
export async function withHttp(
  hostileCase: string,
  generation: Generation,
  work: (server: RunningServer) => Promise<void>,
  ...flags: string[]
): Promise<void> {
  const server = await startHostileHttp(hostileCase, generation, ...flags);
  try {
    await work(server);
  } finally {
    await server.stop();
  }
}

export interface MeasuredRun extends CliResult {
  /** Wall time, ms. */
  ms: number;
  /** The CLI process's own CPU time (user + system), seconds, from wait4's rusage (GNU time). */
  cpu: number;
  /** Its peak resident memory, KiB. */
  rssKb: number;
}

/** Runs the built CLI under /usr/bin/time, so that its CPU time and peak memory are the kernel's own figures. */
export async function runMeasured(
  args: string[],
  options: { home: string; env?: Record<string, string>; input?: Buffer | string; timeoutMs?: number },
): Promise<MeasuredRun> {
  const dir = mkdtempSync(join(tmpdir(), "mcp-task-time-"));
  const report = join(dir, "time");
  const started = Date.now();
  try {
    const run = await runCli(args, { ...options, wrapper: ["/usr/bin/time", "-o", report, "-f", "%U %S %M"] });
    // GNU time exits with the command's code (and says "Command exited with non-zero status" in its report only).
    const [user, system, rss] = readFileSync(report, "utf8").trim().split("\n").at(-1)!.split(" ").map(Number);
    return { ...run, ms: Date.now() - started, cpu: user! + system!, rssKb: rss! };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The CPU time (s) of a command that only connects and lists the tools, run now: what any command costs before it
 * does its work, on this machine under its present load. A bound on a wait is set above it: the start-up is most of
 * a waiting command's CPU time, and two cores shared by many commands can double it (a 4 s wait at the poll ceiling
 * cost 0.7 CPU-seconds on a quiet machine, 1.35 in CI; a spin costs seconds more).
 */
export async function startupCpu(server: string[], home: string): Promise<number> {
  const run = await runMeasured(["tools", ...server], { home });
  expect(run.code, run.stderr).toBe(0);
  return run.cpu;
}

/** The store still lists (and parses), in-process; returns the saved handles. */
export async function stored(home: string): Promise<Array<Record<string, unknown>>> {
  const run = await runInProcess(["list", "--json"], { home });
  expect(run.code, run.stderr).toBe(0);
  expectClean(run);
  return JSON.parse(run.stdout) as Array<Record<string, unknown>>;
}
