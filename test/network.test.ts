// Real networks: a forward proxy named by HTTP_PROXY / HTTPS_PROXY carries mcp-task's traffic, NO_PROXY bypasses it,
// and a proxy that cannot be reached is named as such. The proxy is a real one (the `proxy` package: absolute-form
// requests and CONNECT), in front of our V2 test server over HTTP; and a legacy HTTP+SSE server, the real
// server-everything in its sse mode. (TLS failures: hostile-process.test.ts.)
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { createProxy } from "proxy";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, tempHome } from "./helpers/cli.js";
import { freePort, startEverythingHttp, startV2Http, type RunningServer } from "./helpers/servers.js";

let server: RunningServer;
let proxyUrl: string;
const seen: string[] = [];
let closeProxy: () => void;

beforeAll(async () => {
  server = await startV2Http();
  const proxy = createProxy(createServer());
  proxy.on("request", (request: IncomingMessage) => seen.push(`${request.method} ${request.url}`));
  proxy.on("connect", (request: IncomingMessage) => seen.push(`CONNECT ${request.url}`));
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  closeProxy = () => proxy.close();
});
afterAll(async () => {
  closeProxy?.();
  await server?.stop();
});

describe("real networks", { timeout: 60_000 }, () => {
  it("HTTP_PROXY carries a task call from start to result; NO_PROXY bypasses it", async () => {
    seen.length = 0;
    const run = await runCli(["call", "task_complete", "ms=1500", "-s", server.url, "--json"], {
      home: tempHome(),
      env: { HTTP_PROXY: proxyUrl },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/"type":"result"/);
    // The exchanges went through the proxy, each an absolute-form request as docs/cli.md says for http:// servers (no
    // CONNECT tunnel), and no warning of an experimental agent on stderr.
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.filter((line) => !/^(POST|GET|DELETE) /.test(line) || !line.includes(` ${server.url}`))).toEqual([]);
    expect(run.stderr).not.toMatch(/experimental|Warning/i);

    seen.length = 0;
    const bypass = await runCli(["tools", "-s", server.url], {
      home: tempHome(),
      env: { http_proxy: proxyUrl, NO_PROXY: new URL(server.url).hostname },
    });
    expect(bypass.code, bypass.stderr).toBe(0);
    expect(seen).toEqual([]);
  });

  it("a legacy HTTP+SSE server (server-everything sse) is detected and reached for plain calls", async () => {
    const legacy = await startEverythingHttp(undefined, "sse");
    try {
      const home = tempHome();
      const tools = await runCli(["tools", "-s", legacy.url], { home });
      expect(tools.code, tools.stderr).toBe(0);
      expect(tools.stdout).toMatch(/echo/);
      const echo = await runCli(["call", "echo", "message=over sse", "-s", legacy.url, "--trace"], { home });
      expect(echo.code, echo.stderr).toBe(0);
      expect(echo.stdout).toContain("Echo: over sse");
      // First contact: Streamable HTTP refused (404), then the event stream's endpoint is used.
      expect(echo.stderr).toMatch(/POST http:\/\/127\.0\.0\.1:\d+\/sse 404/);
      expect(echo.stderr).toMatch(/GET http:\/\/127\.0\.0\.1:\d+\/sse 200/);
    } finally {
      await legacy.stop();
    }
  });

  it("a proxy that cannot be reached is exit 4, naming the connection failure", async () => {
    const dead = `http://127.0.0.1:${await freePort()}`;
    const run = await runCli(["tools", "-s", server.url], {
      home: tempHome(),
      env: { HTTPS_PROXY: dead, HTTP_PROXY: dead, MCP_TASK_REQUEST_TIMEOUT: "5s" },
    });
    expect(run.code, run.stderr).toBe(4);
    expect(run.stderr).toMatch(/cannot reach .*connection refused/);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });
});
