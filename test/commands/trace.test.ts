// The wire trace (--trace, --trace=FILE, MCP_TASK_TRACE) of the real CLI against real servers: every JSON-RPC message
// in and out and each HTTP exchange; credentials redacted; server text escaped before a terminal sees it.
import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempHome } from "../helpers/cli.js";
import { runInProcess } from "../helpers/context.js";
import { startHostileHttp, startV2Http, type RunningServer } from "../helpers/servers.js";

let server: RunningServer;
beforeAll(async () => {
  server = await startV2Http();
});
afterAll(async () => {
  await server?.stop();
});

describe("wire trace", { timeout: 60_000 }, () => {
  it("--trace: readable lines on stderr, both directions and the HTTP exchanges, the saved credential redacted", async () => {
    const home = tempHome();
    const add = [
      "server",
      "add",
      "traced",
      "--url",
      server.url,
      "--header",
      "Authorization: Bearer ${env:TRACE_TOKEN}",
    ];
    expect((await runInProcess(add, { home })).code).toBe(0);
    const env = { TRACE_TOKEN: "tok-very-secret-1234" };
    // Before the command, and not eating the word after it.
    const run = await runInProcess(["--trace", "call", "task_complete", "ms=300", "-s", "traced"], { home, env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/→ traced \{"jsonrpc":"2.0","id":\S+,"method":"tools\/call"/);
    expect(run.stderr).toMatch(/← traced \{"jsonrpc":"2.0","id":/);
    expect(run.stderr).toMatch(/⇄ traced POST http:\/\/127\.0\.0\.1:\d+\/mcp 200 /);
    expect(run.stderr).toMatch(/> authorization: \[redacted\]/);
    expect(run.stderr).not.toContain("tok-very-secret-1234");
    expect(run.stdout).toMatch(/task_complete: done/);
  });

  it("--trace=FILE and MCP_TASK_TRACE: NDJSON, one event a line, private to the user", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mcp-task-trace-"));
    for (const [args, env, file] of [
      [["tools", "-s", server.url, `--trace=${join(dir, "a.ndjson")}`], {}, "a.ndjson"],
      [["tools", "-s", server.url], { MCP_TASK_TRACE: join(dir, "b.ndjson") }, "b.ndjson"],
    ] as const) {
      const run = await runInProcess([...args], { home: tempHome(), env: { ...env } });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toBe("");
      const path = join(dir, file);
      expect(statSync(path).mode & 0o777).toBe(0o600);
      const lines = readFileSync(path, "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line));
      expect(lines.every((e) => typeof e.t === "string" && ["out", "in", "http"].includes(e.dir))).toBe(true);
      expect(lines.some((e) => e.dir === "out" && e.message.method === "tools/list")).toBe(true);
      expect(lines.some((e) => e.dir === "in" && Array.isArray(e.message.result?.tools))).toBe(true);
      expect(lines.some((e) => e.dir === "http" && e.status === 200)).toBe(true);
    }
  });

  it("a hostile server's escape sequences reach the trace escaped, never raw", async () => {
    const hostile = await startHostileHttp("escapes", "v2");
    try {
      const run = await runInProcess(["tools", "-s", hostile.url, "--trace"], { home: tempHome() });
      expect(run.stderr).toMatch(/← /);
      expect(run.stderr).toMatch(/\\u001b|\\u009b/);
      // eslint-disable-next-line no-control-regex
      expect(run.stderr).not.toMatch(/[\u001b\u009b\u0007]/);
    } finally {
      await hostile.stop();
    }
  });
});
