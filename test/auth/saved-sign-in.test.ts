// The saved sign-in (src/auth/store.ts, record.ts, forget.ts) against a real authorization server
// (test/servers/oauth-server.ts: refresh tokens are one-use, each refresh rotates it): commands at once renewing
// expired tokens keep the sign-in (every write under the lock, none before it); what a sign-in saves is bounded
// (unknown metadata dropped; a token or client id past MAX_CREDENTIAL_CHARS refused, exit 8), so no command is
// then refused a record mcp-task wrote; `logout` removes a record it cannot read; `server remove` forgets the
// server's sign-in unless another saved server has its URL, and the URL saved again needs a sign-in.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MAX_AUTH_FILE_BYTES, MAX_CREDENTIAL_CHARS } from "../../src/limits.js";
import { runCli, tempHome, type CliResult } from "../helpers/cli.js";
import { runInProcess } from "../helpers/context.js";
import { APPROVE_BROWSER, useOAuthServer } from "../helpers/oauth.js";

const oauth = useOAuthServer(["/test/hostile", "/test/ttl?ms=3600000"]);

/** How many refreshes so far presented a refresh token already used (the server rotates them). */
const spentPresented = async () =>
  ((await (await fetch(new URL("/test/stats", oauth.url))).json()) as { spentRefreshTokensPresented: number })
    .spentRefreshTokensPresented;
const run = (args: string[], home: string, env: Record<string, string> = { BROWSER: "" }) =>
  runInProcess(args, { home, env, timeoutMs: 90_000 });
/** The same as a process: commands at once are processes, each with its own view of the record and its own lock. */
const runProcess = (args: string[], home: string, env: Record<string, string> = { BROWSER: "" }) =>
  runCli(args, { home, env, timeoutMs: 90_000 });
const login = (home: string, name = "demo") => run(["login", name], home, { BROWSER: APPROVE_BROWSER });

/** The saved sign-in files of a home (none before a sign-in is saved: a refused one writes nothing). */
const records = (home: string) =>
  (existsSync(join(home, "auth")) ? readdirSync(join(home, "auth")) : [])
    .filter((name) => name.endsWith(".json"))
    .map((name) => join(home, "auth", name));

describe("the auth store", () => {
  it("commands at once, each renewing an expired token whose refresh token rotates, never lose the sign-in", async () => {
    const home = tempHome();
    expect((await run(["server", "add", "demo", "--url", oauth.url], home)).code).toBe(0);
    expect((await login(home)).code).toBe(0);
    // Rounds of commands at once, every access token expired as each round begins: all of a round's commands renew
    // together, one after the other under the lock, each refresh rotating the refresh token. Expired between rounds
    // only, never under a command on its way (a token's short lifetime, or an expiry at any moment, let a command on
    // a loaded machine see its fresh token expire more than MAX_TOKEN_RENEWALS times: refused for want of speed).
    const spentBefore = await spentPresented();
    const WORKERS = 6;
    const ROUNDS = 3;
    const results: CliResult[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      await oauth.control("/test/expire");
      results.push(
        ...(await Promise.all(Array.from({ length: WORKERS }, () => runProcess(["tools", "-s", "demo"], home)))),
      );
    }
    expect(results).toHaveLength(WORKERS * ROUNDS);
    // None refused, and no process ever presented a refresh token already spent (what a stale record written back
    // over fresh tokens makes the next refresh do).
    const refused = results.filter((result) => result.code !== 0).map((result) => result.stderr);
    expect({ refused, spent: (await spentPresented()) - spentBefore }).toEqual({ refused: [], spent: 0 });
    // The sign-in survived: the saved refresh token is the live one (a spent one is invalid_grant, then exit 8).
    await oauth.control("/test/expire");
    const after = await run(["tools", "-s", "demo"], home);
    expect(after.code, after.stderr).toBe(0);
  }, 600_000); // hang-only: 18 commands, six at a time, on a loaded machine

  it("a sign-in saves only what mcp-task reads: 600 KB of unknown metadata is dropped, and later commands read the record", async () => {
    const home = tempHome();
    await run(["server", "add", "demo", "--url", oauth.url], home);
    await oauth.control("/test/hostile?mode=metadata-extra");
    const signedIn = await login(home);
    expect(signedIn.code, signedIn.stderr).toBe(0);
    const [record] = records(home);
    expect(statSync(record!).size).toBeLessThan(MAX_AUTH_FILE_BYTES);
    const text = readFileSync(record!, "utf8");
    expect(text).not.toContain("x_unknown");
    expect(JSON.parse(text).discovery.authorizationServerMetadata.token_endpoint).toMatch(/\/token$/);
    const tools = await run(["tools", "-s", "demo"], home);
    expect(tools.code, tools.stderr).toBe(0);
  });

  it("a token or a client id past MAX_CREDENTIAL_CHARS is refused at sign-in (exit 8), and nothing is saved that a command would refuse", async () => {
    for (const [mode, what] of [
      ["token-huge", "access token"],
      ["client-huge", "client id"],
    ] as const) {
      const home = tempHome();
      await run(["server", "add", "demo", "--url", oauth.url], home);
      await oauth.control(`/test/hostile?mode=${mode}`);
      const refused = await login(home);
      expect(refused.code, refused.stderr).toBe(8);
      expect(refused.stderr).toContain(`its ${what} is 300000 characters long (at most ${MAX_CREDENTIAL_CHARS}`);
      // Every command after it: a sign-in needed (exit 8), never a record mcp-task wrote and then refuses (exit 2).
      await oauth.control("/test/hostile");
      const tools = await run(["tools", "-s", "demo"], home);
      expect(tools.code, tools.stderr).toBe(8);
      for (const path of records(home)) expect(statSync(path).size).toBeLessThan(MAX_AUTH_FILE_BYTES);
    }
  });

  it("logout removes a saved sign-in it cannot read, and says so", async () => {
    const home = tempHome();
    await run(["server", "add", "demo", "--url", oauth.url], home);
    expect((await login(home)).code).toBe(0);
    const [record] = records(home);
    writeFileSync(record!, "x".repeat(MAX_AUTH_FILE_BYTES + 1));
    const logout = await run(["logout", "demo"], home);
    expect(logout.code, logout.stderr).toBe(0);
    expect(logout.stderr).toMatch(/removed the saved sign-in of demo, which could not be read \(larger than 256 KiB/);
    expect(records(home)).toHaveLength(0);
    expect((await run(["tools", "-s", "demo"], home)).code).toBe(8);
  });

  it("server remove forgets the sign-in unless another saved server has the URL; the URL saved again needs a sign-in", async () => {
    const home = tempHome();
    await run(["server", "add", "a", "--url", oauth.url], home);
    await run(["server", "add", "b", "--url", oauth.url], home);
    expect((await login(home, "a")).code).toBe(0);
    const kept = await run(["server", "remove", "b"], home);
    expect(kept.code, kept.stderr).toBe(0);
    expect(kept.stderr).toContain(`kept the sign-in for ${oauth.url}: server a has the same URL`);
    expect((await run(["tools", "-s", "a"], home)).code).toBe(0);
    const forgot = await run(["server", "remove", "a"], home);
    expect(forgot.code, forgot.stderr).toBe(0);
    expect(forgot.stderr).toMatch(/forgot the sign-in of a \(its tokens were not revoked\)/);
    expect(records(home)).toHaveLength(0);
    await run(["server", "add", "c", "--url", oauth.url], home);
    const again = await run(["tools", "-s", "c"], home);
    expect(again.code, again.stderr).toBe(8);

    // A name moved to another URL leaves its old URL's sign-in to no saved server: saved again, that URL signs in.
    expect((await login(home, "c")).code).toBe(0);
    await run(["server", "add", "c", "--url", `${oauth.url}/elsewhere`, "--force"], home);
    const added = await run(["server", "add", "d", "--url", oauth.url], home);
    expect(added.stderr).toContain(`forgot a sign-in left for ${oauth.url} by a server no longer saved`);
    expect((await run(["tools", "-s", "d"], home)).code).toBe(8);
  });
});
