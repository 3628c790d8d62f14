// What mcp-task hands to a browser and where it sends tokens (src/secure-url.ts): https, or plain http on this
// machine, and nothing else. Against a hostile authorization server (test/servers/oauth-server.ts with its metadata
// replaced: file:, x-custom:, javascript:, data: pages, and endpoints on "remote" hosts in plain http) behind a real
// forward proxy (the `proxy` package) that plays those hosts (every *.remote.test and *.localhost name is brought to the test
// server, which records the Host it was asked for). The browser ($BROWSER) is test/servers/visit-browser.mjs: it
// records the address it was given, and fetches it (the test server approves at once, so a sign-in completes).
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createProxy } from "proxy";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { isLoopbackHost, judgeUrl } from "../../src/secure-url.js";
import { tempHome } from "../helpers/cli.js";
import { runInProcess } from "../helpers/context.js";
import { ROOT, startListening, type RunningServer } from "../helpers/servers.js";

const OAUTH_SERVER = join(ROOT, "dist/test-servers/oauth-server.js");
const VISIT = `${process.execPath} ${join(ROOT, "test/servers/visit-browser.mjs")}`;

let server: RunningServer;
let url: string;
let proxyUrl: string;
/** What the proxy was asked for on a remote host (CONNECT or an absolute-form request). */
const proxied: string[] = [];
let closeProxy: () => void;

/** The names the proxy plays: *.remote.test, and *.localhost (which the SDK takes for loopback; a proxy need not). */
const remote = (host: string) => host.endsWith(".remote.test") || host.endsWith(".localhost");

beforeAll(async () => {
  server = await startListening([OAUTH_SERVER], "oauth server");
  url = server.url;
  const port = new URL(url).port;
  const http = createServer();
  // Before the proxy's own listeners (createProxy adds them after these): a remote name is brought to the test
  // server, which sees the name in the Host header.
  http.on("connect", (request: IncomingMessage) => {
    if (!remote(request.url!.replace(/:\d+$/, ""))) return;
    proxied.push(`CONNECT ${request.url}`);
    request.url = `127.0.0.1:${port}`;
  });
  http.on("request", (request: IncomingMessage) => {
    const target = URL.canParse(request.url!) ? new URL(request.url!) : undefined;
    if (!target || !remote(target.hostname)) return;
    proxied.push(`${request.method} ${request.url}`);
    request.url = `http://127.0.0.1:${port}${target.pathname}${target.search}`;
  });
  const proxy = createProxy(http);
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  closeProxy = () => proxy.close();
});

afterAll(async () => {
  closeProxy?.();
  await server?.stop();
});

/** The hostile server's metadata: merged into the authorization server's and the protected resource's. */
const hostile = async (metadata: Record<string, unknown>, resource: Record<string, unknown> = {}) => {
  for (const [path, body] of [
    ["/test/metadata", metadata],
    ["/test/resource-metadata", resource],
  ] as const) {
    const response = await fetch(new URL(path, url), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(204);
  }
};
afterEach(() => hostile({}));

/** The requests the test server has received (`METHOD host/path`), from now on. */
async function requests(): Promise<() => Promise<string[]>> {
  const all = async () => (await (await fetch(new URL("/test/seen", url))).json()) as string[];
  const before = (await all()).length;
  return async () => (await all()).slice(before);
}

/** A browser that records what it was given. */
function browser(): { env: Record<string, string>; opened: () => string[] } {
  const log = join(mkdtempSync(join(tmpdir(), "mcp-task-browser-")), "opened");
  return {
    env: { BROWSER: VISIT, VISIT_LOG: log, HTTP_PROXY: proxyUrl },
    opened: () => (existsSync(log) ? readFileSync(log, "utf8").split("\n").filter(Boolean) : []),
  };
}

async function savedDemo(): Promise<string> {
  const home = tempHome();
  expect((await runInProcess(["server", "add", "demo", "--url", url], { home })).code).toBe(0);
  return home;
}

const tokenFile = (home: string) =>
  join(
    home,
    "auth",
    readdirSync(join(home, "auth")).find((name) => name.endsWith(".json"))!,
  );

describe("the rule", () => {
  it("https, or plain http on a loopback host as the URL parser reads it; nothing else", () => {
    for (const host of ["localhost", "127.0.0.1", "127.200.3.4", "[::1]"])
      expect(isLoopbackHost(host), host).toBe(true);
    for (const host of ["localhost.", "as.localhost", "127.0.0.1.evil.test", "[::ffff:7f00:1]", "128.0.0.1"])
      expect(isLoopbackHost(host), host).toBe(false);
    for (const ok of [
      "https://as.example/a",
      "http://127.0.0.1:9/cb",
      "http://0x7f.1/",
      "http://[::1]:8/",
      "http://localhost/",
    ])
      expect(judgeUrl(ok).why, ok).toBeUndefined();
    const refused = {
      "http://as.example/": /plain http to another host/,
      "http://as.localhost/": /plain http to another host/,
      "file:///etc/passwd": /a file: address, not a web page/,
      "x-custom://open": /a x-custom: address/,
      "javascript:alert(1)": /a javascript: address/,
      "data:text/html,<b>x</b>": /a data: address/,
      "not a url": /not a valid URL/,
    };
    for (const [raw, why] of Object.entries(refused)) expect(judgeUrl(raw).why, raw).toMatch(why);
    // What passes is the parsed URL: a backslash ends the host for the WHATWG parser (others read evil.test).
    expect(judgeUrl("https://example.com\\@evil.test/").url?.href).toBe("https://example.com/@evil.test/");
  });
});

describe("a hostile authorization server", { timeout: 120_000 }, () => {
  it("login refuses its pages and endpoints that are not https (or http on this machine) before registering a client or opening anything", async () => {
    const cases: Array<[Record<string, unknown>, Record<string, unknown>, RegExp]> = [
      [
        { authorization_endpoint: "file:///etc/passwd" },
        {},
        /authorization page file:\/\/\/etc\/passwd is a file: address/,
      ],
      [
        { authorization_endpoint: "x-custom://sign-in" },
        {},
        /authorization page x-custom:\/\/sign-in is a x-custom: address/,
      ],
      // (javascript: and data: the SDK's metadata schema refuses first, naming the scheme)
      [{ authorization_endpoint: "javascript:alert(document.cookie)" }, {}, /javascript:/],
      [{ authorization_endpoint: "data:text/html,<h1>sign in</h1>" }, {}, /data:/],
      [
        { authorization_endpoint: "http://login.remote.test/authorize" },
        {},
        /authorization page http:\/\/login\.remote\.test\/authorize is plain http to another host/,
      ],
      [
        { registration_endpoint: "http://reg.remote.test/register" },
        {},
        /registration endpoint http:\/\/reg\.remote\.test\/register is plain http/,
      ],
      [
        { token_endpoint: "http://tok.remote.test/token" },
        {},
        /token endpoint http:\/\/tok\.remote\.test\/token is plain http/,
      ],
      // The authorization server itself on a remote host in plain http: nothing at all is sent to it.
      [
        {
          issuer: "http://as.remote.test/",
          authorization_endpoint: "http://as.remote.test/authorize",
          token_endpoint: "http://as.remote.test/token",
          registration_endpoint: "http://as.remote.test/register",
        },
        { authorization_servers: ["http://as.remote.test/"] },
        /http:\/\/as\.remote\.test\/\S* is plain http to another host/,
      ],
    ];
    for (const [metadata, resource, message] of cases) {
      await hostile(metadata, resource);
      const home = await savedDemo();
      const seen = await requests();
      proxied.length = 0;
      const open = browser();
      const login = await runInProcess(["login", "demo"], { home, env: open.env, timeoutMs: 30_000 });
      const what = JSON.stringify(metadata);
      expect(login.code, `${what}: ${login.stderr}`).toBe(8);
      expect(login.stderr, what).toMatch(message);
      expect(login.stderr).not.toMatch(/opening|open this address/);
      expect(open.opened(), what).toEqual([]);
      expect(
        (await seen()).filter((line) => /\/register|\/token|remote\.test/.test(line)),
        what,
      ).toEqual([]);
      expect(proxied, what).toEqual([]);
    }
  });

  it("a command that meets a 401 signs in under the same rule: a refused page ends it with exit 8, nothing opened; an https-or-loopback one is opened as parsed, its host said first", async () => {
    await hostile({ authorization_endpoint: "x-custom://sign-in" });
    const home = await savedDemo();
    const seen = await requests();
    const open = browser();
    const refused = await runInProcess(["tools", "-s", "demo"], { home, env: open.env, timeoutMs: 30_000 });
    expect(refused.code, refused.stderr).toBe(8);
    expect(refused.stderr).toMatch(/demo requires authorization: signing in/);
    expect(refused.stderr).toMatch(/authorization page x-custom:\/\/sign-in is a x-custom: address, not a web page/);
    expect(refused.stderr).not.toMatch(/hint: sign in: mcp-task login/);
    const json = await runInProcess(["tools", "-s", "demo", "--json"], { home, env: open.env, timeoutMs: 30_000 });
    expect(json.code).toBe(8);
    expect(json.stdout + json.stderr).toMatch(/"code":\s*"unsafe_url"/);
    expect(open.opened()).toEqual([]);
    expect((await seen()).filter((line) => line.includes("/register"))).toEqual([]);

    await hostile({});
    const signed = await runInProcess(["tools", "-s", "demo"], { home, env: open.env, timeoutMs: 30_000 });
    expect(signed.code, signed.stderr).toBe(0);
    const origin = new URL(url).origin;
    const [said] = /opening (\S+) in the browser to sign in to demo/.exec(signed.stderr) ?? [];
    expect(said).toBe(`opening ${origin} in the browser to sign in to demo`);
    const opened = open.opened();
    expect(opened).toHaveLength(1);
    expect(opened[0]).toBe(new URL(opened[0]!).href);
    expect(opened[0]!.startsWith(`${origin}/authorize?`)).toBe(true);
  });

  it("no sign-in for a saved server reached in plain http on another host: its token would travel in clear", async () => {
    const remoteMcp = "http://mcp.remote.test/mcp";
    // A well-behaved authorization server (on this machine) for a resource that names itself at the remote address.
    await hostile({}, { resource: remoteMcp, authorization_servers: [new URL("/", url).href] });
    const home = tempHome();
    expect((await runInProcess(["server", "add", "demo", "--url", remoteMcp], { home })).code).toBe(0);
    const seen = await requests();
    const open = browser();
    const login = await runInProcess(["login", "demo"], { home, env: open.env, timeoutMs: 30_000 });
    expect(login.code, login.stderr).toBe(8);
    expect(login.stderr).toMatch(/demo's address http:\/\/mcp\.remote\.test\/mcp is plain http to another host/);
    const tools = await runInProcess(["tools", "-s", "demo"], { home, env: open.env, timeoutMs: 30_000 });
    expect(tools.code, tools.stderr).toBe(8);
    expect(tools.stderr).not.toMatch(/signing in|hint: sign in: mcp-task login/);
    expect(tools.stderr).toMatch(/hint: .*save the server's https address/);
    expect(open.opened()).toEqual([]);
    expect((await seen()).filter((line) => /\/register|\/token|\/authorize/.test(line))).toEqual([]);
  });

  it("a refresh does not send the refresh token to a token endpoint in plain http on another host, even one the SDK would allow (*.localhost)", async () => {
    const home = await savedDemo();
    const open = browser();
    expect((await runInProcess(["login", "demo"], { home, env: open.env })).code).toBe(0);
    // The record as an older sign-in saved it, its token endpoint a name that a proxy sends anywhere.
    const file = tokenFile(home);
    const record = JSON.parse(readFileSync(file, "utf8"));
    record.discovery.authorizationServerMetadata.token_endpoint = "http://tok.localhost/token";
    writeFileSync(file, JSON.stringify(record));
    await fetch(new URL("/test/expire", url), { method: "POST" });
    proxied.length = 0;
    const seen = await requests();
    const tools = await runInProcess(["tools", "-s", "demo"], { home, env: { BROWSER: "", HTTP_PROXY: proxyUrl } });
    expect(tools.code, tools.stderr).toBe(8);
    expect(proxied).toEqual([]);
    expect((await seen()).filter((line) => /localhost\/|\/token/.test(line))).toEqual([]);
  });

  it("logout sends no token to a revocation endpoint in plain http on another host: it forgets them and says revocation was not attempted", async () => {
    await hostile({ revocation_endpoint: "http://revoke.remote.test/revoke" });
    const home = await savedDemo();
    const open = browser();
    expect((await runInProcess(["login", "demo"], { home, env: open.env })).code).toBe(0);
    const file = tokenFile(home);
    proxied.length = 0;
    const seen = await requests();
    const logout = await runInProcess(["logout", "demo"], { home, env: { HTTP_PROXY: proxyUrl } });
    expect(logout.code, logout.stderr).toBe(0);
    expect(logout.stderr).toMatch(
      /signed out of demo \(tokens forgotten; revocation not attempted: its revocation endpoint http:\/\/revoke\.remote\.test\/revoke is plain http to another host/,
    );
    expect(proxied).toEqual([]);
    expect((await seen()).filter((line) => /revoke/.test(line))).toEqual([]);
    expect(existsSync(file)).toBe(false);
  });
});
