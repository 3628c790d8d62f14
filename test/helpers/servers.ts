// Real servers for the tests, started as child processes on loopback only.
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll } from "vitest";

const require = createRequire(import.meta.url);
export const ROOT = resolve(import.meta.dirname, "../..");
export const EVERYTHING = join(
  dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")),
  "dist/index.js",
);
export const V2_SERVER = join(ROOT, "dist/test-servers/v2-server.js");

/** The stdio command line of server-everything, for --stdio. */
export const everythingStdio = `node ${EVERYTHING} stdio`;
export const v2Stdio = (...flags: string[]) => ["node", V2_SERVER, "--stdio", ...flags].join(" ");

/**
 * A free loopback port for a server a test stops and starts again on the same port. It is taken below the OS's
 * ephemeral range: a port the OS handed out (listen on 0) is, once its server stops, free for the OS to hand to any
 * outgoing connection on this machine as its local port, and the restart then fails with EADDRINUSE (seen on CI,
 * with other test files' clients running beside it).
 */
export async function freePort(): Promise<number> {
  const [low] = ephemeralRange();
  const floor = 10_000;
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = floor + Math.floor(Math.random() * Math.max(1, low - floor));
    if (await canListen(port)) return port;
  }
  throw new Error("no free port found below the ephemeral range");
}

function ephemeralRange(): [number, number] {
  try {
    const [low, high] = readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/).map(Number);
    if (low > 11_000 && high >= low) return [low, high];
  } catch {
    // Not Linux: IANA's dynamic range, which macOS and Windows use.
  }
  return [49_152, 65_535];
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolvePort) => {
    const server = createServer();
    server.once("error", () => resolvePort(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolvePort(true)));
  });
}

export interface RunningServer {
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** The test servers this file started that have not exited: test/helpers/setup.ts stops and names them at its end. */
export const startedServers = new Map<ChildProcess, string>();

/**
 * A test server's child, tracked from its spawn: whoever starts it stops it (a test, or the afterAll of the hook that
 * started it); what is left at the file's end, passed or failed, is stopped there (setup.ts). Not at the end of the
 * test that started it: a file's shared server is often started (or restarted) by whichever test needs it first.
 */
function tracked(child: ChildProcess, name: string): ChildProcess {
  startedServers.set(child, name);
  child.once("exit", () => startedServers.delete(child));
  return child;
}

/** Waits for the server to come up; one that does not is stopped before the error is thrown. */
async function cameUp<T>(child: ChildProcess, up: Promise<T>): Promise<T> {
  try {
    return await up;
  } catch (error) {
    await stopper(child)();
    throw error;
  }
}

async function waitForHttp(url: string, child: ChildProcess): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    try {
      await fetch(url, { method: "GET", signal: AbortSignal.timeout(500) }).then((r) => r.body?.cancel());
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`server at ${url} did not come up`);
}

function stopper(child: ChildProcess) {
  return () =>
    new Promise<void>((done) => {
      if (child.exitCode !== null || child.signalCode !== null) return done();
      child.once("exit", () => done());
      child.kill("SIGTERM");
      setTimeout(() => child.kill("SIGKILL"), 2000).unref();
    });
}

/**
 * server-everything over Streamable HTTP (a real V1 server); on `port` when given (a restart on the same port).
 * `sse`: over the legacy HTTP+SSE transport instead (GET /sse, POST /message).
 */
export async function startEverythingHttp(
  port?: number,
  mode: "streamableHttp" | "sse" = "streamableHttp",
): Promise<RunningServer> {
  port ??= await freePort();
  const child = tracked(
    spawn(process.execPath, [EVERYTHING, mode], {
      env: { ...process.env, PORT: String(port) },
      stdio: ["ignore", "ignore", "pipe"],
    }),
    `server-everything ${mode}`,
  );
  child.stderr?.resume();
  const url = `http://127.0.0.1:${port}/${mode === "sse" ? "sse" : "mcp"}`;
  await cameUp(child, waitForHttp(url, child));
  return { url, process: child, stop: stopper(child) };
}

/** The SDK's shipped example `simpleTaskInteractive` (a V1 server whose tools ask a question), on loopback. */
export async function startSdkInteractiveExample(): Promise<RunningServer> {
  const port = await freePort();
  const example = join(
    dirname(require.resolve("@modelcontextprotocol/sdk/package.json")),
    "examples/server/simpleTaskInteractive.js",
  );
  const child = tracked(
    spawn(process.execPath, ["--require", join(ROOT, "test/helpers/loopback-listen.cjs"), example], {
      env: { ...process.env, PORT: String(port) },
      stdio: ["ignore", "ignore", "pipe"],
    }),
    "the SDK's simpleTaskInteractive",
  );
  child.stderr?.resume();
  const url = `http://127.0.0.1:${port}/mcp`;
  await cameUp(child, waitForHttp(url, child));
  return { url, process: child, stop: stopper(child) };
}

/** Our V2 test server over Streamable HTTP; it prints `listening <url>` when ready. */
export async function startV2Http(...flags: string[]): Promise<RunningServer> {
  return startListening([V2_SERVER, "--port", "0", ...flags], "v2 server");
}

/** The demo server's test entry point (demo-server/ with the conformance fixtures and fault hooks). */
export const DEMO_MAIN = join(ROOT, "dist/test-servers/demo-server-main.js");

/** The demo server over HTTP on `port` (0: any free one) with its store (its tasks, and V1 sessions, survive a restart). */
export function startDemoHttp(port: number, store: string, ...flags: string[]): Promise<RunningServer> {
  return startListening([DEMO_MAIN, "--port", String(port), "--store", store, "--quiet", ...flags], "demo server");
}

/** A server process (our V2, demo or hostile test server) that prints `listening <url>` on stdout once ready. */
export async function startListening(args: string[], name: string): Promise<RunningServer> {
  const child = tracked(spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] }), name);
  // The end of its stderr goes into the error if it exits before listening (say, EADDRINUSE).
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2000)));
  const url = await cameUp(
    child,
    new Promise<string>((resolveUrl, reject) => {
      createInterface({ input: child.stdout! }).on("line", (line) => {
        const match = /^listening (\S+)/.exec(line);
        if (match) resolveUrl(match[1]);
      });
      child.once("exit", (code) => reject(new Error(`${name} exited with ${code}; its stderr ends with: ${stderr}`)));
    }),
  );
  return { url, process: child, stop: stopper(child) };
}

export const HOSTILE_SERVER = join(ROOT, "dist/test-servers/hostile-server.js");

/** The stdio command line of the hostile test server for one case, for --stdio. */
export const hostileStdio = (hostileCase: string, generation: "v1" | "v2", ...flags: string[]) =>
  ["node", HOSTILE_SERVER, "--case", hostileCase, "--generation", generation, "--stdio", ...flags].join(" ");

/** The hostile test server (test/servers/hostile-server.ts) over Streamable HTTP; it prints `listening <url>` when ready. */
export async function startHostileHttp(
  hostileCase: string,
  generation: "v1" | "v2",
  ...flags: string[]
): Promise<RunningServer> {
  return startListening(
    [HOSTILE_SERVER, "--case", hostileCase, "--generation", generation, "--port", "0", ...flags],
    "hostile server",
  );
}

/** The project's server on the official SDK's v1 line (test/servers/sdk-v1-server.ts), built. */
export const SDK_V1_SERVER = join(ROOT, "dist/test-servers/sdk-v1-server.js");

/**
 * The SDK v1 test server over stdio and over Streamable HTTP, for a file whose tests run on both: the HTTP server
 * is started before the file's tests and stopped after them (`http()` is it, once started).
 */
export function sdkV1Transports(): {
  http: () => RunningServer;
  transports: Array<{ name: string; server: () => string[] }>;
} {
  let http: RunningServer | undefined;
  beforeAll(async () => {
    http = await startListening([SDK_V1_SERVER, "--port", "0"], "sdk v1 server");
  });
  afterAll(async () => {
    await http?.stop();
  });
  return {
    http: () => http!,
    transports: [
      { name: "stdio", server: () => ["--stdio", `node ${SDK_V1_SERVER} --stdio`] },
      { name: "Streamable HTTP", server: () => ["-s", http!.url] },
    ],
  };
}

/** The test server on mcp-framework (test/servers/framework-server.ts), built. */
export const FRAMEWORK_SERVER = join(ROOT, "dist/test-servers/framework-server.js");

/**
 * The mcp-framework test server over stdio and over its HTTP Stream transport, for a file whose tests run on both:
 * the HTTP server is started before the file's tests and stopped after them.
 */
export function frameworkTransports(): Array<{ name: string; server: () => string[] }> {
  let http: RunningServer | undefined;
  beforeAll(async () => {
    http = await startListening([FRAMEWORK_SERVER, "--port", "0"], "mcp-framework server");
  });
  afterAll(async () => {
    await http?.stop();
  });
  return [
    { name: "stdio", server: () => ["--stdio", `node ${FRAMEWORK_SERVER} --stdio`] },
    { name: "HTTP Stream", server: () => ["-s", http!.url] },
  ];
}
