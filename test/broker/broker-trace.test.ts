// The broker's wire: every broker traces its server connection to brokers/<key>.trace, bounded,
// secrets redacted, kept after it has gone (`server logs --wire`); and a command that traces (--trace[=FILE]) whose
// server is reached through a broker gets that broker's wire for its own requests and its tasks, marked
// "via":"broker". Real servers: server-everything and our V2 server over stdio (their brokers), the SDK v1 server
// over HTTP (the keeper of its session).
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { traceLine } from "../../src/broker/trace-file.js";
import { MAX_BROKER_TRACE_BYTES } from "../../src/limits.js";
import { events, tempHome } from "../helpers/cli.js";
import { runInProcess } from "../helpers/context.js";
import { until } from "../helpers/until.js";
import { everythingStdio, ROOT, startListening, v2Stdio, type RunningServer } from "../helpers/servers.js";

type Event = {
  dir: string;
  via?: string;
  cut?: number;
  message: { id?: string | number; method?: string; params?: Record<string, unknown>; result?: unknown };
};

const ndjson = (text: string): Event[] =>
  text
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Event);

/** The request of `method` (whose params match `params`) and its reply, as a trace holds them. */
function exchange(trace: Event[], method: string, params: Record<string, unknown>) {
  const request = trace.find(
    (e) =>
      e.dir === "out" &&
      e.message.method === method &&
      expect.objectContaining(params).asymmetricMatch(e.message.params),
  );
  const reply =
    request && trace.find((e) => e.dir === "in" && e.message.id === request.message.id && !e.message.method);
  return { request, reply };
}

async function detach(home: string, args: string[]): Promise<string> {
  const run = await runInProcess(["call", ...args, "--detach", "--json"], { home });
  expect(run.code, run.stderr).toBe(0);
  return events(run.stdout)[0]!.taskId as string;
}

const brokerFiles = (home: string, ext: string) =>
  readdirSync(join(home, "brokers"))
    .filter((file) => file.endsWith(ext))
    .map((file) => join(home, "brokers", file));

/** Waits for `pid` to be gone; the bound (helpers/until.ts, 30 s) is hang-only: a broker that never leaves. */
async function gone(pid: number): Promise<void> {
  const alive = () => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  await until(() => !alive(), { what: `process ${pid} to be gone` });
}

describe("the broker's wire", { timeout: 120_000 }, () => {
  describe.each([
    { name: "server-everything", stdio: everythingStdio, args: ["simulate-research-query", "topic=x"], v1: true },
    { name: "our V2 server", stdio: v2Stdio(), args: ["task_complete", "ms=600"], v1: false },
  ])("call --trace=FILE on a stdio task of $name", ({ stdio, args, v1 }) => {
    it("holds the task's tools/call and tasks/get, out and in, relayed from its broker; server logs --wire keeps them", async () => {
      const home = tempHome();
      const file = join(home, "call.ndjson");
      const run = await runInProcess(["call", ...args, "--stdio", stdio, `--trace=${file}`, "--json"], { home });
      expect(run.code, run.stderr).toBe(0);
      const taskId = events(run.stdout).find((e) => e.taskId)!.taskId as string;
      const trace = ndjson(readFileSync(file, "utf8"));
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const call = exchange(trace, "tools/call", { name: args[0] });
      expect(call.request?.via).toBe("broker");
      expect(call.reply?.via).toBe("broker");
      // The task's own reads, or (where the broker hands the command the task's end as a push: a short V2 task)
      // the server's notifications about it, relayed.
      const get = exchange(trace, "tasks/get", { taskId });
      const pushed = trace.some(
        (e) =>
          e.dir === "in" &&
          /^notifications\/tasks/.test(String(e.message?.method)) &&
          JSON.stringify(e).includes(taskId),
      );
      if (get.request || !pushed) {
        expect(get.request?.via).toBe("broker");
        expect(get.reply).toBeDefined();
      }
      // All of it through the broker (this command has no connection of its own to the server), and on 2025-11-25
      // how the broker opened its connection (what it declared), though that was before this command attached.
      expect(trace.every((e) => e.via === "broker")).toBe(true);
      if (v1) expect(exchange(trace, "initialize", {}).reply?.via).toBe("broker");

      // The broker's own trace, after the task ended and after the broker has gone.
      const check = async () => {
        const logs = await runInProcess(["server", "logs", stdio, "--wire", "--json"], { home });
        expect(logs.code, logs.stderr).toBe(0);
        const kept = ndjson(logs.stdout);
        expect(exchange(kept, "tools/call", { name: args[0] }).reply).toBeDefined();
        const about = (e: (typeof kept)[number]) =>
          e.dir === "in" &&
          /^notifications\/tasks/.test(String(e.message?.method)) &&
          JSON.stringify(e).includes(taskId);
        expect(exchange(kept, "tasks/get", { taskId }).reply ?? kept.find(about)).toBeDefined();
        expect(kept.every((e) => e.via === undefined)).toBe(true);
        const text = await runInProcess(["server", "logs", stdio, "--wire"], { home });
        expect(text.stdout).toMatch(/^==> .*\.trace <==\n/);
        expect(text.stdout).toMatch(/→ .* \{"jsonrpc":"2.0","id":\S+,"method":"tools\/call"/);
      };
      await check();
      // Gone: stopped, unless its grace (1 s in the tests) ended it already.
      for (const broker of JSON.parse((await runInProcess(["server", "ps", "--json"], { home })).stdout)) {
        await runInProcess(["server", "stop", broker.name], { home });
        await gone(broker.pid);
      }
      // hang-only (30 s): a broker record that is never removed.
      await until(() => brokerFiles(home, ".json").length === 0, { what: "the broker's record removed" }).catch(
        () => {},
      );
      expect(brokerFiles(home, ".json")).toEqual([]);
      for (const trace of brokerFiles(home, ".trace")) expect(statSync(trace).mode & 0o777).toBe(0o600);
      await check();
    });
  });

  it("watch --trace from a new process on a detached task shows its own requests through the broker, and their replies", async () => {
    const home = tempHome();
    // A task that waits for its answer: it is still there to be read, however late the watch comes.
    const id = await detach(home, ["task_input_once", "ms=200", "--stdio", v2Stdio()]);
    // A new command (in-process: the broker is the process here): what it finds is what the detached call left with
    // its broker.
    const watched = await runInProcess(["watch", id, "--trace", "--input", '{"name":"Kay"}'], { home });
    expect(watched.code, watched.stderr).toBe(0);
    // Its answer (tasks/update) is always its own request; a read (tasks/get) may be one the broker made for
    // another reader and shared (src/broker/reads.ts), so it is not looked for.
    const get = new RegExp(
      `→ .* \\(broker\\) \\{"jsonrpc":"2.0","id":(\\S+),"method":"tasks/update","params":\\{"taskId":"${id}"`,
    );
    const match = get.exec(watched.stderr);
    expect(match, watched.stderr).not.toBeNull();
    expect(watched.stderr).toContain(`← `);
    expect(watched.stderr).toMatch(
      new RegExp(`← .* \\(broker\\) \\{"jsonrpc":"2.0","id":${match![1].replace(/[^\w"-]/g, "")}`),
    );
    // A command that does not trace is sent nothing of the wire.
    const quiet = await runInProcess(["watch", id], { home });
    expect(quiet.stderr).not.toMatch(/→|←/);
  });

  it("a V1 question of the task (the SDK v1 server over stdio): its elicitation/create and the answer, traced once", async () => {
    const home = tempHome();
    const file = join(home, "call.ndjson");
    const stdio = `node ${join(ROOT, "dist/test-servers/sdk-v1-server.js")} --stdio`;
    const answer = '{"name":"a","count":2}';
    const run = await runInProcess(
      ["call", "confirm", "item=x", "--stdio", stdio, "--input", answer, `--trace=${file}`],
      {
        home,
      },
    );
    expect(run.code, run.stderr).toBe(0);
    const trace = ndjson(readFileSync(file, "utf8"));
    // Once: a handler set over the traced one (protocol/rpc.ts over the SDK's) does not trace the message again.
    const asked = trace.filter((e) => e.dir === "in" && e.message.method === "elicitation/create");
    expect(asked).toHaveLength(1);
    expect(asked[0].via).toBe("broker");
    const replies = trace.filter((e) => e.dir === "out" && e.message.id === asked[0].message.id && !e.message.method);
    expect(replies).toHaveLength(1);
    expect(replies[0].message).toMatchObject({ result: { action: "accept", content: { name: "a", count: 2 } } });
  });

  it("server logs --wire keeps the trace of a broker whose server crashed", async () => {
    const home = tempHome();
    await detach(home, ["task_slow", "ms=60000", "--stdio", v2Stdio()]);
    const [broker] = JSON.parse((await runInProcess(["server", "ps", "--json"], { home })).stdout);
    process.kill(broker.serverPid, "SIGKILL");
    await gone(broker.pid);
    const logs = await runInProcess(["server", "logs", v2Stdio(), "--wire", "--json"], { home });
    expect(logs.code, logs.stderr).toBe(0);
    expect(exchange(ndjson(logs.stdout), "tools/call", { name: "task_slow" }).reply).toBeDefined();
  });

  it("the bound holds: a chatty stdio task does not grow the broker's trace past MAX_BROKER_TRACE_BYTES", async () => {
    const home = tempHome();
    const big = "x".repeat(40_000);
    for (let round = 0; round < 4; round++)
      await Promise.all(
        [0, 1, 2].map(async () => {
          const run = await runInProcess(["call", "task_complete", "ms=10", `text=${big}`, "--stdio", v2Stdio()], {
            home,
          });
          expect(run.code, run.stderr).toBe(0);
        }),
      );
    const [trace] = brokerFiles(home, ".trace");
    expect(existsSync(`${trace}.1`)).toBe(true);
    for (const file of [trace, `${trace}.1`]) {
      expect(statSync(file).size).toBeLessThanOrEqual(MAX_BROKER_TRACE_BYTES);
      const kept = ndjson(readFileSync(file, "utf8"));
      // A long message keeps its start, and says how long it was.
      expect(kept.some((e) => typeof e.cut === "number" && e.cut > 40_000 && typeof e.message === "string")).toBe(true);
    }
  });

  it("a line of a broker's trace is redacted of the resolved ${env:} values, wherever a message echoes one", () => {
    const secrets = new Map([["s3cret-value-42", "${env:API_KEY}"]]);
    const event = {
      t: "2026-12-01T00:00:00.000Z",
      server: "s",
      dir: "in" as const,
      message: { result: "s3cret-value-42" },
    };
    expect(traceLine(event, secrets)).toBe(`${JSON.stringify({ ...event, message: { result: "${env:API_KEY}" } })}\n`);
  });

  describe("the keeper of a V1 session over HTTP (the SDK v1 server)", () => {
    let http: RunningServer;
    beforeAll(async () => {
      http = await startListening([join(ROOT, "dist/test-servers/sdk-v1-server.js"), "--port", "0"], "sdk v1 server");
    });
    afterAll(async () => {
      await http?.stop();
    });

    it("traces its connection with the saved server's ${env:} secrets redacted; --trace gets what it sends for the command", async () => {
      const home = tempHome();
      const add = ["server", "add", "kept", "--url", http.url, "--header", "Authorization: Bearer ${env:KEPT_TOKEN}"];
      expect((await runInProcess(add, { home })).code).toBe(0);
      const secret = "kept-token-very-secret-5678";
      const env = { KEPT_TOKEN: secret };
      const file = join(home, "call.ndjson");
      const run = await runInProcess(["call", "work", "ms=400", "-s", "kept", `--trace=${file}`, "--json"], {
        home,
        env,
      });
      expect(run.code, run.stderr).toBe(0);
      const taskId = events(run.stdout).find((e) => e.taskId)!.taskId as string;
      const trace = readFileSync(file, "utf8");
      // The keeper makes the call, and reads the task, for this command: relayed into its trace, marked. (A loaded
      // machine may see the 400 ms task end before any tasks/get: the call is the keeper's always.)
      const call = exchange(ndjson(trace), "tools/call", { name: "work" });
      expect([call.request?.via, call.reply?.via]).toEqual(["broker", "broker"]);
      const reads = ndjson(trace).filter(
        (e) => e.message?.method === "tasks/get" && e.message.params?.taskId === taskId,
      );
      for (const read of reads) expect(read.via).toBe("broker");
      expect(trace).not.toContain(secret);

      const [kept] = brokerFiles(home, ".trace");
      expect(kept).toMatch(/-[0-9a-f]+\.trace$/); // the keeper's: <key>-<session>.trace
      const raw = readFileSync(kept, "utf8");
      expect(raw).toContain('"> authorization":"[redacted]"');
      expect(raw).not.toContain(secret);
      const logs = await runInProcess(["server", "logs", "kept", "--wire", "--json"], { home, env });
      expect(logs.code, logs.stderr).toBe(0);
      expect(exchange(ndjson(logs.stdout), "tasks/get", { taskId }).reply).toBeDefined();
      expect(logs.stdout).not.toContain(secret);
    });
  });
});
