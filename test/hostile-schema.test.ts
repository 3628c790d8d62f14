// Schemas that attack (issue 18): the real CLI against test/servers/hostile-server.ts serving schemas and questions
// built to freeze, crash or mislead a client: a catastrophic regular expression in an outputSchema, an inputSchema
// or a form; schemas nested 20,000 levels deep; forms of 10,000 and 400,000 fields; input keys and form fields named
// __proto__, constructor and prototype; input_required with nothing asked. Each ends within its bound with the
// documented exit code and one clear line; where a freeze was the defect, the CLI's own CPU time is asserted.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { events, tempHome } from "./helpers/cli.js";
import { hostileStdio, ROOT, startHostileHttp, type RunningServer } from "./helpers/servers.js";

type Generation = "v1" | "v2";
const BOTH: Generation[] = ["v1", "v2"];
const REDOS_TEXT = `${"a".repeat(40)}b`; // ^(a+)+$ against it: 2^40 steps on a backtracking engine

// What must never reach a terminal: C0 controls but \t and \n (ESC included), DEL, C1, bidi controls, separators.
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Wall time, ms. */
  ms: number;
  /** The CLI process's own CPU time (user + system), ms. */
  cpuMs: number;
}

/**
 * Runs the built CLI under /bin/sh, which reads its own /proc/<pid>/stat once the CLI has exited: the reaped child's
 * user and system time (cutime, cstime) are there, in clock ticks (10 ms), and nothing else ran under that shell.
 */
function run(args: string[], options: { home: string; timeoutMs?: number }): Promise<Run> {
  const script = 'node "$0" "$@" </dev/null; code=$?; read -r stat < /proc/$$/stat; printf "%s\\n" "$stat" >&3; exit $code';
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn("/bin/sh", ["-c", script, join(ROOT, "bin/mcp-task.js"), ...args], {
      env: { ...process.env, CI: "true", NO_COLOR: "1", MCP_TASK_BROKER_GRACE: "1s", MCP_TASK_HOME: options.home, PATH: `${process.execPath.replace(/\/node$/, "")}:${process.env.PATH}` },
      stdio: ["ignore", "pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    let stat = "";
    child.stdout!.on("data", (chunk) => (stdout += chunk));
    child.stderr!.on("data", (chunk) => (stderr += chunk));
    (child.stdio[3] as NodeJS.ReadableStream).on("data", (chunk) => (stat += chunk));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`mcp-task ${args.join(" ")} did not finish; stderr: ${stderr.slice(0, 2000)}`));
    }, options.timeoutMs ?? 30_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      // Fields after the command's parenthesised name: state is field 3, cutime 16, cstime 17.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).trim().split(/\s+/);
      const cpuMs = (Number(fields[16 - 3]) + Number(fields[17 - 3])) * 10;
      resolve({ code, stdout, stderr, ms: Date.now() - started, cpuMs });
    });
  });
}

function expectClean(result: Run): void {
  for (const [name, text] of [["stdout", result.stdout], ["stderr", result.stderr]] as const) {
    const at = text.search(UNSAFE);
    expect(at, `${name} has a control character at ${at}`).toBe(-1);
  }
  expect(result.stderr, "no stack trace").not.toMatch(/^\s+at .+[:(]/m);
  expect(result.stderr).not.toMatch(/internal error|Unhandled|node:internal|Warning:|Maximum call stack/);
}

/** Text mode: the exit code, exactly one error line, clean output. */
function expectError(result: Run, code: number, message: RegExp): void {
  expect(result.code, result.stderr.slice(-3000)).toBe(code);
  expectClean(result);
  const errors = result.stderr.split("\n").filter((line) => /error/i.test(line));
  expect(errors, result.stderr.slice(-3000)).toHaveLength(1);
  expect(errors[0]).toMatch(/^mcp-task: error: /);
  expect(errors[0]).toMatch(message);
}

async function withHttp(hostileCase: string, generation: Generation, work: (server: RunningServer) => Promise<void>, ...flags: string[]): Promise<void> {
  const server = await startHostileHttp(hostileCase, generation, ...flags);
  try {
    await work(server);
  } finally {
    await server.stop();
  }
}

describe("schemas that attack", { timeout: 60_000 }, () => {
  for (const generation of BOTH) {
    it(`redos-output (${generation}): an outputSchema pattern ^(a+)+$ against 40 a's and a b is checked in linear time: a warning, exit 0, well under 2 CPU-seconds`, async () => {
      await withHttp("redos-output", generation, async ({ url }) => {
        const home = tempHome();
        const json = await run(["call", "redos", "--json", "-s", url], { home });
        expect(json.code, json.stderr).toBe(0);
        expectClean(json);
        const result = events(json.stdout).at(-1)!;
        expect(result).toMatchObject({ type: "result", status: "completed", result: { structuredContent: { code: REDOS_TEXT } } });
        expect(result.outputSchemaError).toMatch(/must match pattern "\^\(a\+\)\+\$"/);
        expect(json.cpuMs, `CPU ${json.cpuMs} ms`).toBeLessThan(2000);
        const text = await run(["call", "redos", "-s", url], { home });
        expect(text.code, text.stderr).toBe(0);
        expect(text.stderr).toMatch(/^warning: the result does not match the tool's outputSchema: data\/code must match pattern/m);
        expect(text.cpuMs, `CPU ${text.cpuMs} ms`).toBeLessThan(2000);
      });
    });

    it(`redos-input (${generation}): arguments checked against an inputSchema pattern ^(a+)+$ end at once with exit 2`, async () => {
      await withHttp("redos-input", generation, async ({ url }) => {
        const result = await run(["call", "redos_in", `code=${REDOS_TEXT}`, "-s", url], { home: tempHome() });
        expectError(result, 2, /the arguments do not fit redos_in's inputSchema: data\/code must match pattern/);
        expect(result.cpuMs, `CPU ${result.cpuMs} ms`).toBeLessThan(2000);
      });
    });

    it(`deep-schema (${generation}): tool schemas nested 20,000 levels deep are exit 4 naming the tool and the bound, on call and tools`, async () => {
      await withHttp("deep-schema", generation, async ({ url }) => {
        const home = tempHome();
        const call = await run(["call", "deep_in", "-s", url], { home });
        expectError(call, 4, /mcp-task will not process tool deep_(out|in)'s (output|input)Schema from the server: it nests more than 64 levels deep/);
        expect(call.cpuMs, `CPU ${call.cpuMs} ms`).toBeLessThan(2000);
        const tools = await run(["tools", "--json", "-s", url], { home });
        expect(tools.code).toBe(4);
        expectClean(tools);
        expect(events(tools.stdout).at(-1)).toMatchObject({ type: "error", exitCode: 4, message: expect.stringMatching(/nests more than 64 levels deep/) });
      });
    });

    it(`wide-form (${generation}): a question of 10,000 fields is refused unanswered with exit 4 naming the bound`, async () => {
      await withHttp("wide-form", generation, async ({ url }) => {
        const result = await run(["call", "wide_ask", "--input", "{}", "-s", url], { home: tempHome() });
        expectError(result, 4, /mcp-task will not show or fill the form of a question from the server: it has 10000 fields \(limit 100\)/);
        expect(result.cpuMs, `CPU ${result.cpuMs} ms`).toBeLessThan(3000);
      });
    });

    it(`proto-field (${generation}): __proto__=1 and --args {"__proto__":...} reach the tool as arguments, with constructor beside them`, async () => {
      await withHttp("proto-field", generation, async ({ url }) => {
        const home = tempHome();
        const pairs = await run(["call", "echo", "__proto__=1", "constructor=2", "prototype=x", "-s", url], { home });
        expect(pairs.code, pairs.stderr).toBe(0);
        expect(JSON.parse(pairs.stdout)).toEqual({ keys: ["__proto__", "constructor", "prototype"], args: JSON.parse('{"__proto__":1,"constructor":2,"prototype":"x"}') });
        const args = await run(["call", "echo", "--args", '{"__proto__":{"polluted":true}}', "n=3", "-s", url], { home });
        expect(args.code, args.stderr).toBe(0);
        expect(JSON.parse(args.stdout)).toEqual({ keys: ["__proto__", "n"], args: JSON.parse('{"__proto__":{"polluted":true},"n":3}') });
      });
    });
  }

  it("redos-input (v2): an --input answer checked against a form's pattern ^(a+)+$ is exit 6 at once", async () => {
    // (V1: the SDK's own parse of the elicitation request drops `pattern`, so the answer is not checked there.)
    await withHttp("redos-input", "v2", async ({ url }) => {
      const result = await run(["call", "redos_ask", "--input", JSON.stringify({ code: REDOS_TEXT }), "-s", url], { home: tempHome() });
      expectError(result, 6, /the --input answer does not fit the requested form \(expected code: string\)/);
      expect(result.cpuMs, `CPU ${result.cpuMs} ms`).toBeLessThan(2000);
    });
  });

  for (const generation of BOTH) {
    // V1: refused before the SDK parses the request (its parse refused the deep form unseen, and spent 8 CPU-s on
    // the wide one); the server gets an error reply.
    it(`deep-form (${generation}): a question whose requestedSchema nests 20,000 levels is refused unanswered, exit 4 naming the bound`, async () => {
      await withHttp("deep-form", generation, async ({ url }) => {
        const result = await run(["call", "deep_ask", "--input", "{}", "-s", url], { home: tempHome() });
        expectError(result, 4, /mcp-task will not show or fill the form of a question from the server: it nests more than 64 levels deep/);
      });
    });

    it(`wide-form (${generation}): a question of 400,000 fields (16 MB) is refused within 4 CPU-seconds, exit 4`, async () => {
      await withHttp("wide-form", generation, async ({ url }) => {
        const result = await run(["call", "wide_ask", "--input", "{}", "-s", url], { home: tempHome(), timeoutMs: 45_000 });
        expectError(result, 4, /it has 400000 fields \(limit 100\)/);
        expect(result.cpuMs, `CPU ${result.cpuMs} ms`).toBeLessThan(4000);
      }, "--fields", "400000");
    });
  }

  it("proto-key (v2): a question under the key __proto__ is seen: exit 6 naming it in CI, answered with --input", async () => {
    await withHttp("proto-key", "v2", async ({ url }) => {
      const home = tempHome();
      const unanswered = await run(["call", "ask", "-s", url], { home });
      expectError(unanswered, 6, /input required and no answer given: proto key\?/);
      expect(unanswered.ms).toBeLessThan(15_000);
      const answered = await run(["call", "ask", "--input", '{"ok":true}', "-s", url], { home });
      expect(answered.code, answered.stderr).toBe(0);
      expect(JSON.parse(answered.stdout)).toEqual({ keys: ["__proto__"], answer: { action: "accept", content: { ok: true } } });
    });
  });

  it("empty-input-requests (v2): input_required with nothing asked ends with exit 4 after 10 reads and 5 s, not a wait for ever", async () => {
    await withHttp("empty-input-requests", "v2", async ({ url }) => {
      const home = tempHome();
      // Without an answer (CI) and with one: the same bounded end. (Side by side: each waits its 5 s.)
      const results = await Promise.all([[], ["--input", '{"ok":true}']].map((args) => run(["call", "ask", ...args, "-s", url], { home })));
      for (const result of results) {
        expectError(result, 4, /the server says the task needs input but asks no question \(input_required with an empty inputRequests, for \d+ s\)/);
        expect(result.ms).toBeLessThan(15_000);
      }
    });
  });

  it("proto-field (v2): form fields named __proto__, constructor and prototype are answered from --input as own keys; a missing required __proto__ is exit 6", async () => {
    await withHttp("proto-field", "v2", async ({ url }) => {
      const home = tempHome();
      const answer = '{"__proto__":"p","constructor":true,"prototype":"q"}';
      const full = await run(["call", "ask", "--input", answer, "-s", url], { home });
      expect(full.code, full.stderr).toBe(0);
      expect(JSON.parse(full.stdout).answer).toEqual({ action: "accept", content: JSON.parse(answer) });
      // required: ["__proto__", "constructor"]: Object.prototype is not an answer to __proto__.
      const missing = await run(["call", "ask", "--input", '{"constructor":true}', "-s", url], { home });
      expectError(missing, 6, /does not fit the requested form \(expected __proto__: string; constructor: boolean; prototype\?: string\)/);
    });
  });

  it("proto-field (v1): the SDK drops the __proto__ field from the request, so the answer cannot fit its required list: exit 6, nothing sent half-answered", async () => {
    await withHttp("proto-field", "v1", async ({ url }) => {
      const result = await run(["call", "ask", "--input", '{"__proto__":"p","constructor":true}', "-s", url], { home: tempHome() });
      expectError(result, 6, /does not fit the requested form/);
    });
  });

  it("over stdio, through the broker: deep tool schemas (v1) are exit 4, a __proto__ input key (v2) is answered", async () => {
    const home = tempHome();
    const deep = await run(["call", "deep_in", "--stdio", hostileStdio("deep-schema", "v1")], { home });
    expectError(deep, 4, /nests more than 64 levels deep/);
    const proto = await run(["call", "ask", "--input", '{"ok":true}', "--stdio", hostileStdio("proto-key", "v2")], { home });
    expect(proto.code, proto.stderr).toBe(0);
    expect(JSON.parse(proto.stdout).keys).toEqual(["__proto__"]);
  });
});
