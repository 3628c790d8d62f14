// The client's duties the conformance suite checks, shown against our own hostile server
// (test/servers/hostile-server.ts): form defaults applied to --input answers (SEP-1034, both generations), and on
// 2026-07-28 over HTTP the Mcp-Param-* headers mirrored from x-mcp-header, and a tool with an invalid declaration
// left out of `tools` and refused by `call` (SEP-2243). The suite's scenarios: conformance/run-client-scenarios.sh.
import { describe, expect, it } from "vitest";
import { tempHome } from "../helpers/cli.js";
import { runInProcess } from "../helpers/context.js";
import { BOTH, expectError, withHttp } from "../helpers/hostile.js";

describe("client duties", { timeout: 60_000 }, () => {
  for (const generation of BOTH) {
    it(`form-defaults (${generation}): a field the --input answer leaves out takes the form's default; one it gives wins`, async () => {
      await withHttp("form-defaults", generation, async ({ url }) => {
        const run = await runInProcess(["call", "defaults_ask", "--input", '{"name":"Grace"}', "-s", url], {
          home: tempHome(),
        });
        expect(run.code, run.stderr).toBe(0);
        expect(JSON.parse(run.stdout).answer).toEqual({
          action: "accept",
          content: { name: "Grace", count: 3, level: "high", loud: true },
        });
      });
    });
  }

  it("param-headers (v2): each x-mcp-header argument goes out as its Mcp-Param-* header, encoded; others do not", async () => {
    await withHttp("param-headers", "v2", async ({ url }) => {
      const home = tempHome();
      const run = await runInProcess(
        ["call", "headers", "region= eu west", "count=7", "loud=false", "note=secret", "-s", url],
        { home },
      );
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout)).toEqual({
        "mcp-param-region": `=?base64?${Buffer.from(" eu west").toString("base64")}?=`, // edge spaces: Base64
        "mcp-param-count": "7",
        "mcp-param-loud": "false",
      });
      // An argument not given has no header.
      const some = await runInProcess(["call", "headers", "region=eu-west", "-s", url], { home });
      expect(some.code, some.stderr).toBe(0);
      expect(JSON.parse(some.stdout)).toEqual({ "mcp-param-region": "eu-west" });
    });
  });

  it("param-headers (v2): a tool declaring x-mcp-header on a number is left out of tools and refused by call (exit 2)", async () => {
    await withHttp("param-headers", "v2", async ({ url }) => {
      const home = tempHome();
      const tools = await runInProcess(["tools", "-s", url], { home });
      expect(tools.code, tools.stderr).toBe(0);
      expect(tools.stdout).toMatch(/^\s+headers\b/m);
      expect(tools.stdout).not.toMatch(/bad_header/);
      const call = await runInProcess(["call", "bad_header", "score=1", "-s", url], { home });
      expectError(call, 2, /tool bad_header is not called: its inputSchema declares an invalid x-mcp-header/);
    });
  });
});
