// Other clients' MCP files (src/store/client-config.ts): each format as its client writes it, variables turned into
// ${env:} references, literal secrets never kept. The `server import` command over these is in commands/binary-usage-and-help.test.ts.
import { homedir } from "node:os";
import { describe, expect, it } from "vitest";
import { UsageError } from "../../src/errors.js";
import { MAX_CLIENT_CONFIG_DEPTH, MAX_IMPORTED_SERVERS } from "../../src/limits.js";
import { readClientConfig } from "../../src/store/client-config.js";

const ENV = { API_BASE_URL: "https://api.example.com", HOME: "/home/ann" };
const read = (value: unknown, file = "/home/ann/project/.mcp.json") =>
  readClientConfig(typeof value === "string" ? value : JSON.stringify(value), file, ENV);

describe("client configuration files", () => {
  it("Claude Desktop: stdio and url servers, env kept, a literal token in env becomes a reference", async () => {
    const config = await read({
      mcpServers: {
        files: { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"], env: { DEBUG: "1" } },
        github: {
          command: "docker",
          args: ["run", "ghcr.io/github/github-mcp-server"],
          env: { GITHUB_TOKEN: "ghp_abc123" },
        },
        remote: { url: "https://mcp.example.com/mcp" },
      },
    });
    expect(config.refused).toEqual([]);
    const [files, github, remote] = config.servers;
    expect(files!.descriptor).toEqual({
      transport: "stdio",
      command: "npx",
      args: ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"],
      env: { DEBUG: "1" },
    });
    expect(github!.descriptor).toMatchObject({ env: { GITHUB_TOKEN: "${env:GITHUB_TOKEN}" } });
    expect(github!.notes.join(" ")).toMatch(/set GITHUB_TOKEN/);
    expect(JSON.stringify(config)).not.toContain("ghp_abc123");
    expect(remote!.descriptor).toEqual({ transport: "http", url: "https://mcp.example.com/mcp" });
  });

  it("Claude Code (.mcp.json): ${VAR} in headers and env become references, in the address are read now", async () => {
    const config = await read({
      mcpServers: {
        api: {
          type: "http",
          url: "${API_BASE_URL:-https://fallback.example.com}/mcp",
          headers: { Authorization: "Bearer ${API_KEY}", "X-Region": "${REGION:-eu}" },
        },
        fallback: { type: "http", url: "${UNSET_BASE:-https://fallback.example.com}/mcp" },
        old: { type: "sse", url: "https://old.example.com/sse" },
        local: { type: "stdio", command: "${HOME}/bin/server", env: { TOKEN: "${TOKEN}" } },
        secretArg: { command: "server", args: ["--token", "${API_TOKEN}"] },
        unsetArg: { command: "server", args: ["--dir", "${NOT_SET}"] },
      },
    });
    const byName = Object.fromEntries(config.servers.map((s) => [s.name, s]));
    expect(byName.api!.descriptor).toEqual({
      transport: "http",
      url: "https://api.example.com/mcp",
      headers: { Authorization: "Bearer ${env:API_KEY}", "X-Region": "${env:REGION}" },
    });
    expect(byName.api!.notes.join(" ")).toMatch(/default of \$\{REGION:-...\} is not kept: set REGION/);
    expect(byName.fallback!.descriptor).toMatchObject({ url: "https://fallback.example.com/mcp" });
    expect(byName.old!.notes.join(" ")).toMatch(/legacy HTTP\+SSE/);
    expect(byName.local!.descriptor).toMatchObject({ command: "/home/ann/bin/server", env: { TOKEN: "${env:TOKEN}" } });
    expect(Object.fromEntries(config.refused.map((r) => [r.name, r.reason]))).toEqual({
      secretArg: expect.stringMatching(/\$\{API_TOKEN\}, a secret: pass it in "env" or "headers"/),
      unsetArg: expect.stringMatching(/\$\{NOT_SET\}, which is not set/),
    });
  });

  it("VS Code (.vscode/mcp.json): JSONC, servers + inputs, ${input:} and ${workspaceFolder}", async () => {
    const text = `{
      // VS Code allows comments
      "inputs": [{ "type": "promptString", "id": "perplexity-key", "description": "Perplexity API Key", "password": true }],
      "servers": {
        "Perplexity": { "type": "stdio", "command": "npx", "args": ["-y", "server-perplexity-ask"],
                        "env": { "PERPLEXITY_API_KEY": "\${input:perplexity-key}" } },
        "fetch": { "type": "http", "url": "http://localhost:3000/mcp", "headers": { "X-Trace": "\${env:TRACE_ID}" } },
        "repo": { "command": "node", "args": ["\${workspaceFolder}/server.js"], }, /* trailing comma */
      },
    }`;
    const config = await read(text, "/home/ann/project/.vscode/mcp.json");
    expect(config.refused).toEqual([]);
    const [perplexity, fetch, repo] = config.servers;
    expect(perplexity!.descriptor).toMatchObject({ env: { PERPLEXITY_API_KEY: "${env:PERPLEXITY_KEY}" } });
    expect(perplexity!.notes.join(" ")).toMatch(
      /"Perplexity API Key" is read from the environment: set PERPLEXITY_KEY/,
    );
    expect(fetch!.descriptor).toMatchObject({ headers: { "X-Trace": "${env:TRACE_ID}" } });
    expect(repo!.descriptor).toMatchObject({ args: ["/home/ann/project/server.js"] });
    // A file named from the current folder (`server import .vscode/mcp.json`): the workspace is made absolute.
    const relative = await read(text, ".vscode/mcp.json");
    expect(relative.servers[2]!.descriptor).toMatchObject({ args: [`${process.cwd()}/server.js`] });
  });

  it("VS Code settings.json (mcp.servers), Cursor (${userHome}) and Windsurf (serverUrl)", async () => {
    const vscode = await read({ mcp: { servers: { a: { command: "a" } } } }, "/x/settings.json");
    expect(vscode.servers.map((s) => s.name)).toEqual(["a"]);
    const cursor = await read({ mcpServers: { c: { command: "${userHome}/c", env: { KEY: "${env:KEY}" } } } });
    expect(cursor.servers[0]!.descriptor).toMatchObject({ command: `${homedir()}/c`, env: { KEY: "${env:KEY}" } });
    const windsurf = await read({ mcpServers: { w: { serverUrl: "https://w.example.com/mcp" } } });
    expect(windsurf.servers[0]!.descriptor).toEqual({ transport: "http", url: "https://w.example.com/mcp" });
  });

  it("refuses a literal secret in a header, an undeclared input and an unknown variable, and imports the rest", async () => {
    const config = await read({
      mcpServers: {
        leaky: { url: "https://mcp.example.com/mcp", headers: { Authorization: "Bearer sk-live-123" } },
        leaky2: { url: "https://mcp.example.com/mcp", headers: { "X-Custom": "ghp_secretvalue" } },
        input: { command: "x", env: { A: "${input:nope}" } },
        odd: { command: "${command:pickFile}" },
        neither: { args: [] },
        fine: { url: "https://mcp.example.com/mcp", headers: { "X-Client": "mcp-task" } },
      },
    });
    expect(config.servers.map((s) => s.name)).toEqual(["fine"]);
    expect(Object.fromEntries(config.refused.map((r) => [r.name, r.reason]))).toEqual({
      leaky: expect.stringMatching(/header Authorization holds a literal secret/),
      leaky2: expect.stringMatching(/header X-Custom holds a literal secret/),
      input: expect.stringMatching(/\$\{input:nope\}/),
      odd: expect.stringMatching(/\$\{command:pickFile\}, which mcp-task cannot resolve/),
      neither: expect.stringMatching(/neither "command" nor "url"/),
    });
    expect(JSON.stringify(config)).not.toMatch(/sk-live-123|ghp_secretvalue/);
  });

  it("a file that is not JSON or has no servers is a usage error naming the file", async () => {
    await expect(read("{ not json", "/x/a.json")).rejects.toThrow(/\/x\/a.json is not JSON/);
    await expect(read({ other: {} }, "/x/b.json")).rejects.toThrow(/no "mcpServers" or "servers"/);
  });

  it("a name or key given twice is refused, every copy, and named once: never the last copy saved in silence", async () => {
    // JSON.parse (and jsonc-parser's parse) keep the last copy: a reader of the file sees the first.
    const config = await read(`{
      "mcpServers": {
        "prod": { "url": "https://prod.example.com/mcp" },
        "other": { "command": "ok" },
        "prod": { "url": "https://evil.example.net/mcp" },
        "twice": { "command": "good", "args": [], "command": "evil" },
        "deep": { "command": "x", "env": { "A": "1", "A": "2" } }
      }
    }`);
    expect(config.servers.map((s) => s.name)).toEqual(["other"]);
    expect(config.refused).toEqual([
      { name: "prod", reason: "its name is given 2 times in the file: which one is meant is not clear" },
      { name: "twice", reason: 'it gives "command" twice: which one is meant is not clear' },
      { name: "deep", reason: 'it gives "A" twice: which one is meant is not clear' },
    ]);
    // The object the servers are read from, given twice: which servers are meant is not clear either.
    await expect(
      read('{"mcpServers": {"a": {"command": "x"}}, "mcpServers": {"b": {"command": "y"}}}', "/x/c.json"),
    ).rejects.toThrow(/^\/x\/c\.json gives "mcpServers" twice: which one is meant is not clear/);
  });

  it("a file nested past MAX_CLIENT_CONFIG_DEPTH (200,000 deep) is a usage error naming the bound, not a stack overflow", async () => {
    const depth = 200_000;
    const text = `{"mcpServers": {"a": {"command": "x", "args": ${"[".repeat(depth)}${"]".repeat(depth)}}}}`;
    const error = await read(text, "/x/deep.json").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toMatch(
      new RegExp(
        `^/x/deep\\.json nests objects and arrays more than ${MAX_CLIENT_CONFIG_DEPTH} deep \\(at offset \\d+\\)`,
      ),
    );
    // Brackets inside strings and comments are not nesting; a file at the bound (3 levels + 61) is read.
    const nested = (n: number) => `${"[".repeat(n)}"[[[[" /* [[[[ */${"]".repeat(n)}`;
    const atBound = await read(
      `{"mcpServers": {"a": {"command": "x", "env": ${nested(MAX_CLIENT_CONFIG_DEPTH - 3)}}}}`,
    );
    expect(atBound.refused).toEqual([]);
    await expect(
      read(`{"mcpServers": {"a": {"command": "x", "env": ${nested(MAX_CLIENT_CONFIG_DEPTH - 2)}}}}`),
    ).rejects.toThrow(/more than 64 deep/);
  });

  it(`a file of more than MAX_IMPORTED_SERVERS servers is refused whole, before its entries are read`, async () => {
    const servers = Object.fromEntries(Array.from({ length: MAX_IMPORTED_SERVERS + 1 }, (_, i) => [`s${i}`, {}]));
    await expect(read({ mcpServers: servers }, "/x/many.json")).rejects.toThrow(
      `/x/many.json lists ${MAX_IMPORTED_SERVERS + 1} servers; mcp-task imports at most ${MAX_IMPORTED_SERVERS} from one file`,
    );
  });
});
