// Schemas that attack: the CLI against test/servers/hostile-server.ts serving schemas and questions built to
// freeze, crash or mislead a client: a catastrophic regular expression in an outputSchema, an inputSchema or a form;
// schemas nested 20,000 levels deep; forms of 10,000 and 400,000 fields; input keys and form fields named __proto__,
// constructor and prototype; input_required with nothing asked. Each ends with the documented exit code and one
// clear line. The catastrophic patterns run the binary, with a hang-only bound (HANG_MS): there the freeze was the
// defect (2^40 backtracking steps take hours), it is synchronous, and only a process can be stopped from outside
// (in-process it would stall the test runner itself). The rest run in-process (a depth or a width is refused by a
// bound, not left to a freeze; a stack overflow would be a thrown error, seen in the output), under the same
// hang-only bound (longer for the forms of 16 MB, whose reading alone took 45 s at a load of 20 on two cores). How
// fast these end is the bench's to say.
import { describe, expect, it } from "vitest";
import { events, runCli, tempHome, type CliResult } from "../helpers/cli.js";
import { runInProcess } from "../helpers/context.js";
import { hostileStdio } from "../helpers/servers.js";
import { BOTH, expectClean, expectError, withHttp } from "../helpers/hostile.js";

/**
 * A hang-only bound: far above what any of these commands takes, even on a loaded machine (45 s was reached by a
 * question's answer beside the 16 MB forms at a load of 20).
 */
const HANG_MS = 90_000;

/** The binary, stopped (and the test failed) only by a real hang: for a case whose defect was a synchronous freeze. */
const runBinary = (args: string[], options: { home: string }): Promise<CliResult> =>
  runCli(args, { timeoutMs: HANG_MS, ...options });

/** In-process, failed only by a real hang (HANG_MS unless given). */
const runHostile = (
  args: string[],
  options: { home: string; timeoutMs?: number; env?: Record<string, string> },
): Promise<CliResult> => runInProcess(args, { timeoutMs: HANG_MS, ...options });

const REDOS_TEXT = `${"a".repeat(40)}b`; // ^(a+)+$ against it: 2^40 steps on a backtracking engine

// Each case has its server and home of its own: side by side, as most of them wait on a server or a process.
describe.concurrent("schemas that attack", { timeout: 300_000 }, () => {
  // First, the longest (the forms of 16 MB): they start before the rest, not after them.
  for (const generation of BOTH) {
    // V1: refused before the SDK parses the request (its parse refused the deep form unseen, and spent 8 CPU-s on
    // the wide one); the server gets an error reply.
    it(`deep-form (${generation}): a question whose requestedSchema nests 20,000 levels is refused unanswered, exit 4 naming the bound`, async () => {
      await withHttp("deep-form", generation, async ({ url }) => {
        const result = await runHostile(["call", "deep_ask", "--input", "{}", "-s", url], { home: tempHome() });
        expectError(
          result,
          4,
          /mcp-task will not show or fill the form of a question from the server: it nests more than 64 levels deep/,
        );
      });
    });

    it(
      `wide-form (${generation}): a question of 400,000 fields (16 MB) is refused unanswered, exit 4`,
      async () => {
        await withHttp(
          "wide-form",
          generation,
          async ({ url }) => {
            // A process of its own: reading 16 MB holds its event loop for seconds, which in-process would stall every
            // other case of this file running beside it in the worker (their timers fired as "no answer within 60 s").
            const result = await runCli(["call", "wide_ask", "--input", "{}", "-s", url], {
              home: tempHome(),
              timeoutMs: 3 * HANG_MS, // hang-only: 16 MB to read on a loaded machine
            });
            expectError(result, 4, /it has 400000 fields \(limit 100\)/);
            expect(result.stdout).toBe(""); // nothing answered
          },
          "--fields",
          "400000",
        );
      },
      4 * HANG_MS,
    );
  }

  for (const generation of BOTH) {
    it(`redos-output (${generation}): an outputSchema pattern ^(a+)+$ against 40 a's and a b is checked in linear time: a warning, exit 0, nothing frozen`, async () => {
      await withHttp("redos-output", generation, async ({ url }) => {
        const home = tempHome();
        // The JSON and the text call side by side (two tasks).
        const [json, text] = await Promise.all([
          runBinary(["call", "redos", "--json", "-s", url], { home }),
          runBinary(["call", "redos", "-s", url], { home }),
        ]);
        expect(json.code, json.stderr).toBe(0);
        expectClean(json);
        const result = events(json.stdout).at(-1)!;
        expect(result).toMatchObject({
          type: "result",
          status: "completed",
          result: { structuredContent: { code: REDOS_TEXT } },
        });
        expect(result.outputSchemaError).toMatch(/must match pattern "\^\(a\+\)\+\$"/);
        expect(events(json.stdout).filter((event) => event.type === "result")).toHaveLength(1);
        expect(text.code, text.stderr).toBe(0);
        expect(text.stderr).toMatch(
          /^warning: the result does not match the tool's outputSchema: data\/code must match pattern/m,
        );
        expect(text.stdout).toContain(REDOS_TEXT);
      });
    });

    it(`redos-input (${generation}): arguments checked against an inputSchema pattern ^(a+)+$ end at once with exit 2`, async () => {
      await withHttp("redos-input", generation, async ({ url }) => {
        const result = await runBinary(["call", "redos_in", `code=${REDOS_TEXT}`, "-s", url], { home: tempHome() });
        expectError(result, 2, /the arguments do not fit redos_in's inputSchema: data\/code must match pattern/);
        expect(result.stdout).toBe(""); // nothing called
      });
    });

    it(`deep-schema (${generation}): tool schemas nested 20,000 levels deep are exit 4 naming the tool and the bound, on call and tools`, async () => {
      await withHttp("deep-schema", generation, async ({ url }) => {
        const home = tempHome();
        const [call, tools] = await Promise.all([
          runHostile(["call", "deep_in", "-s", url], { home }),
          runHostile(["tools", "--json", "-s", url], { home }),
        ]);
        expectError(
          call,
          4,
          /mcp-task will not process tool deep_(out|in)'s (output|input)Schema from the server: it nests more than 64 levels deep/,
        );
        expect(call.stdout).toBe(""); // nothing called
        expect(tools.code).toBe(4);
        expectClean(tools);
        expect(events(tools.stdout).at(-1)).toMatchObject({
          type: "error",
          exitCode: 4,
          message: expect.stringMatching(/nests more than 64 levels deep/),
        });
      });
    });

    it(`wide-form (${generation}): a question of 10,000 fields is refused unanswered with exit 4 naming the bound`, async () => {
      await withHttp("wide-form", generation, async ({ url }) => {
        const result = await runHostile(["call", "wide_ask", "--input", "{}", "-s", url], { home: tempHome() });
        expectError(
          result,
          4,
          /mcp-task will not show or fill the form of a question from the server: it has 10000 fields \(limit 100\)/,
        );
        expect(result.stdout).toBe(""); // nothing answered
      });
    });

    it(`proto-field (${generation}): __proto__=1 and --args {"__proto__":...} reach the tool as arguments, with constructor beside them`, async () => {
      await withHttp("proto-field", generation, async ({ url }) => {
        const home = tempHome();
        const [pairs, args] = await Promise.all([
          runHostile(["call", "echo", "__proto__=1", "constructor=2", "prototype=x", "-s", url], { home }),
          runHostile(["call", "echo", "--args", '{"__proto__":{"polluted":true}}', "n=3", "-s", url], { home }),
        ]);
        expect(pairs.code, pairs.stderr).toBe(0);
        expect(JSON.parse(pairs.stdout)).toEqual({
          keys: ["__proto__", "constructor", "prototype"],
          args: JSON.parse('{"__proto__":1,"constructor":2,"prototype":"x"}'),
        });
        expect(args.code, args.stderr).toBe(0);
        expect(JSON.parse(args.stdout)).toEqual({
          keys: ["__proto__", "n"],
          args: JSON.parse('{"__proto__":{"polluted":true},"n":3}'),
        });
      });
    });
  }

  it("redos-input (v2): an --input answer checked against a form's pattern ^(a+)+$ is exit 6 at once", async () => {
    // (V1: the SDK's own parse of the elicitation request drops `pattern`, so the answer is not checked there.)
    await withHttp("redos-input", "v2", async ({ url }) => {
      const result = await runBinary(
        ["call", "redos_ask", "--input", JSON.stringify({ code: REDOS_TEXT }), "-s", url],
        { home: tempHome() },
      );
      expectError(result, 6, /the --input answer does not fit the requested form \(expected code: string\)/);
      expect(result.stdout).toBe(""); // nothing answered
    });
  });

  it("proto-key (v2): a question under the key __proto__ is seen: exit 6 naming it in CI, answered with --input", async () => {
    await withHttp("proto-key", "v2", async ({ url }) => {
      const home = tempHome();
      const [unanswered, answered] = await Promise.all([
        runHostile(["call", "ask", "-s", url], { home }),
        runHostile(["call", "ask", "--input", '{"ok":true}', "-s", url], { home }),
      ]);
      expectError(unanswered, 6, /input required and no answer given: proto key\?/);
      expect(unanswered.stdout).toBe(""); // exit 6 at once: nothing waited for (a wait would trip HANG_MS)
      expect(answered.code, answered.stderr).toBe(0);
      expect(JSON.parse(answered.stdout)).toEqual({
        keys: ["__proto__"],
        answer: { action: "accept", content: { ok: true } },
      });
    });
  });

  it("empty-input-requests (v2): input_required with nothing asked ends with exit 4 after 10 reads and MCP_TASK_IGNORED_WAIT (5 s), not a wait for ever", async () => {
    await withHttp("empty-input-requests", "v2", async ({ url }) => {
      const home = tempHome();
      // Without an answer (CI) and with one: the same bounded end. (Side by side: each waits its time.) The bound's
      // time part is shortened to 1 s (MCP_TASK_IGNORED_WAIT; the same check as the 5 s default): its 10 reads remain.
      const env = { MCP_TASK_IGNORED_WAIT: "1s" };
      const results = await Promise.all(
        [[], ["--input", '{"ok":true}']].map((args) => runHostile(["call", "ask", ...args, "-s", url], { home, env })),
      );
      for (const result of results) {
        expectError(
          result,
          4,
          /the server says the task needs input but asks no question \(input_required with an empty inputRequests, for \d+ s\)/,
        );
        // Not for ever (a real hang trips HANG_MS), and not before the bound's time (1 s here) either.
        expect(Number(/for (\d+) s\)/.exec(result.stderr)?.[1])).toBeGreaterThanOrEqual(1);
      }
    });
  });

  it("proto-field (v2): form fields named __proto__, constructor and prototype are answered from --input as own keys; a missing required __proto__ is exit 6", async () => {
    await withHttp("proto-field", "v2", async ({ url }) => {
      const home = tempHome();
      const answer = '{"__proto__":"p","constructor":true,"prototype":"q"}';
      const [full, missing] = await Promise.all([
        runHostile(["call", "ask", "--input", answer, "-s", url], { home }),
        runHostile(["call", "ask", "--input", '{"constructor":true}', "-s", url], { home }),
      ]);
      expect(full.code, full.stderr).toBe(0);
      expect(JSON.parse(full.stdout).answer).toEqual({ action: "accept", content: JSON.parse(answer) });
      // required: ["__proto__", "constructor"]: Object.prototype is not an answer to __proto__.
      expectError(
        missing,
        6,
        /does not fit the requested form \(expected __proto__: string; constructor: boolean; prototype\?: string\)/,
      );
    });
  });

  it("proto-field (v2): respond --template keeps a field named __proto__ as a field of the skeleton", async () => {
    await withHttp("proto-field", "v2", async ({ url }) => {
      const home = tempHome();
      const call = await runHostile(["call", "ask", "--detach", "-s", url], { home });
      expect(call.code, call.stderr).toBe(0);
      const taskId = call.stdout.trim();
      let template = await runHostile(["respond", "--template", taskId], { home });
      for (let i = 0; template.code !== 0 && i < 50; i++) {
        await new Promise((r) => setTimeout(r, 100));
        template = await runHostile(["respond", "--template", taskId], { home });
      }
      expect(template.code, template.stderr).toBe(0);
      const skeleton = JSON.parse(template.stdout) as Record<string, unknown>;
      expect(Object.keys(skeleton).sort()).toEqual(["__proto__", "constructor", "prototype"]);
      expect(Object.getPrototypeOf(skeleton)).toBe(Object.prototype);
    });
  });

  it("proto-field (v1): the SDK drops the __proto__ field from the request, so the answer cannot fit its required list: exit 6, nothing sent half-answered", async () => {
    await withHttp("proto-field", "v1", async ({ url }) => {
      const result = await runHostile(["call", "ask", "--input", '{"__proto__":"p","constructor":true}', "-s", url], {
        home: tempHome(),
      });
      expectError(result, 6, /does not fit the requested form/);
    });
  });

  it("over stdio, through the broker: deep tool schemas (v1) are exit 4, a __proto__ input key (v2) is answered", async () => {
    const home = tempHome();
    // Side by side: two servers, two brokers.
    const [deep, proto] = await Promise.all([
      runHostile(["call", "deep_in", "--stdio", hostileStdio("deep-schema", "v1")], { home }),
      runHostile(["call", "ask", "--input", '{"ok":true}', "--stdio", hostileStdio("proto-key", "v2")], { home }),
    ]);
    expectError(deep, 4, /nests more than 64 levels deep/);
    expect(proto.code, proto.stderr).toBe(0);
    expect(JSON.parse(proto.stdout).keys).toEqual(["__proto__"]);
  });
});
