// argv -> options for every leaf command, in-process: the real declarations (src/cli.ts's COMMANDS) parsed by
// commander, then each command's parse function, with its runner replaced by a capture. No server, no process.
import { Command, CommanderError } from "commander";
import { parse as parseShell } from "shell-quote";
import { describe, expect, it } from "vitest";
import { buildProgram, COMMANDS } from "../../src/cli.js";
import { declareAll, optionsOf, type AnyLeaf, type Noun } from "../../src/commands/command.js";
import type { Context } from "../../src/context.js";
import { UsageError } from "../../src/errors.js";

const parsed = new Set<string>();

/** The options `argv` gives its command (which is named as `server add`), or what it throws. */
async function parse(...argv: string[]): Promise<{ command: string; options: unknown }> {
  let got: { command: string; options: unknown } | undefined;
  const program = new Command("mcp-task")
    .option("--no-color", "no colour")
    .exitOverride()
    .configureOutput({ writeOut: () => {}, writeErr: () => {} });
  declareAll(program, COMMANDS, async (leaf, values) => {
    const command = values.at(-1) as Command;
    const name = [command.parent?.parent ? command.parent.name() : "", command.name()].filter(Boolean).join(" ");
    parsed.add(name);
    got = { command: name, options: optionsOf(leaf, values) };
  });
  await program.parseAsync(argv, { from: "user" });
  if (!got) throw new Error(`no command ran for: ${argv.join(" ")}`);
  return got;
}

const options = async (...argv: string[]) => (await parse(...argv)).options;

async function usageError(argv: string[], message: RegExp): Promise<void> {
  const error = await parse(...argv).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, argv.join(" ")).toBeInstanceOf(UsageError);
  expect((error as Error).message).toMatch(message);
}

async function commanderError(argv: string[], code: string): Promise<void> {
  const error = await parse(...argv).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, argv.join(" ")).toBeInstanceOf(CommanderError);
  expect((error as CommanderError).code).toBe(code);
}

/** "call", "server add"...: every leaf of `entries`, as `parse` names them. */
function leafNames(entries: ReadonlyArray<AnyLeaf | Noun>): string[] {
  return entries.flatMap((entry) => {
    const name = entry.declare(new Command()).name();
    return "verbs" in entry ? entry.verbs.map((verb) => `${name} ${verb.declare(new Command()).name()}`) : [name];
  });
}

describe("call", () => {
  it("a tool, key=value pairs, --input inline, --detach; defaults for the rest", async () => {
    expect(await parse("call", "t", "a=1", "b=x", "--input", '{"name":"Ada"}', "--detach")).toEqual({
      command: "call",
      options: {
        tool: "t",
        server: undefined,
        stdio: undefined,
        argsObject: undefined,
        pairs: { a: 1, b: "x" },
        typed: { a: "1", b: "x" },
        ttlMs: undefined,
        task: "auto",
        detach: true,
        input: { value: { name: "Ada" } },
        decline: false,
        openUrl: [],
        timeoutMs: undefined,
        json: false,
        logLevel: undefined,
      },
    });
  });

  it("--log-level: one of the eight levels", async () => {
    expect(await options("call", "t", "--log-level", "debug")).toMatchObject({ logLevel: "debug" });
    await commanderError(["call", "t", "--log-level", "loud"], "commander.invalidArgument");
  });

  it("--no-task, --ttl, --timeout, --json, -s, --args @file, --input - (read when the call runs)", async () => {
    expect(
      await options(
        "call",
        "t",
        "--no-task",
        "--ttl",
        "5000",
        "--timeout",
        "2m",
        "--json",
        "-s",
        "srv",
        "--args",
        "@args.json",
        "--input",
        "-",
      ),
    ).toMatchObject({
      task: "never",
      ttlMs: 5000,
      timeoutMs: 120_000,
      json: true,
      server: "srv",
      argsObject: { file: "args.json" },
      input: { stdin: true },
      pairs: {},
    });
    // --ttl takes a duration as --timeout does; a bare number is milliseconds, as it always was.
    expect(await options("call", "t", "--ttl", "10m")).toMatchObject({ ttlMs: 600_000 });
    expect(await options("call", "t", "--ttl", "1.5s")).toMatchObject({ ttlMs: 1500 });
    expect(await options("call", "t", "message=42", "n=[1]")).toMatchObject({
      pairs: { message: 42, n: [1] },
      typed: { message: "42", n: "[1]" },
    });
    expect(await options("call", "t", "--stdio", "node server.js", "--decline")).toMatchObject({
      stdio: "node server.js",
      decline: true,
      input: undefined,
    });
  });

  it("--open-url: hosts consented ahead for URL-mode elicitation, repeatable (call, watch, respond)", async () => {
    expect(await options("call", "t", "--open-url", "auth.example.com", "--open-url", "127.0.0.1:8443")).toMatchObject({
      openUrl: ["auth.example.com", "127.0.0.1:8443"],
    });
    expect(await options("watch", "abcd", "--open-url", "pay.example")).toMatchObject({ openUrl: ["pay.example"] });
    expect(await options("respond", "abcd", "--open-url", "pay.example")).toMatchObject({ openUrl: ["pay.example"] });
    await commanderError(["result", "abcd", "--open-url", "x"], "commander.unknownOption");
    await usageError(["respond", "abcd", "--template", "--open-url", "x"], /--template prints the question's skeleton/);
  });

  it("usage errors: JSON that is no object, both answers, a bare word, a bad ttl or duration", async () => {
    await usageError(["call", "t", "--input", "[1]"], /--input must be a JSON object/);
    await usageError(["call", "t", "--args", "{nope"], /--args is not valid JSON/);
    await usageError(["call", "t", "--input", "{}", "--decline"], /either --input or --decline/);
    await usageError(["call", "t", "x"], /not a key=value argument: x/);
    await usageError(["call", "t", "--ttl", "soon"], /--ttl: not a duration: soon/);
    await usageError(["call", "t", "--timeout", "soon"], /--timeout: not a duration: soon/);
  });

  it("--sampling-reply (inline, @file, -) and --sampling-model; a model without a reply is a usage error", async () => {
    expect(await options("call", "t", "--sampling-reply", "Hello", "--sampling-model", "me")).toMatchObject({
      samplingReply: "Hello",
      samplingModel: "me",
      decline: false,
      input: undefined,
    });
    expect(await options("call", "t", "--sampling-reply", "@reply.txt", "--decline")).toMatchObject({
      samplingReply: "@reply.txt",
      decline: true,
    });
    expect(await options("call", "t")).not.toHaveProperty("samplingReply");
    expect(await options("watch", "abcd", "--sampling-reply", "-")).toMatchObject({ samplingReply: "-" });
    expect(await options("respond", "abcd", "--sampling-reply", "Hi")).toMatchObject({ samplingReply: "Hi" });
    await usageError(["call", "t", "--sampling-model", "me"], /--sampling-model names the model of a --sampling-reply/);
    await usageError(["respond", "abcd", "--template", "--sampling-reply", "x"], /--template prints/);
    await usageError(["call", "t", "--input", "-", "--sampling-reply", "-"], /would both read stdin/);
  });

  it("commander's own: no tool, an unknown option", async () => {
    await commanderError(["call"], "commander.missingArgument");
    await commanderError(["call", "t", "--frobnicate"], "commander.unknownOption");
  });
});

describe("watch, result, respond", () => {
  it("watch: defaults, and every option", async () => {
    expect(await options("watch", "abcd")).toEqual({
      id: "abcd",
      server: undefined,
      input: undefined,
      decline: false,
      openUrl: [],
      timeoutMs: undefined,
      json: false,
      resultOnly: false,
      noWait: false,
      logLevel: undefined,
    });
    expect(await options("watch", "abcd", "--log-level", "error")).toMatchObject({ logLevel: "error" });
    await commanderError(["watch", "abcd", "--log-level", "loud"], "commander.invalidArgument");
    expect(await options("watch", "abcd", "--decline", "--timeout", "30s", "-s", "srv", "--json")).toMatchObject({
      decline: true,
      timeoutMs: 30_000,
      server: "srv",
      json: true,
    });
    await commanderError(["watch"], "commander.missingArgument");
    await usageError(["watch", "abcd", "--timeout", "1y"], /not a duration: 1y/);
  });

  it("check: server, --tool, --args, --timeout (default 60 s), --junit, --json", async () => {
    expect(await options("check", "-s", "prod")).toEqual({
      server: "prod",
      stdio: undefined,
      tool: undefined,
      args: undefined,
      timeoutMs: 60_000,
      junit: undefined,
      json: false,
    });
    expect(
      await options(
        "check",
        "--stdio",
        "node s.js",
        "--tool",
        "t",
        "--args",
        '{"a":1}',
        "--timeout",
        "5s",
        "--junit",
        "r.xml",
      ),
    ).toMatchObject({ stdio: "node s.js", tool: "t", args: { value: { a: 1 } }, timeoutMs: 5000, junit: "r.xml" });
    await usageError(["check", "--args", "[1]"], /--args/);
  });

  it("wait: one or more ids, --any, --timeout, --json; none is a usage error", async () => {
    expect(await options("wait", "abcd", "efgh")).toEqual({
      ids: ["abcd", "efgh"],
      server: undefined,
      any: false,
      timeoutMs: undefined,
      json: false,
    });
    expect(await options("wait", "abcd", "--any", "--timeout", "2m", "--json", "-s", "prod")).toEqual({
      ids: ["abcd"],
      server: "prod",
      any: true,
      timeoutMs: 120_000,
      json: true,
    });
    await commanderError(["wait"], "commander.missingArgument");
    expect(await options("wait", "abcd", "--all")).toMatchObject({ any: false });
    await usageError(["wait", "abcd", "--all", "--any"], /--all or --any, not both/);
    await usageError(["wait", "abcd", "--timeout", "soon"], /--timeout/);
  });

  it("result: prints the result only; --no-wait; it takes no answers", async () => {
    expect(await options("result", "abcd")).toMatchObject({ id: "abcd", resultOnly: true, noWait: false });
    expect(await options("result", "abcd", "--no-wait", "--json")).toMatchObject({ noWait: true, json: true });
    await commanderError(["result", "abcd", "--input", "{}"], "commander.unknownOption");
  });

  it("respond: the answer inline; bad JSON is a usage error", async () => {
    expect(await options("respond", "abcd", "--input", '{"approve":true}', "--timeout", "1m")).toEqual({
      id: "abcd",
      server: undefined,
      input: { value: { approve: true } },
      decline: false,
      openUrl: [],
      timeoutMs: 60_000,
      json: false,
      template: false,
    });
    await usageError(["respond", "abcd", "--input", "nope"], /--input is not valid JSON/);
    expect(await options("respond", "abcd", "--template", "--json")).toMatchObject({ template: true, json: true });
    await usageError(["respond", "abcd", "--template", "--decline"], /--template prints the question's skeleton/);
  });
});

describe("get, cancel, list, forget, prune, export, import", () => {
  it("get and cancel: an id, its server, --json", async () => {
    expect(await parse("get", "abcd", "--json")).toEqual({
      command: "get",
      options: { id: "abcd", server: undefined, json: true },
    });
    expect(await parse("cancel", "abcd", "-s", "srv")).toEqual({
      command: "cancel",
      options: { id: "abcd", server: "srv", json: false },
    });
  });

  it("list: defaults; statuses split and checked", async () => {
    expect(await options("list")).toEqual({
      server: undefined,
      status: undefined,
      remote: false,
      watch: false,
      json: false,
      all: false,
    });
    expect(await options("list", "--status", "working, expired", "--remote", "-s", "srv", "--json")).toEqual({
      server: "srv",
      status: ["working", "expired"],
      remote: true,
      watch: false,
      json: true,
      all: false,
    });
    expect(await options("list", "--all")).toMatchObject({ all: true, json: false });
    expect(await options("list", "--watch", "--json")).toMatchObject({ watch: true, json: true });
    await usageError(["list", "--watch", "--remote"], /takes no --remote/);
    await usageError(["list", "--status", "working,bogus"], /unknown status: bogus/);
  });

  it("forget: one id or several; prune: --older-than as a duration", async () => {
    expect(await options("forget", "a1b2", "c3d4", "-s", "srv")).toEqual({ ids: ["a1b2", "c3d4"], server: "srv" });
    await commanderError(["forget"], "commander.missingArgument");
    expect(await options("prune")).toEqual({ olderThanMs: undefined });
    expect(await options("prune", "--older-than", "7d")).toEqual({ olderThanMs: 7 * 86_400_000 });
    await usageError(["prune", "--older-than", "xx"], /--older-than: not a duration: xx/);
    expect(await options("prune", "--dry-run", "--older-than", "1h")).toEqual({ olderThanMs: 3_600_000, dryRun: true });
  });

  it("export: an id; import: stdin by default, --yes", async () => {
    expect(await options("export", "abcd", "--json")).toEqual({ id: "abcd", server: undefined });
    expect(await parse("import")).toEqual({ command: "import", options: { file: "-", yes: false } });
    expect(await options("import", "handles.json", "-y")).toEqual({ file: "handles.json", yes: true });
  });
});

describe("tools, dashboard, serve, demo, demo-server, broker", () => {
  it("tools: the server as given (resolved when it runs)", async () => {
    expect(await options("tools", "-s", "a", "--stdio", "b", "--json")).toEqual({
      server: "a",
      stdio: "b",
      json: true,
    });
    expect(await options("tools", "deploy", "-s", "a")).toEqual({
      server: "a",
      stdio: undefined,
      name: "deploy",
      json: false,
    });
  });

  it("dashboard, also as ui", async () => {
    expect(await parse("dashboard")).toEqual({ command: "dashboard", options: {} });
    expect(await parse("ui")).toEqual({ command: "dashboard", options: {} });
  });

  it("serve: saved servers (repeatable), --wait (default 25 s), --agent-answers, --print-config of a known client", async () => {
    expect(await parse("serve", "-s", "demo")).toEqual({
      command: "serve",
      options: { servers: ["demo"], waitMs: 25_000, agentAnswers: false, printConfig: undefined },
    });
    expect(
      await options(
        "serve",
        "-s",
        "a",
        "--server",
        "b",
        "--wait",
        "50s",
        "--agent-answers",
        "--print-config",
        "vscode",
      ),
    ).toEqual({ servers: ["a", "b"], waitMs: 50_000, agentAnswers: true, printConfig: "vscode" });
    expect(await options("serve", "-s", "a", "--wait", "0")).toMatchObject({ waitMs: 0 });
    await usageError(["serve"], /serve offers saved servers only: name at least one/);
    await usageError(["serve", "-s", "a", "-s", "a"], /a server is named twice/);
    await usageError(["serve", "-s", "a", "--wait", "soon"], /--wait: not a duration: soon/);
    await commanderError(["serve", "-s", "a", "--print-config", "emacs"], "commander.invalidArgument");
  });

  it("completion: bash, zsh or fish; __complete: servers or tasks", async () => {
    expect(await parse("completion", "zsh")).toEqual({ command: "completion", options: { shell: "zsh" } });
    await commanderError(["completion", "tcsh"], "commander.invalidArgument");
    expect(await parse("__complete", "tasks")).toEqual({ command: "__complete", options: { what: "tasks" } });
    await usageError(["__complete", "files"], /servers or tasks/);
  });

  it("demo and demo-server: defaults, every option, a bad generation or port", async () => {
    expect(await options("demo")).toEqual({ generation: "v2", speed: 1 });
    expect(await options("demo", "--generation", "v1", "--speed", "4")).toEqual({ generation: "v1", speed: 4 });
    await usageError(["demo", "--speed", "-2"], /--speed takes a number above 0, not -2/);
    await usageError(["demo", "--speed", "abc"], /--speed takes a number above 0, not abc/);
    await usageError(["demo", "--speed", "0"], /--speed takes a number above 0/);
    await usageError(["demo", "--generation", "v3"], /unknown generation: v3/);
    expect(await options("demo-server")).toEqual({
      generation: "v2",
      speed: 1,
      stdio: false,
      port: 0,
      store: undefined,
    });
    expect(
      await options("demo-server", "--port", "8080", "--generation", "v1", "--speed", "2", "--store", "/s"),
    ).toEqual({ generation: "v1", speed: 2, stdio: false, port: 8080, store: "/s" });
    expect(await options("demo-server", "--stdio", "--port", "x")).toMatchObject({ stdio: true, port: 0 });
    await usageError(["demo-server", "--port", "x"], /^--port: not a port number \(0 to 65535\): x$/);
    await usageError(["demo-server", "--port", "99999"], /^--port: not a port number \(0 to 65535\): 99999$/);
    expect(await options("demo-server", "--port", "65535")).toMatchObject({ port: 65535 });
  });

  it("broker (hidden): its key", async () => {
    expect(await options("broker", "k123")).toEqual({ key: "k123" });
  });
});

describe("server", () => {
  it("add: an http server with headers, a stdio one with env and cwd", async () => {
    expect(
      await parse("server", "add", "web", "--url", "http://x.test/mcp", "--header", "A: b", "--header", "C:d"),
    ).toEqual({
      command: "server add",
      options: {
        name: "web",
        descriptor: { transport: "http", url: "http://x.test/mcp", headers: { A: "b", C: "d" } },
      },
    });
    expect(await options("server", "add", "local", "--stdio", "node s.js --x", "--env", "K=V", "--cwd", "/w")).toEqual({
      name: "local",
      descriptor: { transport: "stdio", command: "node", args: ["s.js", "--x"], env: { K: "V" }, cwd: "/w" },
    });
    expect(await options("server", "add", "w", "--url", "http://x.test/mcp", "--force")).toMatchObject({ force: true });
    expect(await options("server", "add", "w", "--url", "http://x.test/mcp")).not.toHaveProperty("force");
  });

  it("add: a pre-registered OAuth client (a secret only as a reference), client credentials for CI", async () => {
    const secret = "${env:CLIENT_SECRET}";
    expect(
      await options(
        "server",
        "add",
        "a",
        "--url",
        "http://x.test/mcp",
        "--client-id",
        "cid",
        "--client-secret",
        secret,
        "--scope",
        "r w",
        "--grant",
        "client-credentials",
      ),
    ).toMatchObject({ client: { clientId: "cid", clientSecret: secret, scope: "r w", grant: "client_credentials" } });
    expect(await options("server", "add", "b", "--url", "http://x.test/mcp", "--scope", "r")).toMatchObject({
      client: { scope: "r" },
    });
    expect(await options("server", "add", "c", "--url", "http://x.test/mcp")).not.toHaveProperty("client");
    await usageError(
      ["server", "add", "n", "--url", "http://x", "--client-id", "c", "--client-secret", "s3cr3t"],
      /environment reference/,
    );
    await usageError(["server", "add", "n", "--url", "http://x", "--client-secret", secret], /go with --client-id/);
    await usageError(
      ["server", "add", "n", "--url", "http://x", "--client-id", "c", "--grant", "password"],
      /unknown --grant/,
    );
    await usageError(
      ["server", "add", "n", "--url", "http://x", "--client-id", "c", "--grant", "client-credentials"],
      /needs --client-secret/,
    );
  });

  it("login (--no-browser) and logout take a saved server's name", async () => {
    expect(await parse("login", "remote")).toEqual({ command: "login", options: { name: "remote", browser: true } });
    expect(await options("login", "remote", "--no-browser")).toEqual({ name: "remote", browser: false });
    expect(await parse("logout", "remote")).toEqual({ command: "logout", options: { name: "remote" } });
    await commanderError(["login"], "commander.missingArgument");
  });

  it("add: usage errors", async () => {
    await usageError(["server", "add", "bad name", "--url", "http://x.test"], /not a valid server name/);
    await usageError(["server", "add", "n"], /exactly one of --url or --stdio/);
    await usageError(["server", "add", "n", "--url", "http://x", "--stdio", "y"], /exactly one of --url or --stdio/);
    await usageError(["server", "add", "n", "--url", "http://x", "--env", "K=V"], /--env and --cwd go with --stdio/);
    await usageError(["server", "add", "n", "--stdio", "y", "--header", "A: b"], /--header goes with --url/);
    await usageError(["server", "add", "n", "--url", "ftp://x"], /not an http\(s\) URL/);
    await usageError(["server", "add", "n", "--stdio", "a | b"], /shell operators/);
  });

  it("list, remove, use, ps, stop, logs, import, forget-verdict", async () => {
    expect(await parse("server", "forget-verdict", "-s", "n")).toEqual({
      command: "server forget-verdict",
      options: { server: "n", stdio: undefined },
    });
    expect(await parse("server", "logs", "node s.js", "--json")).toEqual({
      command: "server logs",
      options: { name: "node s.js", json: true, wire: false },
    });
    expect(await parse("server", "logs", "node s.js", "--wire")).toEqual({
      command: "server logs",
      options: { name: "node s.js", json: false, wire: true },
    });
    expect(await parse("server", "list", "--json")).toEqual({ command: "server list", options: { json: true } });
    expect(await parse("server", "remove", "n")).toEqual({ command: "server remove", options: { name: "n" } });
    expect(await parse("server", "use", "n")).toEqual({ command: "server use", options: { name: "n" } });
    expect(await parse("server", "ps")).toEqual({ command: "server ps", options: { json: false } });
    expect(await parse("server", "stop", "node s.js")).toEqual({
      command: "server stop",
      options: { name: "node s.js", force: false },
    });
    expect(await parse("server", "stop", "n", "--force")).toEqual({
      command: "server stop",
      options: { name: "n", force: true },
    });
    expect(await parse("server", "import", "claude.json")).toEqual({
      command: "server import",
      options: { file: "claude.json" },
    });
    await commanderError(["server", "use"], "commander.missingArgument");
  });
});

describe("the command surface", () => {
  it("buildProgram registers every command of COMMANDS, in order", () => {
    const silent = { write: () => true };
    const program = buildProgram({ io: { stdout: silent, stderr: silent } } as unknown as Context, () => {});
    expect(program.commands.map((command) => command.name())).toEqual([
      "server",
      "tools",
      "check",
      "login",
      "logout",
      "call",
      "watch",
      "result",
      "wait",
      "respond",
      "get",
      "cancel",
      "list",
      "forget",
      "prune",
      "export",
      "import",
      "dashboard",
      "serve",
      "demo-server",
      "demo",
      "completion",
      "__complete",
      "broker",
    ]);
    const server = program.commands.find((command) => command.name() === "server")!;
    expect(server.commands.map((command) => command.name())).toEqual([
      "add",
      "list",
      "remove",
      "use",
      "ps",
      "stop",
      "logs",
      "import",
      "forget-verdict",
    ]);
  });

  it("every command's --help, the whole tree down, opens with a one-line description", () => {
    const silent = { write: () => true };
    const program = buildProgram({ io: { stdout: silent, stderr: silent } } as unknown as Context, () => {});
    const walk = (command: Command, path: string[]): Array<{ name: string; description: string; help: string }> =>
      command.commands.flatMap((sub) => [
        { name: [...path, sub.name()].join(" "), description: sub.description(), help: sub.helpInformation() },
        ...walk(sub, [...path, sub.name()]),
      ]);
    const commands = walk(program, []).filter(({ name }) => name !== "__complete" && name !== "broker"); // hidden
    const leaves = leafNames(COMMANDS).filter((name) => name !== "__complete" && name !== "broker");
    expect(commands.map(({ name }) => name)).toEqual(expect.arrayContaining([...leaves, "server"]));
    const undescribed = commands.filter(({ description }) => !/^[A-Z][^\n]*\.$/.test(description));
    expect(undescribed.map(({ name }) => name)).toEqual([]);
    // What --help prints: the usage line, then the description.
    for (const { name, description, help } of commands)
      expect(help.split("\n\n")[1]?.replace(/\s+/g, " "), name).toBe(description);
    expect(commands.find(({ name }) => name === "forget")?.description).toBe(
      "Drop saved task handles (the tasks themselves are not touched).",
    );
  });

  it("every leaf command was parsed above", () => {
    expect([...parsed].sort()).toEqual(leafNames(COMMANDS).sort());
  });
});

/** Each `mcp-task …` invocation in an example (a pipe's two sides, `eval "$(mcp-task …)"`), as argv after the name. */
function invocations(example: string): string[][] {
  const found: string[][] = [];
  let current: string[] | undefined;
  for (const token of parseShell(example)) {
    if (typeof token !== "string") {
      current = undefined; // an operator (|, >) or a # comment ends the command line
      continue;
    }
    const inner = /^\$\((mcp-task .*)\)$/.exec(token);
    if (inner) found.push(...invocations(inner[1]!));
    else if (token === "mcp-task") found.push((current = []));
    else current?.push(token);
  }
  return found;
}

describe("examples in --help", () => {
  const leaves = COMMANDS.flatMap((entry) =>
    "verbs" in entry
      ? entry.verbs.map((verb) => ({
          leaf: verb,
          name: `${entry.declare(new Command()).name()} ${verb.declare(new Command()).name()}`,
        }))
      : [{ leaf: entry, name: entry.declare(new Command()).name() }],
  );

  it("every leaf shows at least one, and each parses as that very command", async () => {
    for (const { leaf, name } of leaves) {
      expect(leaf.examples.length, name).toBeGreaterThan(0);
      for (const example of leaf.examples) {
        const argvs = invocations(example);
        expect(argvs.length, example).toBeGreaterThan(0);
        // Every invocation parses (no usage error); at least one of them is this command.
        const ran = await Promise.all(argvs.map(async (argv) => (await parse(...argv)).command));
        expect(ran, example).toContain(name);
      }
    }
  });

  it("are printed under Examples: by --help", async () => {
    let help = "";
    const program = buildProgram(
      { io: { stdout: { write: () => {} }, stderr: { write: () => {} } } } as unknown as Context,
      () => {},
    );
    const call = program.commands.find((command) => command.name() === "call")!;
    call.configureOutput({ writeOut: (text) => (help += text) }).outputHelp();
    expect(help).toMatch(/\nExamples:\n {2}mcp-task call simulate-research-query /);
  });
});
