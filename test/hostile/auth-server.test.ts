// Signing in against a hostile authorization server (test/servers/oauth-hostile.ts, modes of
// test/servers/oauth-server.ts): every body on the sign-in path is read within MAX_AUTH_BODY_BYTES after
// decompression (a gzip bomb as token response or as metadata ends the sign-in, named, at a bounded cost); each
// request is timed (MCP_TASK_AUTH_TIMEOUT, set small here), the token request and a refresh inside a command too,
// and the timeout names the authorization server; a token an HTTP header cannot carry, a malformed token response
// and protected resource metadata naming no URL each end the sign-in with one clear line.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliEnv, exitedAndRead, tempHome } from "../helpers/cli.js";
import { runInProcess } from "../helpers/context.js";
import { APPROVE_BROWSER, useOAuthServer } from "../helpers/oauth.js";
import { ROOT } from "../helpers/servers.js";

const oauth = useOAuthServer(["/test/hostile"]);

/**
 * The sign-in's time limit in these tests: shorter than the real one (10 s) and than the MCP request timeout, so that
 * no test waits the real one; long enough that only the endpoint made to hang trips it on a loaded machine (at 1 s, a
 * loaded run timed out the MCP server's own first request).
 */
const SHORT = { MCP_TASK_AUTH_TIMEOUT: "4s" };
/** A command in-process; the gzip bomb's sign-in runs as a process (measuredLogin), whose peak memory is the point. */
const run = (args: string[], home: string, env: Record<string, string> = {}) =>
  runInProcess(args, { home, env: { BROWSER: APPROVE_BROWSER, ...env }, timeoutMs: 60_000 });

async function savedHome(): Promise<string> {
  const home = tempHome();
  expect((await run(["server", "add", "demo", "--url", oauth.url], home)).code).toBe(0);
  return home;
}

/** `login demo` under /usr/bin/time: its exit, its stderr and its peak resident memory in KiB. */
async function measuredLogin(home: string): Promise<{ code: number | null; stderr: string; maxRssKb: number }> {
  const report = join(mkdtempSync(join(tmpdir(), "mcp-task-rss-")), "time");
  const child = spawn(
    "/usr/bin/time",
    ["-f", "%M", "-o", report, process.execPath, join(ROOT, "bin/mcp-task.js"), "login", "demo"],
    { env: cliEnv(home, { BROWSER: APPROVE_BROWSER }), stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  child.stderr!.on("data", (chunk) => (stderr += chunk));
  const code = await exitedAndRead(child);
  return { code, stderr, maxRssKb: Number(readFileSync(report, "utf8").trim().split("\n").pop()) };
}

describe("a hostile authorization server", () => {
  it("a gzip bomb as token response or as metadata ends the sign-in at MAX_AUTH_BODY_BYTES, naming the endpoint (exit 4), without inflating it", async () => {
    for (const [mode, endpoint] of [
      ["token-bomb", "/token"],
      ["metadata-bomb", "/.well-known/oauth-authorization-server"],
    ] as const) {
      const home = await savedHome();
      await oauth.control(`/test/hostile?mode=${mode}`);
      const login = await measuredLogin(home);
      expect(login.code, login.stderr).toBe(4);
      expect(login.stderr).toMatch(
        new RegExp(
          `${endpoint.replace(/[./]/g, "\\$&")} sent more than 1 MiB \\(MAX_AUTH_BODY_BYTES, counted decompressed\\)`,
        ),
      );
      // The bomb is 256 MiB inflated: read whole, it alone would take more than this.
      expect(login.maxRssKb).toBeLessThan(200 * 1024);
    }
  });

  it("login gives up on a token endpoint that never answers after MCP_TASK_AUTH_TIMEOUT, naming it (exit 4)", async () => {
    const home = await savedHome();
    await oauth.control("/test/hostile?mode=token-hang");
    const login = await run(["login", "demo"], home, SHORT);
    expect(login.code, login.stderr).toBe(4);
    expect(login.stderr).toMatch(/the authorization server did not answer http:\/\/localhost:\d+\/token within 4 s/);
  });

  it("a refresh inside a command that times out is the authorization server's timeout, not the MCP server's", async () => {
    const home = await savedHome();
    expect((await run(["login", "demo"], home)).code).toBe(0);
    await oauth.control("/test/expire");
    await oauth.control("/test/hostile?mode=token-hang");
    const tools = await run(["tools", "-s", "demo"], home, { ...SHORT, BROWSER: "" });
    expect(tools.code, tools.stderr).toBe(4);
    expect(tools.stderr).toMatch(/the authorization server did not answer http:\/\/localhost:\d+\/token within 4 s/);
    expect(tools.stderr).not.toMatch(/probe/i);
  });

  it("a token an HTTP header cannot carry (ESC, CR LF) is refused at sign-in with exit 8", async () => {
    const home = await savedHome();
    await oauth.control("/test/hostile?mode=token-control");
    const login = await run(["login", "demo"], home);
    expect(login.code, login.stderr).toBe(8);
    expect(login.stderr).toMatch(/its access token holds a space, a control character or a non-ASCII character/);
    expect(login.stderr).not.toContain("\u001b");
  });

  it("a malformed token response is one line naming the endpoint and the field, no schema dump", async () => {
    const home = await savedHome();
    await oauth.control("/test/hostile?mode=token-malformed");
    const login = await run(["login", "demo"], home);
    expect(login.code, login.stderr).toBe(8);
    const error = login.stderr.split("\n").filter((line) => line.startsWith("mcp-task: error:"));
    expect(error, login.stderr).toHaveLength(1);
    expect(error[0]).toMatch(
      /the authorization server's answer \(from http:\/\/localhost:\d+\/token\) is not valid OAuth: access_token: /,
    );
    expect(login.stderr).not.toMatch(/"expected"|"path"|"code"/);
  });

  it("protected resource metadata naming an authorization server that is not a URL: the sign-in stops, naming it", async () => {
    const home = await savedHome();
    await oauth.control("/test/hostile?mode=as-invalid-url");
    const login = await run(["login", "demo"], home);
    expect(login.code, login.stderr).toBe(8);
    expect(login.stderr).toContain('names an authorization server that is not an http(s) URL: "http://[::1"');
  });
});
