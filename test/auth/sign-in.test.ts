// Signing in (OAuth 2.1) against a real authorization server: test/servers/oauth-server.ts, the official SDK's (v1)
// authorization server router and bearer middleware with its demo provider (dynamic client registration, PKCE,
// approval at once; refresh and revocation added) in front of a V1 tasks server. `login` stores a token that later
// commands use; without one, a pipeline ends with exit 8 and the hint; an expired token is refreshed once mid-watch;
// a revoked one ends a followed task with exit 8 and the handle intact; the token never appears in any file of the
// home but the token store, nor in any output (export included). The commands run in-process (runInProcess: the
// real Context over the home, its output redacted by the map the product fills, as the process's streams are; a V1
// task's session keeper is a process either way); the binary runs what only a process shows: a pipeline's exit
// status, commands at once (each its own process, its own view of the record and its own lock), and Ctrl-C.
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DashboardModel } from "../../src/ui/model.js";
import { cliEnv, runCli, startCli, tempHome, type CliResult } from "../helpers/cli.js";
import { runInProcess, testContext } from "../helpers/context.js";
import { ROOT, startListening, type RunningServer } from "../helpers/servers.js";
import { until } from "../helpers/until.js";

const OAUTH_SERVER = join(ROOT, "dist/test-servers/oauth-server.js");
const APPROVE = `${process.execPath} ${join(ROOT, "test/servers/approve-browser.mjs")}`;

let server: RunningServer;
let url: string;
/** Tell the test server that every access token has expired (refresh tokens still work), or that all are revoked. */
const control = (what: "expire" | "revoke" | "slow-token" | "step-up" | "step-up-off" | "cimd") =>
  fetch(new URL(`/test/${what}`, url), { method: "POST" }).then((r) => expect(r.status).toBe(204));

beforeAll(async () => {
  server = await startListening([OAUTH_SERVER], "oauth server");
  url = server.url;
});

afterAll(async () => {
  await server?.stop();
});

/** Every file under the home, with its text. */
function filesOf(dir: string): Array<[string, string]> {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .map((path) => [path, readFileSync(path, "utf8")] as [string, string]);
}

function tokenFile(home: string): string {
  const files = readdirSync(join(home, "auth")).filter((name) => name.endsWith(".json"));
  expect(files).toHaveLength(1);
  return join(home, "auth", files[0]!);
}

const noBrowser = { BROWSER: "" };

// hang-only: a test here runs up to a dozen commands, keepers and sign-ins; at a load of 16 the longest took ~50 s.
describe("sign-in", { timeout: 180_000 }, () => {
  const outputs: CliResult[] = [];
  /** A command in-process; its output kept, to check that none shows a token. */
  const run = async (args: string[], home: string, env: Record<string, string> = noBrowser) => {
    const result = await runInProcess(args, { home, env });
    outputs.push(result);
    return result;
  };
  /** The same as a process of its own (the binary). */
  const runProcess = async (args: string[], home: string, env: Record<string, string> = noBrowser) => {
    const result = await runCli(args, { home, env });
    outputs.push(result);
    return result;
  };

  it("without a token, a pipeline ends with exit 8 and the hint; login stores one that call and a followed task use", async () => {
    const home = tempHome();
    expect((await run(["server", "add", "demo", "--url", url], home)).code).toBe(0);
    // The binary's exit status in a pipeline.
    const refused = await runProcess(["tools", "-s", "demo"], home);
    expect(refused.code, refused.stderr).toBe(8);
    expect(refused.stderr).toMatch(/authorization required/);
    expect(refused.stderr).toMatch(/hint: sign in: mcp-task login demo/);
    const json = await run(["tools", "-s", "demo", "--json"], home);
    expect(json.code).toBe(8);
    expect(json.stdout + json.stderr).toMatch(/"code":\s*"auth_required"/);

    const login = await run(["login", "demo"], home, { BROWSER: APPROVE });
    expect(login.code, login.stderr).toBe(0);
    expect(login.stderr).toMatch(/signed in to demo/);
    const store = tokenFile(home);
    expect(statSync(store).mode & 0o777).toBe(0o600);
    expect(statSync(join(home, "auth")).mode & 0o777).toBe(0o700);
    const token = JSON.parse(readFileSync(store, "utf8")).tokens.access_token as string;
    expect(token.length).toBeGreaterThan(8);

    const tools = await run(["tools", "-s", "demo"], home);
    expect(tools.code, tools.stderr).toBe(0);
    // A task, followed to its end (over V1 HTTP: through the session's keeper, which signs in from the same store).
    const task = await run(["call", "work", "ms=300", "-s", "demo"], home);
    expect(task.code, task.stderr).toBe(0);
    expect(task.stdout).toMatch(/work done after 300 ms/);
    // A task that echoes the token (given as its argument: in its status message, its question and its result), kept
    // by the session's keeper too: redacted where it is written, and from what each command prints.
    const answer = '{"name":"n","count":1}';
    const echoed = await run(["call", "confirm", `item=${token}`, "-s", "demo", "--input", answer], home);
    expect(echoed.code, echoed.stderr).toBe(0);
    expect(echoed.stdout).toContain("[token]");
    const ids = [...(await run(["list", "--json"], home)).stdout.matchAll(/"taskId":\s*"([^"]+)"/g)].map((m) => m[1]!);
    expect(ids.length).toBeGreaterThan(1);
    for (const id of new Set(ids))
      for (const args of [
        ["export", id],
        ["get", id, "--json"],
        ["result", id],
      ])
        expect((await run(args, home)).code).toBe(0);
    expect((await run(["server", "logs", "demo", "--wire"], home)).code).toBe(0);

    // The token: in the token store and nowhere else, in no output.
    for (const [path, text] of filesOf(home)) if (path !== store) expect(text, path).not.toContain(token);
    for (const output of outputs) expect(output.stdout + output.stderr).not.toContain(token);

    // logout forgets it: the next command is refused again.
    const logout = await run(["logout", "demo"], home);
    expect(logout.code, logout.stderr).toBe(0);
    expect(logout.stderr).toMatch(/signed out of demo \(tokens revoked\)/);
    expect(readdirSync(join(home, "auth")).filter((name) => name.endsWith(".json"))).toHaveLength(0);
    expect((await run(["tools", "-s", "demo"], home)).code).toBe(8);
  });

  it("the dashboard follows a task on the signed-in server with the stored token, and never shows it", async () => {
    const home = tempHome();
    expect((await run(["server", "add", "demo", "--url", url], home)).code).toBe(0);
    expect((await run(["login", "demo"], home, { BROWSER: APPROVE })).code).toBe(0);
    const token = JSON.parse(readFileSync(tokenFile(home), "utf8")).tokens.access_token as string;
    const started = await run(["call", "work", "ms=1500", "--detach", "--json", "-s", "demo"], home);
    expect(started.code, started.stderr).toBe(0);
    const taskId = JSON.parse(started.stdout.split("\n")[0]!).taskId as string;
    const ctx = await testContext(home, { env: cliEnv(home, noBrowser) });
    const model = new DashboardModel(ctx);
    await model.start();
    try {
      await until(() => model.getState().rows.every((row) => row.summary.outcome), {
        hangMs: 60_000, // hang-only: a 1.5 s task followed to its end
        what: "the dashboard's rows to end",
      });
      const row = model.getState().rows.find((r) => r.summary.taskId === taskId)!;
      expect(model.handleOf(row.stem)!.outcome!.result!.content[0]!.text).toMatch(/work done after 1500 ms/);
    } finally {
      await model.close();
    }
    expect(ctx.out.stdout + ctx.out.stderr).not.toContain(token);
  });

  it("server add takes a client secret only as an environment reference", async () => {
    const home = tempHome();
    const literal = await run(
      ["server", "add", "ci", "--url", url, "--client-id", "x", "--client-secret", "s3cret"],
      home,
    );
    expect(literal.code).toBe(2);
    expect(literal.stderr).toMatch(/--client-secret takes an environment reference/);
    const ref = ["--client-secret", "${env:CI_SECRET}", "--grant", "client-credentials"];
    expect((await run(["server", "add", "ci", "--url", url, "--client-id", "x", ...ref], home)).code).toBe(0);
    const settings = readFileSync(join(home, "settings.json"), "utf8");
    expect(settings).toContain("${env:CI_SECRET}");
    expect(settings).not.toContain("s3cret");
  });

  it("a command meeting a 401 signs in on demand when a browser may be opened ($BROWSER), then goes on", async () => {
    const home = tempHome();
    await run(["server", "add", "demo", "--url", url], home);
    const call = await run(["call", "work", "ms=100", "-s", "demo"], home, { BROWSER: APPROVE });
    expect(call.code, call.stderr).toBe(0);
    expect(call.stderr).toMatch(/demo requires authorization: signing in/);
    expect(call.stdout).toMatch(/work done after 100 ms/);
  });

  it("a person slower at the browser than the handshake's probe waits: the sign-in is not timed by it, and the command goes on", async () => {
    const home = tempHome();
    await run(["server", "add", "demo", "--url", url], home);
    // The probe's bound is 5 s with a 5 s request timeout; the person approves after 6 s (process-timing: it waits
    // out the handshake's own bound). Before, the probe's timer ran through the sign-in: "the server did not answer
    // initialize within 60 s", after 5 s, and nothing signed in.
    const slow = join(home, "slow-browser.sh");
    writeFileSync(slow, `#!/bin/sh\nsleep 6\nexec ${APPROVE} "$@"\n`, { mode: 0o755 });
    const call = await run(["call", "work", "ms=100", "-s", "demo"], home, {
      BROWSER: slow,
      MCP_TASK_REQUEST_TIMEOUT: "5s",
    });
    expect(call.code, call.stderr).toBe(0);
    expect(call.stderr.match(/demo requires authorization: signing in/g)).toHaveLength(1);
    expect(call.stdout).toMatch(/work done after 100 ms/);
    // Signed in for later commands too.
    expect((await run(["tools", "-s", "demo"], home)).code).toBe(0);
  });

  it("a V1 task call refused for want of scope (403 insufficient_scope) in the session's keeper: the command signs in for the wider scope and the keeper calls again", async () => {
    const home = tempHome();
    await run(["server", "add", "demo", "--url", url], home);
    expect((await run(["login", "demo"], home, { BROWSER: APPROVE })).code).toBe(0);
    await control("step-up");
    try {
      // Nobody to sign in (no browser): exit 8, the hint, and nothing retried.
      const refused = await run(["call", "work", "ms=100", "-s", "demo"], home);
      expect(refused.code, refused.stderr).toBe(8);
      expect(refused.stderr).toMatch(/refused access \(HTTP 403\)/);
      const call = await run(["call", "work", "ms=100", "-s", "demo"], home, { BROWSER: APPROVE });
      expect(call.code, call.stderr).toBe(0);
      expect(call.stderr).toMatch(/demo asks for more access \(mcp tasks:write\): signing in again/);
      expect(call.stdout).toMatch(/work done after 100 ms/);
      expect(JSON.parse(readFileSync(tokenFile(home), "utf8")).tokens.scope).toBe("mcp tasks:write");
    } finally {
      await control("step-up-off");
    }
  });

  it("server add --client-metadata-url: where the authorization server supports them, that URL is the client id (nothing registered)", async () => {
    const home = tempHome();
    const plain = await run(
      ["server", "add", "demo", "--url", url, "--client-metadata-url", "http://x.example/c"],
      home,
    );
    expect(plain.code).toBe(2);
    expect(plain.stderr).toMatch(/--client-metadata-url must be an https URL with a path/);
    const document = "https://mcp-task.example/client-metadata.json";
    expect((await run(["server", "add", "demo", "--url", url, "--client-metadata-url", document], home)).code).toBe(0);
    await control("cimd");
    const login = await run(["login", "demo"], home, { BROWSER: APPROVE });
    expect(login.code, login.stderr).toBe(0);
    expect(JSON.parse(readFileSync(tokenFile(home), "utf8")).client.client_id).toBe(document);
    const tools = await run(["tools", "-s", "demo"], home);
    expect(tools.code, tools.stderr).toBe(0);
  });

  it("login --no-browser prints the address on stderr and waits for the browser to come back", async () => {
    const home = tempHome();
    await run(["server", "add", "demo", "--url", url], home);
    const login = startCli(["login", "demo", "--no-browser"], { home, env: { BROWSER: APPROVE } });
    const address = await new Promise<string>((resolve) => {
      let text = "";
      login.child.stderr!.on("data", (chunk: Buffer) => {
        text += chunk.toString();
        const match = /open this address in a browser: (\S+)/.exec(text);
        if (match) resolve(match[1]!);
      });
    });
    const page = await fetch(address); // the person opens it (the demo approves at once and redirects back)
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/You can close this tab/);
    expect(await login.exited).toBe(0);
  });

  it("an interrupted login (Ctrl-C while the browser is out) leaves the saved sign-in as it was: the next command uses the old tokens", async () => {
    const home = tempHome();
    await run(["server", "add", "demo", "--url", url], home);
    expect((await run(["login", "demo"], home, { BROWSER: APPROVE })).code).toBe(0);
    const before = readFileSync(tokenFile(home), "utf8");
    // login again; the person never comes back from the browser, and presses Ctrl-C.
    const login = startCli(["login", "demo", "--no-browser"], { home, env: noBrowser });
    await new Promise<void>((resolve) => {
      let text = "";
      login.child.stderr!.on("data", (chunk: Buffer) => {
        text += chunk.toString();
        if (/open this address in a browser/.test(text)) resolve();
      });
    });
    login.child.kill("SIGINT");
    expect(await login.exited).not.toBe(0);
    expect(readFileSync(tokenFile(home), "utf8")).toBe(before);
    const tools = await run(["tools", "-s", "demo"], home);
    expect(tools.code, tools.stderr).toBe(0);
  });

  it("a server saved as none signs in by its URL: on demand at a terminal or with $BROWSER, login <url> and logout <url>; in CI the hint names login <url>", async () => {
    const home = tempHome();
    const refused = await run(["tools", "-s", url], home);
    expect(refused.code, refused.stderr).toBe(8);
    expect(refused.stderr).toContain(`hint: sign in: mcp-task login ${url}`);
    const onDemand = await run(["tools", "-s", url], home, { BROWSER: APPROVE });
    expect(onDemand.code, onDemand.stderr).toBe(0);
    expect(onDemand.stderr).toContain(`${url} requires authorization: signing in`);
    const record = JSON.parse(readFileSync(tokenFile(home), "utf8"));
    expect(record.byUrl).toBe(true);
    const token = record.tokens.access_token as string;
    // Kept by URL: later commands (a V1 task through its session's keeper too) use it, with nobody to sign in.
    expect((await run(["tools", "-s", url], home)).code).toBe(0);
    const task = await run(["call", "work", "ms=300", "-s", url], home);
    expect(task.code, task.stderr).toBe(0);
    expect(task.stdout).toMatch(/work done after 300 ms/);
    const logout = await run(["logout", url], home);
    expect(logout.code, logout.stderr).toBe(0);
    expect(logout.stderr).toContain(`signed out of ${url} (tokens revoked)`);
    expect((await run(["tools", "-s", url], home)).code).toBe(8);
    const login = await run(["login", url], home, { BROWSER: APPROVE });
    expect(login.code, login.stderr).toBe(0);
    expect(login.stderr).toContain(`signed in to ${url}`);
    expect((await run(["tools", "-s", url], home)).code).toBe(0);
    // Saved later under a name, the server keeps that sign-in.
    const added = await run(["server", "add", "demo", "--url", url], home);
    expect(added.stderr).toContain(`demo keeps the sign-in made for ${url} by its URL`);
    expect((await run(["tools", "-s", "demo"], home)).code).toBe(0);
    for (const output of outputs) expect(output.stdout + output.stderr).not.toContain(token);

    // A sign-in a saved server left at a URL (its name moved elsewhere) is not used for that URL given alone.
    const other = tempHome();
    await run(["server", "add", "moved", "--url", url], other);
    expect((await run(["login", "moved"], other, { BROWSER: APPROVE })).code).toBe(0);
    await run(["server", "add", "moved", "--url", `${url}/elsewhere`, "--force"], other);
    expect((await run(["tools", "-s", url], other)).code).toBe(8);
  });

  it("an access token that expires while a task is followed is refreshed (once across concurrent commands); a revoked one ends with exit 8, the handle intact", async () => {
    const home = tempHome();
    await run(["server", "add", "demo", "--url", url], home);
    expect((await run(["login", "demo"], home, { BROWSER: APPROVE })).code).toBe(0);
    const first = JSON.parse(readFileSync(tokenFile(home), "utf8")).tokens.access_token as string;
    // 2 s: long enough to be still running when its token is expired (then revoked) a request later.
    const started = await run(["call", "work", "ms=2000", "-s", "demo", "--detach"], home);
    expect(started.code, started.stderr).toBe(0);
    const taskId = started.stdout.trim();
    await control("expire");
    const watched = await run(["watch", taskId], home);
    expect(watched.code, watched.stderr).toBe(0);
    expect(watched.stdout).toMatch(/work done after 2000 ms/);
    const second = JSON.parse(readFileSync(tokenFile(home), "utf8")).tokens.access_token as string;
    expect(second).not.toBe(first);

    // Expired again, and three commands at once meet it: one refreshes (the refresh token is used once, rotated),
    // the others wait for the lock and take its tokens; none is refused.
    await control("slow-token"); // the refreshes overlap: without the lock, two would spend one refresh token
    await control("expire");
    const together = await Promise.all([1, 2, 3].map(() => runProcess(["tools", "-s", "demo"], home)));
    for (const one of together) expect(one.code, one.stderr).toBe(0);

    const again = await run(["call", "work", "ms=2000", "-s", "demo", "--detach"], home);
    const againId = again.stdout.trim();
    await control("revoke");
    const refused = await run(["watch", againId], home);
    expect(refused.code, refused.stderr).toBe(8);
    expect(refused.stderr).toMatch(/hint: sign in: mcp-task login demo/);
    expect((await run(["list", "--json"], home)).stdout).toContain(againId);
    expect((await run(["login", "demo"], home, { BROWSER: APPROVE })).code).toBe(0);
    const after = await run(["watch", againId], home);
    expect(after.code, after.stderr).toBe(0);
    expect(after.stdout).toMatch(/work done after 2000 ms/);
    for (const output of outputs)
      for (const token of [first, second]) expect(output.stdout + output.stderr).not.toContain(token);
  });
});
