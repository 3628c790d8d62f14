// The sections of `npm run bench` that follow tasks (scripts/bench.mjs runs them): a task call through a warm
// broker beside the MCP Inspector daemon's (mcpdo) warm call, the wire trace's cost, a signed-in call, and `wait`
// over 100 tasks. Each figure that has a goal is a ratio, or a count, timed in turns with what it is compared to.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";

/** A server process that prints `listening <url>` once ready; its stderr lines go to `onLine`. */
export async function listening(args, onLine = () => {}) {
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
  createInterface({ input: child.stderr }).on("line", onLine);
  const url = await new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).on("line", (l) => l.startsWith("listening ") && resolve(l.slice(10)));
    child.once("exit", (code) => reject(new Error(`${args[0]} exited with ${code}`)));
  });
  return { url, stop: () => child.kill() };
}

/** A task call through a warm broker, beside the Inspector daemon's warm plain call (both timed in turns). */
export function brokerSection({ root, bin, everything, node22, runs, row, once, timePair }) {
  const home = mkdtempSync(join(tmpdir(), "bench-broker-"));
  const env = { ...process.env, MCP_TASK_HOME: home, MCP_TASK_BROKER_GRACE: "600s" };
  const v2 = `node ${join(root, "dist/test-servers/v2-server.js")} --stdio --poll-interval 200 --quiet`;
  const v1 = `node ${join(root, "dist/test-servers/sdk-v1-server.js")} --stdio`;
  const calls = {
    v2: [process.execPath, [bin, "call", "task_complete", "ms=10", "--stdio", v2], { env }],
    v1: [process.execPath, [bin, "call", "work", "ms=10", "--stdio", v1], { env }],
  };
  for (const call of Object.values(calls)) once(...call); // starts each broker (and caches the verdicts)
  const mcpdoHome = mkdtempSync(join(tmpdir(), "bench-mcpdo-"));
  const menv = { ...process.env, HOME: mcpdoHome, MCP_CATALOG_PATH: join(mcpdoHome, "mcp.json") };
  const mcpdo = join(root, "node_modules/.bin/mcpdo");
  let daemon;
  try {
    once(node22, [mcpdo, "connect", "--server", "ev", "node", everything, "stdio"], { env: menv, timeout: 60_000 });
    daemon = [node22, [mcpdo, "@ev", "tools/call", "echo", "message:=hi"], { env: menv }];
    once(...daemon); // its connection up, warm
  } catch (error) {
    row("broker", `MCP Inspector daemon (mcpdo): failed (${String(error.message).slice(0, 40)})`, "-", "");
  }
  const label = { v2: "our V2 test server", v1: "the SDK's v1 test server (V1)" };
  for (const [key, call] of Object.entries(calls)) {
    const what = `mcp-task call, warm broker, 10 ms task, poll 200 ms, ${label[key]}, stdio`;
    if (!daemon) {
      row("broker", what, timePair(call, [process.execPath, ["-e", "0"]])[0], "ms", { max: 215, text: "≤ 215 ms" });
      continue;
    }
    const [ours, theirs] = timePair(call, daemon);
    row("broker", what, ours);
    if (key === "v2")
      row("broker", "MCP Inspector 2.12.0 daemon (mcpdo), warm tools/call echo, server-everything", theirs);
    // The V1 call waits on the server: the SDK answers tasks/result, and tasks/get says the task ended, only at its
    // own check of the task each poll interval (200 ms), which no client may hurry. Shown, without the goal.
    if (key === "v1")
      row(
        "broker",
        "warm broker task call (V1) / Inspector daemon's warm call (the server's 200 ms poll in it)",
        ours / theirs,
        "x",
      );
    else
      row("broker", "warm broker task call (V2) / Inspector daemon's warm call", ours / theirs, "x", {
        max: 0.5,
        text: "≤ 0.5x",
      });
  }
  for (const server of [v2, v1]) spawnSync(process.execPath, [bin, "server", "stop", server], { env, stdio: "ignore" });
  if (daemon) spawnSync(node22, [mcpdo, "daemon", "stop"], { env: menv, stdio: "ignore", timeout: 20_000 });
  rmSync(mcpdoHome, { recursive: true, force: true });
  void runs;
}

/** The same plain call with the wire trace to a file and without, in turns. */
export function traceSection({ bin, everything, env, row, timePair }) {
  const file = join(mkdtempSync(join(tmpdir(), "bench-trace-")), "trace.ndjson");
  const args = [bin, "call", "echo", "message=hi", "--stdio", `node ${everything} stdio`];
  const [on, off] = timePair(
    [process.execPath, [args[0], `--trace=${file}`, ...args.slice(1)], { env }],
    [process.execPath, args, { env }],
  );
  row("trace", "mcp-task call echo (stdio), --trace=FILE", on);
  row("trace", "the same without a trace, timed in turns", off);
  row("trace", "with the trace / without", on / off, "x", { max: 1.1, text: "≤ 1.10x" });
}

/** `tools` on an OAuth-protected server with the token in the store, beside the same server unprotected. */
export async function authSection({ root, bin, row, timePair }) {
  const home = mkdtempSync(join(tmpdir(), "bench-auth-"));
  const env = { ...process.env, MCP_TASK_HOME: home, BROWSER: "" };
  const protectedServer = await listening([join(root, "dist/test-servers/oauth-server.js")]);
  const open = await listening([join(root, "dist/test-servers/sdk-v1-server.js"), "--port", "0"]);
  try {
    spawnSync(process.execPath, [bin, "server", "add", "signed", "--url", protectedServer.url], { env });
    const approve = `${process.execPath} ${join(root, "test/servers/approve-browser.mjs")}`;
    const login = spawnSync(process.execPath, [bin, "login", "signed"], { env: { ...env, BROWSER: approve } });
    if (login.status !== 0) throw new Error(`login exited ${login.status}: ${login.stderr}`);
    spawnSync(process.execPath, [bin, "server", "add", "open", "--url", open.url], { env });
    const [signed, plain] = timePair(
      [process.execPath, [bin, "tools", "-s", "signed"], { env }],
      [process.execPath, [bin, "tools", "-s", "open"], { env }],
    );
    row("auth", "mcp-task tools, signed in (token from the store), V1 over HTTP", signed);
    row("auth", "the same server without OAuth, timed in turns", plain);
    row("auth", "signed in / without OAuth", signed / plain, "x", { max: 1.25, text: "≤ 1.25x" });
  } finally {
    protectedServer.stop();
    open.stop();
  }
}

/** 100 tasks detached on our V2 server, then one `wait --all`: its time beyond the last task's end, its requests. */
export async function waitSection({ root, bin, env, row }) {
  const home = mkdtempSync(join(tmpdir(), "bench-wait-"));
  const wenv = { ...env, MCP_TASK_HOME: home };
  const ended = [];
  const server = await listening(
    [join(root, "dist/test-servers/v2-server.js"), "--port", "0", "--poll-interval", "1000"],
    (line) => / -> (completed|failed)/.test(line) && ended.push(Date.now()),
  );
  const run = (args) =>
    new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [bin, ...args], { env: wenv, stdio: ["ignore", "pipe", "pipe"] });
      let out = "";
      let err = "";
      child.stdout.on("data", (d) => (out += d));
      child.stderr.on("data", (d) => (err += d));
      child.on("exit", (code) =>
        code === 0
          ? resolve(out)
          : reject(new Error(`${args.join(" ")} exited ${code}: ${err.slice(-300)} ${out.slice(-300)}`)),
      );
    });
  let retries = 0;
  const retried = (f) => f().catch(() => (retries++, f()));
  const stats = async () => JSON.parse(await run(["call", "_stats", "-s", server.url]));
  try {
    const n = Number(process.env.BENCH_WAIT_TASKS ?? 100);
    // The tasks end together, a few seconds after the last is detached (as far as the first 8 tell how long that
    // takes here): each is given what remains until then.
    const started = Date.now();
    let deadline = Infinity;
    const waited = [];
    for (let i = 0; i < n; i += 8) {
      const ms = Number.isFinite(deadline) ? Math.max(1000, deadline - Date.now()) : 600_000;
      const batch = Array.from({ length: Math.min(8, n - i) }, () =>
        // Tried again once: on a loaded machine a connection of eight starting at once was seen reset.
        retried(() => run(["call", "task_complete", `ms=${Math.round(ms)}`, "--detach", "--json", "-s", server.url])),
      );
      const ids = (await Promise.all(batch)).map((out) => JSON.parse(out.split("\n")[0]).taskId);
      if (process.env.BENCH_VERBOSE) console.log(`detached ${i + ids.length} in ${Date.now() - started} ms`);
      if (!Number.isFinite(deadline)) {
        // The first batch (told to run 10 min) is cancelled and started again with the others' end.
        const batchMs = Date.now() - started;
        await Promise.all(ids.map((id) => run(["cancel", id]).catch(() => {})));
        await run(["forget", ...ids]).catch(() => {});
        deadline = Date.now() + batchMs * Math.ceil(n / 8) * 1.5 + 5000;
        i -= 8;
        continue;
      }
      waited.push(...ids);
    }
    const taskMs = deadline - started; // the longest a task ran
    const before = await stats();
    if (Date.now() > deadline)
      throw new Error("the tasks ended before the wait began (detaching was slower than foreseen)");
    await run(["wait", ...waited, "--all", "--json"]);
    const done = Date.now();
    const after = await stats();
    const reads = (after["tasks/get"] ?? 0) - (before["tasks/get"] ?? 0);
    const listens = (after["subscriptions/listen"] ?? 0) - (before["subscriptions/listen"] ?? 0);
    row(
      "wait",
      `wait --all over ${n} tasks ending together (poll 1 s): time beyond the last task's end`,
      done - Math.max(...ended),
      "ms",
      { max: 1000, text: "≤ 1 poll interval" },
    );
    row("wait", `tasks/get per task made by that wait (push on)`, reads / n, "reqs", {
      max: Math.ceil(taskMs / 3000),
      text: `≤ ${Math.ceil(taskMs / 3000)} (one per 3 intervals of the longest task)`,
    });
    if (retries) console.log(`(${retries} detach(es) tried again after a failure)`);
    row("wait", `subscriptions/listen streams opened by that wait`, listens, "reqs", { max: 1, text: "≤ 1" });
  } finally {
    server.stop();
  }
}
