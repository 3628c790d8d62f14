// The command line as users and scripts meet it: usage errors, saved servers, help. Commands run in-process; what
// only the binary shows runs it in a fresh process each time: its exit statuses (2, 4, 5) and its --help.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { events, runCli, tempHome } from "../helpers/cli.js";
import { runInProcess } from "../helpers/context.js";
import { ROOT, everythingStdio, v2Stdio } from "../helpers/servers.js";

/** Every file under `dir`. */
const filesUnder = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));

const noStack = (text: string) => expect(text).not.toMatch(/\n\s+at .+:\d+:\d+/);

// Concurrent: each test has its own home; what they wait on is the servers they start (server-everything's start-up,
// most of all), which overlaps.
describe.concurrent("the command line", () => {
  describe("usage errors exit 2 with one clear line", () => {
    const cases: Array<[string, string[], RegExp]> = [
      [
        "malformed JSON arguments",
        ["call", "echo", "--args", "{nope", "--stdio", everythingStdio],
        /--args is not valid JSON/,
      ],
      [
        "arguments that break the inputSchema",
        ["call", "get-sum", "a=x", "b=2", "--stdio", everythingStdio],
        /do not fit get-sum's inputSchema/,
      ],
      ["an unknown server name", ["call", "echo", "-s", "nowhere"], /unknown server: nowhere/],
      ["no server at all", ["call", "echo"], /no server given/],
      ["a bad duration", ["call", "echo", "--timeout", "soon", "--stdio", everythingStdio], /not a duration: soon/],
      [
        "an unreadable --input file",
        ["call", "echo", "--input", "@/nonexistent/answers.json", "--stdio", everythingStdio],
        /cannot read --input from \/nonexistent\/answers.json: ENOENT/,
      ],
      ["an unknown tool", ["call", "no-such-tool", "--stdio", everythingStdio], /has no tool named no-such-tool/],
      ["an unknown option", ["call", "echo", "--frobnicate"], /unknown option/],
    ];
    it.each(cases)("%s", async (_name, args, message) => {
      const run = await runInProcess(args, { home: tempHome() });
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toMatch(message);
      noStack(run.stderr);
    });

    // The binary: its exit statuses 2 and 5 (as `main` sets them for the process).
    it("task ids: a prefix matching several saved tasks, or too short, is exit 2 with the fix; one matching none is exit 5 (docs/cli.md#task-ids)", async () => {
      const home = tempHome();
      execFileSync(process.execPath, [
        join(ROOT, "dist/test-tools/store-writer.js"),
        home,
        "create",
        "abcd",
        "2",
        "10",
      ]);
      const ambiguous = await runCli(["watch", "abcd"], { home });
      expect(ambiguous.code).toBe(2);
      expect(ambiguous.stderr).toMatch(/abcd matches 2 saved tasks: abcd-\d \(bench\), abcd-\d \(bench\)/);
      expect(ambiguous.stderr).toMatch(/give more characters of the id/);
      const short = await runCli(["get", "abc"], { home });
      expect(short.code).toBe(2);
      expect(short.stderr).toMatch(/needs at least 4 characters/);
      const unknown = await runCli(["result", "zzzz-9"], { home });
      expect(unknown.code).toBe(5);
      expect(unknown.stderr).toMatch(/no saved task matches zzzz-9[\s\S]*mcp-task list/);
      for (const run of [ambiguous, short, unknown]) noStack(run.stderr);
    });

    it("reports a usage error as a JSON error line under --json", async () => {
      const run = await runInProcess(["call", "echo", "-s", "nowhere", "--json"], { home: tempHome() });
      expect(run.code).toBe(2);
      expect(events(run.stdout)).toEqual([expect.objectContaining({ type: "error", taskId: null, exitCode: 2 })]);
    });
  });

  // The binary: its exit status 4.
  it("exits 4 with the reason when the server cannot be reached or started", async () => {
    const refused = await runCli(["call", "echo", "-s", "http://127.0.0.1:1/mcp"], { home: tempHome() });
    expect(refused.code).toBe(4);
    noStack(refused.stderr);
    const missing = await runCli(["call", "echo", "--stdio", "definitely-not-a-command-xyz"], { home: tempHome() });
    expect(missing.code).toBe(4);
    expect(missing.stderr).toMatch(/command not found: definitely-not-a-command-xyz/);
  });

  describe("saved servers", () => {
    it("adds, lists, uses and removes servers; the store is private", async () => {
      const home = tempHome();
      expect((await runInProcess(["server", "add", "ev", "--stdio", everythingStdio], { home })).code).toBe(0);
      expect(
        (
          await runInProcess(
            [
              "server",
              "add",
              "remote",
              "--url",
              "http://127.0.0.1:1/mcp",
              "--header",
              "Authorization: Bearer ${env:TOKEN}",
            ],
            { home },
          )
        ).code,
      ).toBe(0);
      const list = await runInProcess(["server", "list", "--json"], { home });
      const doc = JSON.parse(list.stdout);
      expect(doc.defaultServer).toBe("ev");
      expect(doc.servers.remote.headers.Authorization).toBe("Bearer ${env:TOKEN}");
      expect(statSync(home).mode & 0o777).toBe(0o700);
      expect(statSync(join(home, "settings.json")).mode & 0o777).toBe(0o600);

      // The default server is used when none is named.
      const call = await runInProcess(["call", "echo", "message=via-default"], { home });
      expect(call.stdout.trim()).toBe("Echo: via-default");

      expect((await runInProcess(["server", "use", "remote"], { home })).code).toBe(0);
      const missingSecret = await runInProcess(["call", "echo"], { home });
      expect(missingSecret.code).toBe(2);
      expect(missingSecret.stderr).toMatch(/environment variable TOKEN is not set/);
      expect((await runInProcess(["server", "remove", "remote"], { home })).code).toBe(0);
      expect((await runInProcess(["server", "use", "remote"], { home })).code).toBe(2);
    });

    it("imports a Claude Desktop style config", async () => {
      const home = tempHome();
      const file = join(mkdtempSync(join(tmpdir(), "cfg-")), "claude.json");
      writeFileSync(
        file,
        JSON.stringify({
          mcpServers: {
            everything: { command: "node", args: ["x.js", "stdio"], env: { K: "v" } },
            web: { url: "http://127.0.0.1:1/mcp" },
          },
        }),
      );
      expect((await runInProcess(["server", "import", file], { home })).code).toBe(0);
      const doc = JSON.parse((await runInProcess(["server", "list", "--json"], { home })).stdout);
      expect(doc.servers.everything).toEqual({
        transport: "stdio",
        command: "node",
        args: ["x.js", "stdio"],
        env: { K: "v" },
      });
      expect(doc.servers.web).toEqual({ transport: "http", url: "http://127.0.0.1:1/mcp" });
    });

    it("imports no literal secret: an env secret becomes a reference, a header secret is refused (exit 2)", async () => {
      const home = tempHome();
      const file = join(mkdtempSync(join(tmpdir(), "cfg-")), ".mcp.json");
      writeFileSync(
        file,
        JSON.stringify({
          mcpServers: {
            "GitHub Server": { command: "gh-mcp", env: { GITHUB_TOKEN: "ghp_literalsecret123" } },
            leaky: { type: "http", url: "http://127.0.0.1:1/mcp", headers: { Authorization: "Bearer sk-literal-456" } },
            api: { type: "http", url: "http://127.0.0.1:1/mcp", headers: { Authorization: "Bearer ${API_KEY}" } },
          },
        }),
      );
      const run = await runInProcess(["server", "import", file], { home });
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toMatch(/GitHub-Server: .*set GITHUB_TOKEN/);
      expect(run.stderr).toMatch(/not imported: leaky: its header Authorization holds a literal secret/);
      expect(run.stderr).toMatch(/imported 2 server\(s\): GitHub-Server, api/);
      const list = await runInProcess(["server", "list", "--json"], { home });
      expect(JSON.parse(list.stdout).servers).toEqual({
        "GitHub-Server": {
          transport: "stdio",
          command: "gh-mcp",
          args: [],
          env: { GITHUB_TOKEN: "${env:GITHUB_TOKEN}" },
        },
        api: { transport: "http", url: "http://127.0.0.1:1/mcp", headers: { Authorization: "Bearer ${env:API_KEY}" } },
      });
      const everything = [run.stdout, run.stderr, list.stdout, ...filesUnder(home).map((f) => readFileSync(f, "utf8"))];
      for (const text of everything) expect(text).not.toMatch(/ghp_literalsecret123|sk-literal-456/);
    });

    it("a file never replaces a saved server: the same name elsewhere is refused (exit 2), its sign-in client kept for its own address", async () => {
      const home = tempHome();
      const add = await runInProcess(
        [
          "server",
          "add",
          "prod",
          "--url",
          "https://prod.example.com/mcp",
          "--header",
          "Authorization: Bearer ${env:PROD_BEARER}",
          "--client-id",
          "prod-client",
          "--client-secret",
          "${env:PROD_CLIENT_SECRET}",
          "--grant",
          "client-credentials",
        ],
        { home },
      );
      expect(add.code, add.stderr).toBe(0);
      const before = JSON.parse(readFileSync(join(home, "settings.json"), "utf8"));
      const file = join(mkdtempSync(join(tmpdir(), "cfg-")), ".mcp.json");
      const same = before.servers.prod;
      writeFileSync(
        file,
        JSON.stringify({
          mcpServers: {
            prod: {
              type: "http",
              url: "http://127.0.0.1:47222/mcp",
              headers: { Authorization: "Bearer ${PROD_BEARER}" },
            },
            again: { type: "http", url: "http://127.0.0.1:1/mcp" },
            key: { type: "http", url: "http://127.0.0.1:1/q?k=${QUERY}" },
            db: { command: "pg-mcp", args: ["postgresql://app:${DB_PASS}@db/app"] },
            inline: { type: "http", url: "http://app:hunter2@127.0.0.1:1/mcp" },
          },
        }),
      );
      const env = { QUERY: "sk-live-SECRET-5678", DB_PASS: "hunter2" };
      const run = await runInProcess(["server", "import", file], { home, env });
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toContain(
        "not imported: prod: a saved server is named prod (https://prod.example.com/mcp); remove it first (mcp-task server remove prod) to replace it",
      );
      expect(run.stderr).toMatch(/not imported: key: its address uses \$\{QUERY\}, whose value looks like a secret/);
      expect(run.stderr).toMatch(/not imported: db: its address uses \$\{DB_PASS\}, a secret/);
      expect(run.stderr).toMatch(/not imported: inline: its URL holds a password/);
      expect(run.stderr).toMatch(/imported 1 server\(s\): again/);
      for (const secret of ["sk-live-SECRET-5678", "hunter2"]) expect(run.stdout + run.stderr).not.toContain(secret);
      const after = JSON.parse(readFileSync(join(home, "settings.json"), "utf8"));
      expect(after.servers.prod).toEqual(same);
      expect(after.clients).toEqual(before.clients);
      expect(after.defaultServer).toBe("prod");
      // The same file again, with prod as saved: nothing to refuse for it.
      writeFileSync(
        file,
        JSON.stringify({ mcpServers: { prod: { type: "http", url: same.url, headers: same.headers } } }),
      );
      const again = await runInProcess(["server", "import", file], { home });
      expect(again.stderr).toMatch(/imported 1 server\(s\): prod/);
      expect(JSON.parse(readFileSync(join(home, "settings.json"), "utf8")).clients).toEqual(before.clients);
    });

    it("refuses a server name that could escape into paths", async () => {
      const home = tempHome();
      const names = [
        "../x",
        "a/b",
        "/etc",
        ".",
        "..",
        ".hidden",
        "a\\b",
        "a b",
        "x;y",
        "$(touch x)",
        "`id`",
        "a\nb",
        "a\u001b[31mb",
        "\uff0e\uff0e",
        "x".repeat(65),
      ];
      for (const name of names) {
        const run = await runInProcess(["server", "add", name, "--url", "http://127.0.0.1:1/mcp"], { home });
        expect(run.code, JSON.stringify(name)).toBe(2);
        expect(run.stderr).toMatch(/not a valid server name/);
        expect(run.stderr).not.toMatch(/\u001b/);
      }
      const dash = await runInProcess(["server", "add", "--url", "http://127.0.0.1:1/mcp", "--", "-rf"], { home });
      expect(dash.code).toBe(2);
      const file = join(home, "import.json");
      writeFileSync(file, JSON.stringify({ mcpServers: { "../../x": { url: "http://127.0.0.1:1/mcp" } } }));
      expect((await runInProcess(["server", "import", file], { home })).code).toBe(2);
      expect(JSON.parse((await runInProcess(["server", "list", "--json"], { home })).stdout).servers).toEqual({});
      // A name no one saved is unknown, even one every object has.
      for (const name of ["constructor", "__proto__", "toString"]) {
        const run = await runInProcess(["call", "echo", "-s", name], { home });
        expect(run.code, run.stderr).toBe(2);
        expect(run.stderr).toMatch(new RegExp(`unknown server: ${name}`));
      }
    });
  });

  it("shows the server's generation and each tool's task support", async () => {
    const run = await runInProcess(["tools", "--stdio", everythingStdio], { home: tempHome() });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/V1 \(protocol 2025-11-25\)/);
    expect(run.stdout).toMatch(/simulate-research-query\s+task required/);
  });

  describe("generation verdict cache", () => {
    it.each([
      ["V1 (server-everything)", everythingStdio, "echo", "message=x"],
      ["V2 (our test server)", v2Stdio(), "echo", "text=x"],
    ])("%s: the second connection skips the probe (one spawn, not two)", async (_name, command, tool, arg) => {
      // Processes: the second finds the verdict the first saved (no cache in memory can answer for it).
      // --no-task: a plain call talks to the server directly (a task-capable call would go through a broker).
      const home = tempHome();
      const log = join(home, "spawns.log");
      // Each start of the server appends a line; the wrapper then becomes the server.
      const wrapped = `sh -c ${JSON.stringify(`echo start >> '${log}'; exec ${command}`)}`;
      const spawns = () => readFileSync(log, "utf8").trim().split("\n").length;
      expect((await runCli(["call", tool, arg, "--no-task", "--stdio", wrapped], { home })).code).toBe(0);
      const first = spawns();
      expect(first).toBe(2); // the SDK's discover probe runs on a sibling process, then the session process
      expect((await runCli(["call", tool, arg, "--no-task", "--stdio", wrapped], { home })).code).toBe(0);
      expect(spawns() - first).toBe(1);
      const settings = JSON.parse(readFileSync(join(home, "settings.json"), "utf8"));
      expect(Object.values(settings.verdicts).map((v) => (v as { verdict: { kind: string } }).verdict.kind)).toEqual([
        command === everythingStdio ? "legacy" : "modern",
      ]);
    });
  });

  it("keeps the README's usage block the same as --help", async () => {
    const run = await runCli(["--help"], { home: tempHome() });
    expect(run.code).toBe(0);
    const readme = readFileSync(join(import.meta.dirname, "../..", "README.md"), "utf8");
    const block = /## Usage\n\n```\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(block).toBe(run.stdout);
  });
});
