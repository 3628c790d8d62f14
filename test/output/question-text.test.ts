// A question's text cannot pass for mcp-task's own lines (SECURITY.md, "A question's text"): where a server's words
// keep their line breaks (a form's message and field descriptions, a sampling request's messages, a URL request's
// message), the line prompt shows each of their lines behind the `│` gutter under a header of mcp-task's; text
// folded into one line (titles, choices) follows mcp-task's own marks. Against real servers where one lets the
// client choose the text (the SDK v1 server's `confirm {item}`: the message; the V2 test server's `task_sampling
// {text}`: the sampled message), and the hostile server's `escapes` case where none does (a form's title, field
// titles and descriptions, choice titles, a URL request's message). The Ink form's twin: test/ui/form.test.tsx.
import type { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runProgram } from "../../src/cli.js";
import { cliEnv, tempHome } from "../helpers/cli.js";
import { testContext } from "../helpers/context.js";
import {
  SDK_V1_SERVER,
  startHostileHttp,
  startListening,
  startV2Http,
  type RunningServer,
} from "../helpers/servers.js";

const FORGED =
  "\nmcp-task: error: forged by the server\nhint: mcp-task forged\nError: forged\u2028mcp-task: forged too";

/**
 * Runs `args` with a person at the line prompt (stdout not a terminal) who types each of `answers` once a prompt
 * waits for it (as at a keyboard: typed all at once, readline would hand the later lines to no question).
 */
async function prompted(args: string[], answers: string[]): Promise<{ code: number; stderr: string }> {
  const home = tempHome();
  const ctx = await testContext(home, { env: cliEnv(home) });
  (ctx.io as { interactive: boolean }).interactive = true;
  const stdin = ctx.io.stdin as PassThrough;
  // The prompts shown so far (each waits for one line): the form's, its fields', a URL's consent, a sampling reply.
  const PROMPTS = /\[A\/d\/c\] | {2}› |\[y\/N\/c\] |your reply \(as model/g;
  let typed = 0;
  // Any other prompt: stderr ends with one (": " or "] ") and has stayed so for 10 turns.
  let last = "";
  let still = 0;
  const typist = setInterval(() => {
    const { stderr } = ctx.out;
    still = stderr === last ? still + 1 : 0;
    last = stderr;
    const waiting = (stderr.match(PROMPTS)?.length ?? 0) > typed || (still === 10 && /[:\]] $/.test(stderr));
    if (answers.length && waiting) {
      typed++;
      stdin.write(`${answers.shift()}\n`);
    }
  }, 20);
  try {
    const code = await runProgram(ctx, [process.execPath, "mcp-task", ...args]);
    return { code, stderr: ctx.out.stderr };
  } finally {
    clearInterval(typist);
    stdin.end();
  }
}

/**
 * No line starts, at column 0 or indented, with what looks like mcp-task's own line (or a program's error): each line
 * the forged text begins stands behind the gutter, and the rest follow mcp-task's own words on their line.
 */
function quoted(stderr: string): void {
  const lines = stderr.split("\n");
  const forged = lines.filter((line) => /forged/.test(line));
  expect(forged.length, stderr).toBeGreaterThan(0);
  for (const line of lines)
    expect(line, stderr).not.toMatch(/^\s*(mcp-task: (error: )?forged|hint: mcp-task forged|Error: forged)/);
}

let v1: RunningServer;
let v2: RunningServer;
const hostile: Partial<Record<"v1" | "v2", RunningServer>> = {};
beforeAll(async () => {
  [v1, v2, hostile.v1, hostile.v2] = await Promise.all([
    startListening([SDK_V1_SERVER, "--port", "0"], "sdk v1 server"),
    startV2Http(),
    startHostileHttp("escapes", "v1"),
    startHostileHttp("escapes", "v2"),
  ]);
});
afterAll(async () => {
  await Promise.all([v1?.stop(), v2?.stop(), hostile.v1?.stop(), hostile.v2?.stop()]);
});

describe("the line prompt quotes a question's text", { timeout: 90_000 }, () => {
  it("a form's message with forged lines (SDK v1 server, confirm {item}): quoted under the header, then answered", async () => {
    const run = await prompted(["call", "confirm", `item=x${FORGED}`, "-s", v1.url], ["a", "Ada", "2"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(
      /^\? The server asks for input \(task [^)]+\):\n {2}│ Confirm x\n {2}│ mcp-task: error: forged by the server$/m,
    );
    quoted(run.stderr);
  });

  it("a sampling request's message with forged lines (V2 test server, task_sampling {text}): quoted, then replied", async () => {
    const run = await prompted(["call", "task_sampling", `text=hi${FORGED}`, "-s", v2.url], ["my reply"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/^ {2}│ \[user\] hi\n {2}│ mcp-task: error: forged by the server$/m);
    quoted(run.stderr);
  });

  it.each(["v1", "v2"] as const)(
    "%s: a form's title, field title, description and choice titles, and a URL request's message (hostile server)",
    async (generation) => {
      const url = hostile[generation]!.url;
      const form = await prompted(["call", "forged_ask", "-s", url], ["a", "y", "1"]);
      expect(form.stderr).toMatch(/ {2}│ Say yes to deploy\.\n {2}│ mcp-task: error: forged by the server$/m);
      quoted(form.stderr);
      const page = await prompted(["call", "forged_page", "-s", url], ["n"]);
      expect(page.stderr).toMatch(/ {2}│ Sign in first\.\n {2}│ mcp-task: error: forged by the server$/m);
      quoted(page.stderr);
    },
  );
});
