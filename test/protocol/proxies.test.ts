// Real networks: a forward proxy named by HTTP_PROXY / HTTPS_PROXY carries mcp-task's traffic, NO_PROXY bypasses it,
// and a proxy that cannot be reached is named as such. The proxy is a real one (the `proxy` package: absolute-form
// requests and CONNECT), in front of our V2 test server over HTTP; and a legacy HTTP+SSE server, the real
// server-everything in its sse mode. (TLS failures: hostile/process.test.ts.)
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { createProxy } from "proxy";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { events, tempHome } from "../helpers/cli.js";
import { runInProcess } from "../helpers/context.js";
import {
  freePort,
  SDK_V1_SERVER,
  startEverythingHttp,
  startListening,
  startV2Http,
  type RunningServer,
} from "../helpers/servers.js";

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
    const run = await runInProcess(["call", "task_complete", "ms=1500", "-s", server.url, "--json"], {
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
    const bypass = await runInProcess(["tools", "-s", server.url], {
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
      const tools = await runInProcess(["tools", "-s", legacy.url], { home });
      expect(tools.code, tools.stderr).toBe(0);
      expect(tools.stdout).toMatch(/echo/);
      const echo = await runInProcess(["call", "echo", "message=over sse", "-s", legacy.url, "--trace"], { home });
      expect(echo.code, echo.stderr).toBe(0);
      expect(echo.stdout).toContain("Echo: over sse");
      // First contact: Streamable HTTP refused (404), then the event stream's endpoint is used.
      expect(echo.stderr).toMatch(/POST http:\/\/127\.0\.0\.1:\d+\/sse 404/);
      expect(echo.stderr).toMatch(/GET http:\/\/127\.0\.0\.1:\d+\/sse 200/);
    } finally {
      await legacy.stop();
    }
  });

  it("legacy HTTP+SSE with tasks (the SDK v1 server's --sse): a task-required tool runs as a task inside the command", async () => {
    const legacy = await startListening([SDK_V1_SERVER, "--sse", "--port", "0"], "sdk v1 server over sse");
    try {
      const home = tempHome();
      // The 2025-11-25 spec: a client must call a tool whose taskSupport is "required" as a task.
      const work = await runInProcess(["call", "work", "ms=300", "-s", legacy.url, "--json"], { home });
      expect(work.code, work.stderr).toBe(0);
      expect(events(work.stdout)[0]).toMatchObject({ type: "task", generation: "v1" });
      expect(events(work.stdout).at(-1)).toMatchObject({ type: "result", status: "completed" });
      expect(work.stdout).toContain("work done after 300 ms");
      // Its question comes on the session's event stream, on the tasks/result the command opens.
      const answer = JSON.stringify({ name: "Ada", count: 2 });
      const asked = await runInProcess(["call", "confirm", "item=x", "-s", legacy.url, "--input", answer], { home });
      expect(asked.code, asked.stderr).toBe(0);
      expect(asked.stdout).toContain('"name":"Ada"');
      // Without an answer: exit 6, and the hint names no later `respond` (nothing can reach the task after this
      // command), and a later `get` says why.
      const unanswered = await runInProcess(["call", "confirm", "item=y", "-s", legacy.url, "--json"], { home });
      expect(unanswered.code, unanswered.stderr).toBe(6);
      const refusal = events(unanswered.stdout).at(-1) as { type: string; hint: string };
      expect(refusal).toMatchObject({ type: "error", code: "input_required" });
      expect(refusal.hint).toMatch(/^no later command can reach this task .*--input/);
      const later = await runInProcess(["get", events(unanswered.stdout)[0]!.taskId as string], { home });
      expect(later.code).toBe(5);
      expect(later.stderr).toMatch(/legacy HTTP\+SSE session .* ended with the mcp-task command that started it/);
      // The session is the command's event stream: a task cannot outlive it, so --detach is refused before the call.
      const detached = await runInProcess(["call", "work", "ms=300", "-s", legacy.url, "--detach", "--trace"], {
        home,
      });
      expect(detached.code, detached.stderr).toBe(2);
      expect(detached.stderr).toMatch(/--detach.*legacy HTTP\+SSE/);
      expect(detached.stderr).not.toContain("tools/call");
      expect(detached.stdout).toBe("");
    } finally {
      await legacy.stop();
    }
  });

  it("a proxy that cannot be reached is exit 4, naming the connection failure", async () => {
    const dead = `http://127.0.0.1:${await freePort()}`;
    const run = await runInProcess(["tools", "-s", server.url], {
      home: tempHome(),
      env: { HTTPS_PROXY: dead, HTTP_PROXY: dead, MCP_TASK_REQUEST_TIMEOUT: "5s" },
    });
    expect(run.code, run.stderr).toBe(4);
    expect(run.stderr).toMatch(/cannot reach .*connection refused/);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });
});
