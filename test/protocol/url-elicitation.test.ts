// URL-mode elicitation (2025-11-25) against a server on the official SDK's v1 line (test/servers/sdk-v1-server.ts):
// a task that asks to open a page, and a plain tool refused with -32042 (URLElicitationRequiredError) until its page
// was visited. The "browser" is test/servers/visit-browser.mjs ($BROWSER): it logs the URL it was given and fetches
// it, which makes the server send notifications/elicitation/complete. Nothing is opened without consent: CI
// consents only for hosts named ahead (--open-url, MCP_TASK_OPEN_URL_HOSTS). Also: the same question in a V2 task's
// inputRequests (our V2 server's task_open_page), and a person's consent in the live view, the line prompt and the
// dashboard under tmux.
import { mkdtempSync, readFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InputRequiredError } from "../../src/errors.js";
import { preparedAnswers } from "../../src/tasks/input.js";
import { describeUrlRequest, preConsented, urlAware, viewUrl } from "../../src/tasks/url-elicitation.js";
import { events, tempHome } from "../helpers/cli.js";
import { runInProcess } from "../helpers/context.js";
import { ROOT, startListening, startV2Http, type RunningServer } from "../helpers/servers.js";
import { bin, tmuxTerminal } from "../helpers/tmux.js";

const SDK_V1_SERVER = join(ROOT, "dist/test-servers/sdk-v1-server.js");
const VISIT = `${process.execPath} ${join(ROOT, "test/servers/visit-browser.mjs")}`;

let http: RunningServer;
let v2: RunningServer;
beforeAll(async () => {
  [http, v2] = await Promise.all([startListening([SDK_V1_SERVER, "--port", "0"], "sdk v1 server"), startV2Http()]);
});
afterAll(async () => {
  await Promise.all([http?.stop(), v2?.stop()]);
});

/** A browser that logs what it was given, and the log (empty while nothing was opened). */
function browser(): { env: Record<string, string>; opened: () => string[] } {
  const log = join(mkdtempSync(join(tmpdir(), "mcp-task-visit-")), "visits");
  return {
    env: { BROWSER: VISIT, VISIT_LOG: log },
    opened: () => (existsSync(log) ? readFileSync(log, "utf8").split("\n").filter(Boolean) : []),
  };
}

function resultText(stdout: string): string {
  const last = events(stdout).at(-1) as { type: string; result: { content: Array<{ text: string }> } };
  expect(last.type).toBe("result");
  return last.result.content[0].text;
}

describe("URL-mode elicitation during a task (SDK v1 server over HTTP)", () => {
  it("CI with the host named ahead opens the page, answers accept and completes", async () => {
    const home = tempHome();
    const visits = browser();
    const call = await runInProcess(["call", "open-page", "-s", http.url, "--open-url", "127.0.0.1", "--json"], {
      home,
      env: visits.env,
    });
    expect(call.code, call.stderr).toBe(0);
    expect(JSON.parse(resultText(call.stdout))).toMatchObject({ action: "accept", visited: true });
    const host = new URL(http.url).host;
    expect(visits.opened()).toEqual([expect.stringMatching(new RegExp(`^http://${host}/page\\?id=[0-9a-f-]{36}$`))]);
  });

  it("CI without consent exits 6 with the question kept, opening nothing; watch with consent completes it", async () => {
    const home = tempHome();
    const visits = browser();
    const call = await runInProcess(["call", "open-page", "-s", http.url], { home, env: visits.env });
    expect(call.code, call.stderr).toBe(6);
    expect(call.stderr).toMatch(/asks to open a web page on http:\/\/127\.0\.0\.1:\d+ and no one consented/);
    expect(call.stderr).toMatch(/Sign in to the test service/);
    expect(call.stderr).toMatch(/^hint: open it with consent: mcp-task respond --open-url 127\.0\.0\.1 \S+/m);
    expect(visits.opened()).toEqual([]);
    const taskId = /--open-url 127\.0\.0\.1 (\S+)/.exec(call.stderr)![1];
    const watch = await runInProcess(["watch", taskId, "--json"], {
      home,
      env: { ...visits.env, MCP_TASK_OPEN_URL_HOSTS: "example.org, 127.0.0.1" },
    });
    expect(watch.code, watch.stderr).toBe(0);
    expect(JSON.parse(resultText(watch.stdout))).toMatchObject({ action: "accept", visited: true });
    expect(visits.opened()).toHaveLength(1);
  });

  it("--decline declines a URL request without opening it", async () => {
    const home = tempHome();
    const visits = browser();
    const call = await runInProcess(["call", "open-page", "-s", http.url, "--decline", "--json"], {
      home,
      env: visits.env,
    });
    expect(call.code, call.stderr).toBe(0);
    expect(JSON.parse(resultText(call.stdout))).toMatchObject({ action: "decline" });
    expect(visits.opened()).toEqual([]);
  });

  it("a URL with escape sequences and a look-alike punycode host is shown safely, with warnings, never opened", async () => {
    const home = tempHome();
    const visits = browser();
    const url = "https://xn--pple-43d.com/\u001b[2J\u001b]0;owned\u0007login";
    const call = await runInProcess(["call", "open-page", `url=${url}`, "-s", http.url], { home, env: visits.env });
    expect(call.code, call.stderr).toBe(6);
    expect(call.stderr).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f]/);
    expect(call.stderr).toContain("host: https://xn--pple-43d.com");
    expect(call.stderr).toMatch(/punycode: it displays as "аpple\.com"/);
    expect(call.stderr).toMatch(/--open-url xn--pple-43d\.com/);
    expect(visits.opened()).toEqual([]);
  });
});

describe("URL-mode elicitation in a 2026-07-28 task's inputRequests (our V2 server)", () => {
  it("without consent exit 6, the question listed on; respond --open-url opens it and the task completes", async () => {
    const home = tempHome();
    const visits = browser();
    const url = "https://auth.example.test/sign-in?state=1";
    const call = await runInProcess(["call", "task_open_page", `url=${url}`, "-s", v2.url], { home, env: visits.env });
    expect(call.code, call.stderr).toBe(6);
    expect(call.stderr).toMatch(/asks to open a web page on https:\/\/auth\.example\.test and no one consented/);
    expect(visits.opened()).toEqual([]);
    const taskId = /--open-url auth\.example\.test (\S+)/.exec(call.stderr)![1];
    const respond = await runInProcess(["respond", taskId, "--open-url", "auth.example.test", "--json"], {
      home,
      env: visits.env,
    });
    expect(respond.code, respond.stderr).toBe(0);
    // The test's browser cannot reach auth.example.test: the address is printed to open by hand as well.
    expect(respond.stderr).toContain(`open this page in a browser: ${url}`);
    expect(visits.opened()).toEqual([url]);
    const result = await runInProcess(["result", taskId], { home });
    expect(result.stdout).toMatch(/page: accept/);
  });
});

describe("pages that break the rule: https, or plain http on this machine (src/secure-url.ts)", () => {
  it("a task's page that is not a web page, or plain http to another host, is refused with exit 8 whatever was consented, never opened", async () => {
    const pages: Array<[string, RegExp]> = [
      ["file:///etc/passwd", /whose address is a file: address, not a web page/],
      ["x-custom://pay.remote.test/now", /whose address is a x-custom: address/],
      ["javascript:alert(document.cookie)", /whose address is a javascript: address/],
      ["http://pay.remote.test/checkout", /whose address is plain http to another host/],
    ];
    for (const [url, why] of pages) {
      const visits = browser();
      const args = ["call", "task_open_page", `url=${url}`, "-s", v2.url, "--open-url", "pay.remote.test"];
      const call = await runInProcess(args, { home: tempHome(), env: visits.env });
      expect(call.code, `${url}: ${call.stderr}`).toBe(8);
      expect(call.stderr).toMatch(why);
      expect(call.stderr).toMatch(/only over https, or plain http on this machine/);
      expect(call.stderr).toMatch(/^hint: decline it: mcp-task respond --decline \S+/m);
      expect(visits.opened(), url).toEqual([]);
    }
    const json = await runInProcess(["call", "task_open_page", "url=file:///etc/passwd", "-s", v2.url, "--json"], {
      home: tempHome(),
      env: browser().env,
    });
    expect(json.code).toBe(8);
    expect(json.stdout).toMatch(/"code":\s*"unsafe_url"/);
  });

  it("a page a -32042 lists is refused the same way, before any of its pages is opened", async () => {
    const visits = browser();
    const args = [
      "call",
      "needs_page",
      "url=x-custom://pay.remote.test/",
      "-s",
      v2.url,
      "--open-url",
      "pay.remote.test",
    ];
    const call = await runInProcess(args, { home: tempHome(), env: visits.env, timeoutMs: 30_000 });
    expect(call.code, call.stderr).toBe(8);
    expect(call.stderr).toMatch(/whose address is a x-custom: address, not a web page/);
    expect(visits.opened()).toEqual([]);
    // A list of two, the first a page that keeps the rule: nothing opened, not even that one.
    const both = ["url=https://pay.remote.test/ok", "also=file:///etc/passwd"];
    const mixed = await runInProcess(["call", "needs_page", ...both, "-s", v2.url, "--open-url", "pay.remote.test"], {
      home: tempHome(),
      env: visits.env,
      timeoutMs: 30_000,
    });
    expect(mixed.code, mixed.stderr).toBe(8);
    expect(mixed.stderr).toMatch(/whose address is a file: address/);
    expect(visits.opened()).toEqual([]);
  });

  it("what is opened is the address as parsed, the one judged and consented to: never the server's text", async () => {
    const visits = browser();
    // The WHATWG parser ends the host at the backslash (example.com); a parser that does not would read evil.test.
    const url = "https://example.com\\@evil.test/pay";
    const args = ["call", "needs_page", `url=${url}`, "-s", v2.url, "--open-url", "example.com"];
    const call = await runInProcess(args, { home: tempHome(), env: visits.env, timeoutMs: 30_000 });
    expect(call.code, call.stderr).toBe(0);
    expect(visits.opened()).toEqual(["https://example.com/@evil.test/pay"]);
  });
});

describe("a call refused with -32042 by a 2026-07-28 server (no completion can come)", () => {
  it("is made again once the page named ahead was opened", async () => {
    const visits = browser();
    const url = "https://pay.example.test/checkout";
    const args = ["call", "needs_page", `url=${url}`, "-s", v2.url, "--open-url", "pay.example.test"];
    const call = await runInProcess(args, { home: tempHome(), env: visits.env, timeoutMs: 30_000 });
    expect(call.code, call.stderr).toBe(0);
    expect(call.stdout).toMatch(/paid \(v2\)/);
    expect(visits.opened()).toEqual([url]);
  });
});

describe("a call refused with -32042 (URLElicitationRequiredError)", () => {
  it("CI with the host named ahead opens the page, waits for its completion and calls again", async () => {
    const home = tempHome();
    const visits = browser();
    const call = await runInProcess(["call", "needs-page", "-s", http.url, "--open-url", "127.0.0.1", "--json"], {
      home,
      env: visits.env,
    });
    expect(call.code, call.stderr).toBe(0);
    expect(resultText(call.stdout)).toBe("paid: page visited");
    expect(visits.opened()).toHaveLength(1);
  });

  it("CI without consent exits 6 listing the page, the hint naming --open-url", async () => {
    const home = tempHome();
    const visits = browser();
    const call = await runInProcess(["call", "needs-page", "-s", http.url], { home, env: visits.env });
    expect(call.code, call.stderr).toBe(6);
    expect(call.stderr).toMatch(/Confirm the payment/);
    expect(call.stderr).toMatch(/^hint: call again with --open-url 127\.0\.0\.1/m);
    expect(visits.opened()).toEqual([]);
  });
});

describe("consent at a real terminal (tmux)", () => {
  const tty = tmuxTerminal("mcp-task-url");
  afterAll(() => tty.close());

  it("the live view shows the host and opens the page only on o; the line prompt (stdout a pipe) on y", async () => {
    const visits = browser();
    const env = `BROWSER='${VISIT}' VISIT_LOG=${visits.env.VISIT_LOG}`;
    tty.terminal(tempHome(), `env ${env} ${bin} call open-page -s ${http.url}`);
    await tty.waitFor(/host: http:\/\/127\.0\.0\.1:\d+/);
    expect(tty.screen()).toMatch(/Sign in to the test service/);
    expect(tty.screen()).toMatch(/warning: not https/);
    expect(visits.opened()).toEqual([]); // nothing before the yes
    tty.keys("o");
    const done = await tty.waitFor(/EXIT=\d+/);
    expect(done, done).toMatch(/EXIT=0/);
    expect(done).toMatch(/"visited":true/);
    expect(visits.opened()).toHaveLength(1);
    tty.close();

    tty.terminal(tempHome(), `env ${env} ${bin} call open-page -s ${http.url} | cat`);
    await tty.waitFor(/open it in the browser\? yes, no \(decline\) or cancel/);
    expect(tty.screen()).toMatch(/host: http:\/\/127\.0\.0\.1:\d+/);
    tty.keys("y", "Enter");
    const prompted = await tty.waitFor(/EXIT=\d+/);
    expect(prompted, prompted).toMatch(/EXIT=0/);
    expect(prompted).toMatch(/"visited":true/);
    expect(visits.opened()).toHaveLength(2);
  });

  it("the dashboard shows a detached task's URL question and opens the page on o", async () => {
    const home = tempHome();
    const visits = browser();
    const run = await runInProcess(["call", "open-page", "-s", http.url, "--detach", "--json"], { home });
    expect(run.code, run.stderr).toBe(0);
    const id = events(run.stdout)[0].taskId as string;
    tty.terminal(home, `env BROWSER='${VISIT}' VISIT_LOG=${visits.env.VISIT_LOG} ${bin} dashboard`);
    await tty.waitFor(/1 waiting for you/); // hang-only, the helper's 60 s
    tty.keys("a");
    await tty.waitFor(/asks for input[\s\S]*host: http:\/\/127\.0\.0\.1:\d+/);
    expect(visits.opened()).toEqual([]);
    tty.keys("o");
    await tty.waitFor(/✓ completed/); // hang-only, the helper's 60 s
    tty.keys("q");
    expect(await tty.waitFor(/EXIT=\d+/)).toMatch(/EXIT=0/);
    expect(visits.opened()).toHaveLength(1);
    expect(JSON.parse(resultText((await runInProcess(["result", id, "--json"], { home })).stdout))).toMatchObject({
      action: "accept",
      visited: true,
    });
  });
});

describe("reading a URL", () => {
  it("shows the host plainly and warns of what could mislead", () => {
    expect(viewUrl("https://example.com/a").warnings).toEqual([]);
    const at = viewUrl("https://bank.example@evil.test/login");
    expect(at.origin).toBe("https://evil.test");
    expect(at.warnings.join(" ")).toMatch(/user name before the host/);
    expect(viewUrl("https://10.0.0.1/x").warnings.join(" ")).toMatch(/IP address/);
    expect(viewUrl("https://[::1]/x").warnings.join(" ")).toMatch(/IP address/);
    expect(viewUrl("javascript:alert(1)")).toMatchObject({ openable: false, origin: "" });
    expect(viewUrl("not a url")).toMatchObject({ openable: false });
    expect(preConsented(["evil.test"], at)).toBe(true);
    expect(preConsented(["bank.example"], at)).toBe(false);
    expect(preConsented(["127.0.0.1:9"], viewUrl("http://127.0.0.1:9/"))).toBe(true);
    expect(preConsented(["127.0.0.1:9"], viewUrl("http://127.0.0.1:10/"))).toBe(false);
    const lines = describeUrlRequest({
      key: "k",
      method: "elicitation/create",
      params: { mode: "url", message: "Pay \u001b[31mnow", url: "https://shop.test/pay" },
    });
    expect(lines.join("\n")).not.toMatch(/\u001b/);
    expect(lines).toContain("host: https://shop.test");
  });

  it("with nobody to ask, a page on a host not named ahead is refused in one line and never opened", async () => {
    const opened: string[] = [];
    const provider = urlAware(preparedAnswers({}), {
      hosts: ["other.test"],
      person: false,
      open: async (u) => void opened.push(u),
    });
    const request = {
      key: "k",
      method: "elicitation/create",
      params: { mode: "url", message: "line one\nline two", url: "https://shop.test/pay", elicitationId: "e" },
    };
    const refused = await provider.answer(request, "t1").catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(InputRequiredError);
    expect((refused as Error).message).not.toContain("\n");
    expect((refused as InputRequiredError).hint).toBe(
      "open it with consent: mcp-task respond --open-url shop.test t1  (or --decline)",
    );
    expect(opened).toEqual([]);
    const named = urlAware(preparedAnswers({}), {
      hosts: ["shop.test"],
      person: false,
      open: async (u) => void opened.push(u),
    });
    expect(await named.answer(request, "t1")).toEqual({ action: "accept", content: {} });
    expect(opened).toEqual(["https://shop.test/pay"]);
  });
});
