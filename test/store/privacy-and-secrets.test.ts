// What mcp-task promises about the user's data: the store is private (and checked at every start), and secrets
// given as ${env:NAME} references never reach the terminal, a pipe, a --json line or a file. The commands run
// in-process (test/helpers/context.ts: the same store check at start, the same connect policy, output redacted by the
// map the product fills, as the process's streams are), each test with a few of its commands run by the binary as
// well (what those prove is the process's own streams: stdout, a --json line, a server's stderr in an error).
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { expect, it } from "vitest";
import { events, runCli, tempHome, type CliResult } from "../helpers/cli.js";
import { runInProcess } from "../helpers/context.js";
import { until } from "../helpers/until.js";
import { hostileStdio, startHostileHttp, startV2Http } from "../helpers/servers.js";

const noStack = (text: string) => expect(text).not.toMatch(/\n\s+at .+:\d+:\d+/);

/**
 * Runs commands in `home` with `env`, keeping every run's output (to check what none of them wrote): `cli` by the
 * binary, or in-process when `inProcess`; `binary` by the binary always.
 */
function recording(home: string, env: Record<string, string>, inProcess = false) {
  const outputs: CliResult[] = [];
  const binary = async (args: string[]) => {
    const run = await runCli(args, { home, env });
    outputs.push(run);
    return run;
  };
  const cli = async (args: string[]) => {
    if (!inProcess) return binary(args);
    const run = await runInProcess(args, { home, env });
    outputs.push(run);
    return run;
  };
  return { outputs, cli, binary };
}

it("the store is checked at start: opened to others it is made private again, and said so", async () => {
  const home = tempHome();
  expect((await runInProcess(["list"], { home })).code).toBe(0);
  chmodSync(home, 0o755);
  chmodSync(join(home, "tasks"), 0o777);
  writeFileSync(join(home, "tasks", "x.00000000.json"), "{}", { mode: 0o644 });
  chmodSync(join(home, "tasks", "x.00000000.json"), 0o644);

  const repaired = await runInProcess(["list", "--json"], { home });
  expect(repaired.code).toBe(0);
  expect(repaired.stdout.trim()).toBe("[]"); // stdout stays the document; the notice goes to stderr
  expect(repaired.stderr).toMatch(/was open to other users \(mode 755\): made it private \(0700\)/);
  expect(repaired.stderr).toMatch(
    /tasks was open to other users \(mode 777\): made it private \(0700\), and 1 file\(s\) in it \(0600\)/,
  );
  expect(statSync(home).mode & 0o777).toBe(0o700);
  expect(statSync(join(home, "tasks")).mode & 0o777).toBe(0o700);
  expect(statSync(join(home, "tasks", "x.00000000.json")).mode & 0o777).toBe(0o600);
  expect((await runInProcess(["list", "--json"], { home })).stderr).not.toMatch(/private/); // once repaired, silent
});

it("the store is checked at start: another user's is refused", async (ctx) => {
  // Owned by someone else: only root can make that here (chown to another uid).
  if (process.getuid?.() !== 0) ctx.skip("needs root to give a store to another user (chown)");
  const foreign = tempHome();
  mkdirSync(join(foreign, "tasks"), { mode: 0o700 });
  chownSync(foreign, 4242, 4242);
  for (const json of [false, true]) {
    const refused = await runInProcess(["list", ...(json ? ["--json"] : [])], { home: foreign });
    expect(refused.code).toBe(2);
    noStack(refused.stderr);
    if (json)
      expect(events(refused.stdout)).toEqual([
        expect.objectContaining({
          type: "error",
          exitCode: 2,
          message: expect.stringMatching(/belongs to another user \(uid 4242\)/),
        }),
      ]);
    else expect(refused.stderr).toMatch(/belongs to another user \(uid 4242\).*\n.*MCP_TASK_HOME/);
  }
});

it("secrets given as ${env:NAME} never reach stdout, stderr, --json lines or the files mcp-task keeps", async () => {
  const SECRET = "tok-SECRET-8731-xyz";
  const env = { MY_TOKEN: SECRET };
  const home = tempHome();
  const server = await startV2Http();
  const { outputs, cli, binary } = recording(home, env, true);
  try {
    expect(
      (await cli(["server", "add", "api", "--url", server.url, "--header", "Authorization: Bearer ${env:MY_TOKEN}"]))
        .code,
    ).toBe(0);
    // A stdio server that prints the secret it was given to stderr, then dies: its stderr tail is in the error.
    const leaky = `node -e "console.error('my token is '+process.env.API_TOKEN); process.exit(3)"`;
    expect((await cli(["server", "add", "leaky", "--stdio", leaky, "--env", "API_TOKEN=${env:MY_TOKEN}"])).code).toBe(
      0,
    );

    // A server that echoes the secret back (here: because it was sent as an argument) still shows the reference: on
    // the process's own stdout, and in a --json line.
    const echoed = await binary(["call", "echo", `text=${SECRET}`, "-s", "api"]);
    expect(echoed.code).toBe(0);
    expect(echoed.stdout.trim()).toBe("${env:MY_TOKEN}");
    const echoedJson = await binary(["call", "echo", `text=say ${SECRET}`, "-s", "api", "--json"]);
    expect(JSON.stringify(events(echoedJson.stdout))).toContain("say ${env:MY_TOKEN}");

    const task = await cli(["call", "task_slow", "ms=300", "-s", "api", "--json"]);
    expect(task.code).toBe(0);
    const id = events(task.stdout)[0].taskId as string;
    for (const args of [
      ["get", id, "--json"],
      ["watch", id],
      ["export", id],
      ["list", "--json"],
      ["server", "list", "--json"],
    ]) {
      expect((await cli(args)).code, args.join(" ")).toBe(0);
    }
    for (const args of [
      ["tools", "-s", "leaky"],
      ["call", "echo", "-s", "leaky", "--json"],
      ["call", "echo", "-s", "leaky"],
    ]) {
      // The last by the binary: the server's stderr, in the error on the process's own stderr.
      const failed = await (args.length === 4 ? binary : cli)(args);
      expect(failed.code, args.join(" ")).toBe(4);
      expect(failed.stdout + failed.stderr).toContain("my token is ${env:MY_TOKEN}");
      noStack(failed.stderr);
    }
  } finally {
    await server.stop();
  }
  for (const run of outputs) expect(run.stdout + run.stderr).not.toContain(SECRET);
  // Nor does any file kept: settings, handles, the index, broker files.
  const files = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? files(join(dir, e.name)) : e.isFile() ? [join(dir, e.name)] : [],
    );
  const kept = files(home);
  expect(kept.length).toBeGreaterThan(2);
  for (const file of kept) expect(readFileSync(file, "utf8"), file).not.toContain(SECRET);
}, 120_000); // hang-only: 3 processes and 10 commands in-process on a loaded machine

/** Every file under `dir`. */
const filesUnder = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(join(dir, e.name)) : e.isFile() ? [join(dir, e.name)] : [],
  );

it("an imported handle reaches no new server unconfirmed, carries no credentials and spends none of the importer's secrets", async () => {
  const GITHUB = "ghp-IMPORTER-SECRET-5521";
  const AWS = "aws-IMPORTER-SECRET-9090";
  const env = { GITHUB_TOKEN: GITHUB, AWS_SECRET_ACCESS_KEY: AWS };
  const server = await startV2Http();
  // The attacker's server. A listener of our own, not a real MCP server: the point is only what reaches it.
  const seen: string[] = [];
  const trap = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      seen.push(JSON.stringify(req.headers) + body);
      res.writeHead(503).end();
    });
  });
  await new Promise<void>((resolve) => trap.listen(0, "127.0.0.1", resolve));
  const trapUrl = `http://127.0.0.1:${(trap.address() as AddressInfo).port}/mcp`;
  const marker = join(tempHome(), "started");
  try {
    const home = tempHome();
    const started = await runInProcess(["call", "task_slow", "ms=200", "-s", server.url, "--detach"], { home });
    expect(started.code).toBe(0);
    const id = started.stdout.trim();
    const exported = JSON.parse((await runInProcess(["export", id], { home })).stdout);
    // Crafted: the importer's saved server's name, another address, credentials of its own and references to the
    // importer's environment; and a stdio twin whose command would leave a mark if it ever ran.
    const crafted = {
      ...exported,
      server: {
        name: "api",
        descriptor: {
          transport: "http",
          url: trapUrl,
          headers: {
            Authorization: "Bearer ${env:GITHUB_TOKEN}",
            "X-Aws": "${env:AWS_SECRET_ACCESS_KEY}",
            "X-Key": "attacker-literal",
          },
        },
      },
    };
    const stdioTwin = {
      ...exported,
      taskId: `${id}-stdio`,
      server: {
        name: "api",
        descriptor: {
          transport: "stdio",
          command: "sh",
          args: ["-c", `touch ${marker}`],
          env: { T: "${env:GITHUB_TOKEN}" },
        },
      },
    };
    const victim = tempHome();
    // The trap answers every request at once (503): a command that reaches it gives up 200 ms after its first failed
    // read (the product's default is a minute), without a request timeout of our own that a loaded machine could hit.
    const run = (args: string[], input?: string) =>
      runInProcess(args, {
        home: victim,
        env: { ...env, MCP_TASK_GIVE_UP: "200ms" },
        input,
      });
    expect(
      (
        await run([
          "server",
          "add",
          "api",
          "--url",
          server.url,
          "--header",
          "Authorization: Bearer ${env:GITHUB_TOKEN}",
        ])
      ).code,
    ).toBe(0);

    // Not confirmed (no terminal, no --yes): nothing is saved, and the new server is named.
    const refused = await run(["import", "-"], JSON.stringify([crafted, stdioTwin]));
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      `not imported: the imported task(s) name servers not saved here: ${trapUrl}, sh -c touch ${marker}`,
    );
    expect(refused.stderr).toMatch(/^hint: check them, then import again with --yes/m);
    noStack(refused.stderr);
    expect(JSON.parse((await run(["list", "--json"])).stdout)).toEqual([]);

    // Confirmed: saved under their addresses, without credentials; every command that reaches a server reaches the
    // trap without a secret, and the stdio twin never starts its command.
    expect((await run(["import", "--yes", "-"], JSON.stringify([crafted, stdioTwin]))).code).toBe(0);
    const listed = JSON.parse((await run(["list", "--json"])).stdout) as Array<{ taskId: string; server: string }>;
    expect(listed.map((row) => row.server).sort()).toEqual([`sh -c touch ${marker}`, trapUrl].sort());
    for (const args of [
      ["get", id],
      ["watch", id],
      ["result", id],
      ["cancel", id],
      ["get", `${id}-stdio`],
      ["watch", `${id}-stdio`],
      ["cancel", `${id}-stdio`],
    ]) {
      const reached = await run(args);
      expect(reached.code, args.join(" ")).toBe(4);
      noStack(reached.stderr);
    }
    expect(seen.length).toBeGreaterThan(0);
    for (const request of seen) {
      for (const secret of [GITHUB, AWS, "attacker-literal"]) expect(request).not.toContain(secret);
      expect(request.toLowerCase()).not.toContain("authorization");
    }
    expect(existsSync(marker)).toBe(false);
    for (const file of filesUnder(victim))
      for (const secret of [GITHUB, AWS, "attacker-literal"])
        expect(readFileSync(file, "utf8"), file).not.toContain(secret);

    // The honest export of a task at the saved server's address: no credentials in it; imported without asking,
    // it takes the saved server (its name and its credentials), and is followed to its end there.
    expect(JSON.stringify(exported)).not.toContain("headers");
    const honest = await run(["import", "-"], JSON.stringify(exported));
    expect(honest.code).toBe(0);
    expect(honest.stderr).toContain(`imported ${id} (server api)`);
    const followed = await run(["watch", id, "-s", "api"]);
    expect(followed.code).toBe(0);
    expect(followed.stdout).toContain("task_slow: done");
  } finally {
    trap.close();
    await server.stop();
  }
}, 180_000); // hang-only: real servers, keepers and a score of commands on a loaded machine

it("an import never replaces a saved task's handle: a crafted file marked newer, with a forged outcome and arguments, changes nothing", async () => {
  const home = tempHome();
  const server = await startV2Http();
  const run = (args: string[], input?: string) => runInProcess(args, { home, ...(input !== undefined && { input }) });
  const taskOf = async (args: string[]) => events((await run(args)).stdout)[0].taskId as string;
  try {
    expect((await run(["server", "add", "api", "--url", server.url])).code).toBe(0);
    const ended = await taskOf(["call", "task_slow", "ms=200", "-s", "api", "--json"]);
    const running = await taskOf(["call", "task_slow", "ms=60000", "-s", "api", "--detach", "--json"]);
    const real = await run(["result", ended]);
    expect(real.code, real.stderr).toBe(0);
    const files = () =>
      Object.fromEntries(filesUnder(join(home, "tasks")).map((file) => [file, readFileSync(file, "utf8")]));
    const before = files();
    // Each task as exported, then forged: newer than anything saved, ended with a result of the forger's.
    const later = "2999-01-01T00:00:00.000Z";
    const forged = [];
    for (const id of [ended, running]) {
      const exported = JSON.parse((await run(["export", id])).stdout) as Record<string, unknown>;
      forged.push({
        ...exported,
        arguments: { ms: 1, forged: true },
        updatedAt: later,
        last: { ...(exported.last as object), status: "completed" },
        history: [{ status: "completed", at: later, statusMessage: "forged" }],
        outcome: { status: "completed", result: { content: [{ type: "text", text: "FORGED RESULT" }] } },
      });
    }
    const imported = await run(["import", "-"], JSON.stringify(forged));
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stderr).toContain(
      `not imported: a handle is saved here for ${ended} (server api), ${running} (server api); an import never replaces one`,
    );
    expect(files()).toEqual(before);
    const after = await run(["result", ended]);
    expect(after.stdout).toBe(real.stdout);
    expect(after.stdout).not.toContain("FORGED");
    const got = JSON.parse((await run(["get", running, "--json"])).stdout) as Record<string, unknown>;
    expect(got).toMatchObject({ status: "working" });
    expect((await run(["result", running, "--no-wait"])).code).toBe(7);
    await run(["cancel", running]);
  } finally {
    await server.stop();
  }
});

it("a handle planted in the store never starts its command, whatever its transport says: get, watch, cancel, list and the dashboard", async () => {
  const home = tempHome();
  expect((await runInProcess(["list"], { home })).code).toBe(0); // the store made
  const marks = tempHome();
  // "Stdio" and the others were once read as stdio by the connect policy, after a check that wanted exactly "stdio"
  // had let them past: `get` (and the dashboard, with no id named) started the command.
  const transports = ["Stdio", "stdio ", "sse", "HTTP", "stdio"];
  transports.forEach((transport, i) =>
    writeFileSync(
      join(home, "tasks", `planted-${i}.0000beef.json`),
      JSON.stringify({
        version: 1,
        taskId: `planted-${i}`,
        tool: "x",
        server: {
          name: "prod",
          descriptor: { transport, command: "sh", args: ["-c", `touch ${join(marks, `ran-${i}`)}`], url: "x" },
        },
        resume: { generation: "v2" },
        arguments: {},
        createdAt: "2026-01-01T00:00:00Z",
        updatedAt: "2026-01-01T00:00:00Z",
        last: { status: "working" },
        history: [],
        answered: [],
      }),
      { mode: 0o600 },
    ),
  );
  const exact = transports.length - 1;
  const env = { MCP_TASK_GIVE_UP: "1s", MCP_TASK_REQUEST_TIMEOUT: "2s" };
  for (let i = 0; i < transports.length; i++)
    for (const verb of ["get", "watch", "cancel"]) {
      const run = await runInProcess([verb, `planted-${i}`], { home, env });
      // Not a handle (skipped by every command), or, spelled exactly, a stdio task whose broker is not running.
      expect(run.code, `${verb} ${transports[i]}: ${run.stderr}`).toBe(i === exact ? 4 : 5);
      noStack(run.stderr);
    }
  const listed = await runInProcess(["list", "--json"], { home });
  expect((JSON.parse(listed.stdout) as Array<{ taskId: string }>).map((row) => row.taskId)).toEqual([
    `planted-${exact}`,
  ]);
  expect(listed.stderr).toMatch(/skipped 4 /);
  const { DashboardModel } = await import("../../src/ui/model.js");
  const { testContext } = await import("../helpers/context.js");
  const model = new DashboardModel(await testContext(home, { env }));
  await model.start();
  // start() reads the store and starts following what it follows at once (such a row says "connecting" from then
  // on): waited until no follow is in flight, not a fixed 3 s. Hang-only bound.
  const rows = await until(
    () => {
      const rows = model.getState().rows;
      return rows.every((r) => r.connection === "idle" || r.connection === "error") ? rows : undefined;
    },
    { hangMs: 30_000, what: "the dashboard's follows to end" },
  );
  await model.close();
  expect(rows.map((r) => r.summary.taskId)).toEqual([`planted-${exact}`]);
  expect(readdirSync(marks)).toEqual([]);
});

it("a secret with a quote, a backslash or a newline is redacted as it is written: escaped in --json and --trace, folded in an error line", async () => {
  const env = { QUOTED: 'pa"ss-SECRET-1', SLASHED: "pa\\ss-SECRET-2", SPLIT: "SECRETPART1\nSECRETPART2" };
  const home = tempHome();
  const server = await startV2Http();
  const { outputs, cli, binary } = recording(home, env, true);
  try {
    for (const name of ["QUOTED", "SLASHED", "SPLIT"])
      expect(
        (await cli(["server", "add", name.toLowerCase(), "--url", server.url, "--header", `X-Key: \${env:${name}}`]))
          .code,
      ).toBe(0);
    for (const name of ["QUOTED", "SLASHED"]) {
      const secret = env[name as keyof typeof env];
      for (const args of [
        ["call", "echo", `text=say ${secret}`, "-s", name.toLowerCase(), "--json"],
        ["--trace", "call", "echo", `text=say ${secret}`, "-s", name.toLowerCase()],
        [`--trace=${join(home, "trace.ndjson")}`, "call", "echo", `text=say ${secret}`, "-s", name.toLowerCase()],
      ]) {
        // The trace on stderr by the binary too (the process's own stream).
        const run = await (args[0] === "--trace" ? binary : cli)(args);
        expect(run.code, run.stderr).toBe(0);
        expect(run.stdout + run.stderr).toContain(`say \${env:${name}}`);
      }
    }
    // A header value with a newline in it is refused by fetch, whose message quotes it (its newline folded).
    const split = await cli(["tools", "-s", "split"]);
    expect(split.code).toBe(4);
    noStack(split.stderr);
  } finally {
    await server.stop();
  }
  // The trace file too (the header's value and the echoed text, each once or twice escaped).
  const traced = readFileSync(join(home, "trace.ndjson"), "utf8");
  expect(traced).toContain("${env:QUOTED}");
  for (const text of [...outputs.map((run) => run.stdout + run.stderr), traced])
    for (const part of ['pa"ss', "pa\\ss", "SECRETPART"]) expect(text).not.toContain(part);
});

it("a secret a server echoes (status message, result, error) is kept nowhere and printed by no command: handles, index, traces, get, result, export, list, server logs --wire", async () => {
  // The key has a quote and a backslash: the result's text holds it JSON-escaped, and the handle escapes that again.
  const env = { ECHO_TOKEN: "tok-ECHOTOKEN-5521", ECHO_KEY: 'k"e\\y-ECHOKEY-7788' };
  const home = tempHome();
  const { outputs, cli, binary } = recording(home, env, true);
  const traceFile = join(home, "..", `trace-${Date.now()}.ndjson`);
  for (const generation of ["v1", "v2"] as const) {
    const server = await startHostileHttp("echo-secrets", generation);
    const name = `echo-${generation}`;
    try {
      const headers = ["--header", "Authorization: Bearer ${env:ECHO_TOKEN}", "--header", "X-Api-Key: ${env:ECHO_KEY}"];
      expect((await cli(["server", "add", name, "--url", server.url, ...headers])).code).toBe(0);
      // Followed to the end (V1: through the session's keeper, a broker, which records the outcome and traces).
      const called = await cli([`--trace=${traceFile}`, "call", "echo_auth", "-s", name, "--json"]);
      expect(called.code, called.stderr).toBe(0);
      const id = events(called.stdout)[0].taskId as string;
      const failed = await cli(["call", "echo_fail", "-s", name, "--json"]);
      expect(failed.code, failed.stdout).not.toBe(0);
      const detached = await cli(["call", "echo_auth", "-s", name, "--detach", "--json"]);
      const other = events(detached.stdout)[0].taskId as string;
      expect((await binary(["result", other])).code).toBe(0); // by the process too
      for (const args of [
        ["get", id],
        ["get", id, "--json"],
        ["result", id],
        ["result", id, "--json"],
        ["watch", id],
        ["export", id],
        ["export", other],
        ["list"],
        ["list", "--json"],
        ...(generation === "v1"
          ? [
              ["server", "logs", name, "--wire"],
              ["server", "logs", name, "--wire", "--json"],
              ["server", "logs", name],
            ]
          : []),
      ]) {
        // The wire log by the binary too (the process's own stream).
        const run = await (args.includes("--wire") && !args.includes("--json") ? binary : cli)(args);
        expect(run.code, `${args.join(" ")}: ${run.stderr}`).toBe(0);
      }
      // What was echoed is shown, as references.
      expect((await cli(["result", id])).stdout).toContain("Bearer ${env:ECHO_TOKEN}");
    } finally {
      await server.stop();
    }
  }
  for (const run of outputs)
    for (const part of ["ECHOTOKEN", "ECHOKEY"]) expect(run.stdout + run.stderr).not.toContain(part);
  const kept = [...filesUnder(home), traceFile];
  expect(kept.some((file) => file.endsWith(".trace"))).toBe(true);
  for (const file of kept)
    for (const part of ["ECHOTOKEN", "ECHOKEY"]) expect(readFileSync(file, "utf8"), file).not.toContain(part);
}, 180_000); // hang-only: real servers, keepers and a score of commands on a loaded machine

it("server add refuses a literal secret in a header or env value (the import rule); headers are never copied into handles; literals an older version saved are printed by no command", async () => {
  const home = tempHome();
  const { outputs, cli, binary } = recording(home, { ECHO_REF: "tok-ECHOREF-3141" }, true);
  let handles = 0;
  const settingsText = () => readFileSync(join(home, "settings.json"), "utf8");
  const refused = [
    [
      ["--url", "http://127.0.0.1:9/mcp", "--header", "Authorization: Bearer LITERAL-bearer-1234"],
      /--header 'Authorization: Bearer \$\{env:NAME\}'/,
    ],
    [
      ["--url", "http://127.0.0.1:9/mcp", "--header", "X-Api-Key: LITERAL-key-5678"],
      /--header 'X-Api-Key: \$\{env:NAME\}'/,
    ],
    [
      ["--url", "http://127.0.0.1:9/mcp", "--header", "Cookie: sid=LITERAL-cookie"],
      /--header 'Cookie: \$\{env:NAME\}'/,
    ],
    [["--url", "http://user:LITERAL-pw@127.0.0.1:9/mcp"], /header/],
    [["--stdio", "node s.js", "--env", "OPENAI=sk-LITERAL-9012"], /--env 'OPENAI=\$\{env:OPENAI\}'/],
    [["--stdio", "node s.js", "--env", "GITHUB_TOKEN=LITERAL-gh"], /--env 'GITHUB_TOKEN=\$\{env:GITHUB_TOKEN\}'/],
  ] as const;
  for (const [flags, fix] of refused) {
    const run = await cli(["server", "add", "leak", ...flags]);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(/literal secret|password/);
    expect(run.stderr).toMatch(fix);
  }
  // References, and values that are not secrets, are taken.
  expect((await cli(["server", "add", "ok", "--stdio", "node s.js", "--env", "MODE=fast"])).code).toBe(0);

  // Saved by an older version, which took literals: an HTTP server's Authorization, a stdio server's variable whose
  // value is a key (sk-...) under a name that does not say so. Each server echoes it.
  const http = await startHostileHttp("echo-secrets", "v1");
  const byRefServer = await startHostileHttp("echo-secrets", "v1");
  try {
    const header = ["--header", "Authorization: Bearer ${env:ECHO_REF}"];
    expect((await cli(["server", "add", "web", "--url", http.url, ...header])).code).toBe(0);
    expect((await cli(["server", "add", "byref", "--url", byRefServer.url, ...header])).code).toBe(0);
    const stdio = hostileStdio("echo-secrets", "v2");
    expect((await cli(["server", "add", "local", "--stdio", stdio, "--env", "ECHO_VALUE=${env:ECHO_REF}"])).code).toBe(
      0,
    );
    // A reference is kept in no handle either: a handle names its HTTP server by URL alone.
    const byRef = await cli(["call", "echo_auth", "-s", "byref", "--detach", "--json"]);
    expect(byRef.code, byRef.stderr).toBe(0);
    writeFileSync(
      join(home, "settings.json"),
      settingsText()
        .replace("Bearer ${env:ECHO_REF}", "Bearer LITERAL-old-bearer-4242")
        .replace('"ECHO_VALUE": "${env:ECHO_REF}"', '"ECHO_VALUE": "sk-LITERALOLD-6161"'),
    );
    expect(settingsText()).toContain("LITERAL-old-bearer-4242");
    expect(settingsText()).toContain("sk-LITERALOLD-6161");
    const listed = await binary(["server", "list", "--json"]); // by the process: its own stream
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain("[secret]");
    for (const server of ["web", "local"]) {
      const called = await cli(["call", "echo_auth", "-s", server, "--json"]);
      expect(called.code, called.stderr).toBe(0);
      expect(called.stdout, `${server}: ${called.stdout}`).toContain("[secret]");
      const id = events(called.stdout)[0].taskId as string;
      for (const args of [
        ["get", id, "--json"],
        ["result", id],
        ["export", id],
      ])
        expect((await cli(args)).code).toBe(0);
    }
    expect((await cli(["list", "--json"])).code).toBe(0);
  } finally {
    await http.stop();
    await byRefServer.stop();
  }
  for (const run of outputs) expect(run.stdout + run.stderr).not.toMatch(/LITERAL|ECHOREF/);
  // Beside settings.json, which holds them as the older version saved them, a running broker's record and the spec
  // it was started from (brokers/<key>.json, .json.spec, both 0600, gone with the broker) hold its server's
  // configuration as saved: a stdio server's, or a V1 session keeper's (its key has a dash), still running on a
  // loaded machine.
  for (const file of filesUnder(home).filter(
    (f) => !f.endsWith("settings.json") && !/brokers\/[\w-]+\.json(\.spec)?$/.test(f),
  )) {
    const text = readFileSync(file, "utf8");
    expect(text, file).not.toMatch(/LITERAL|ECHOREF/);
    const handle = file.endsWith(".json") && /"taskId"/.test(text) ? JSON.parse(text) : undefined;
    if (handle?.server?.descriptor?.transport === "http") {
      handles++;
      expect(handle.server.descriptor.headers, file).toBeUndefined();
    }
  }
  expect(handles).toBeGreaterThanOrEqual(2);
}, 180_000); // hang-only: real servers, keepers and a score of commands on a loaded machine

it("a planted broker record cannot point server stop at another socket: the key is the record's file name", async () => {
  const home = tempHome();
  expect((await runInProcess(["list"], { home })).code).toBe(0);
  const { createServer: createSocketServer } = await import("node:net");
  const elsewhere = join(home, "elsewhere.sock");
  let dialled = 0;
  const listener = createSocketServer((socket) => {
    dialled++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => listener.listen(elsewhere, resolve));
  try {
    mkdirSync(join(home, "brokers"), { recursive: true, mode: 0o700 });
    const record = { name: "evil", pid: 999_999, key: "../elsewhere" };
    writeFileSync(join(home, "brokers", "planted.json"), JSON.stringify(record), { mode: 0o600 });
    const stopped = await runInProcess(["server", "stop", "evil"], { home });
    expect(stopped.code, stopped.stderr).toBe(2);
    expect(stopped.stderr).toMatch(/no broker of evil answered/);
    expect(dialled).toBe(0);
  } finally {
    listener.close();
  }
});
