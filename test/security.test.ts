// What mcp-task promises about the user's data: the store is private (and checked at every start), and secrets
// given as ${env:NAME} references never reach the terminal, a pipe, a --json line or a file.
import { chmodSync, chownSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { events, runCli, tempHome, type CliResult } from "./helpers/cli.js";
import { startV2Http } from "./helpers/servers.js";

const noStack = (text: string) => expect(text).not.toMatch(/\n\s+at .+:\d+:\d+/);

it("the store is checked at start: opened to others it is made private again, and said so; another user's is refused", async () => {
  const home = tempHome();
  expect((await runCli(["list"], { home })).code).toBe(0);
  chmodSync(home, 0o755);
  chmodSync(join(home, "tasks"), 0o777);
  writeFileSync(join(home, "tasks", "x.00000000.json"), "{}", { mode: 0o644 });
  chmodSync(join(home, "tasks", "x.00000000.json"), 0o644);

  const repaired = await runCli(["list", "--json"], { home });
  expect(repaired.code).toBe(0);
  expect(repaired.stdout.trim()).toBe("[]"); // stdout stays the document; the notice goes to stderr
  expect(repaired.stderr).toMatch(/was open to other users \(mode 755\): made it private \(0700\)/);
  expect(repaired.stderr).toMatch(/tasks was open to other users \(mode 777\): made it private \(0700\), and 1 file\(s\) in it \(0600\)/);
  expect(statSync(home).mode & 0o777).toBe(0o700);
  expect(statSync(join(home, "tasks")).mode & 0o777).toBe(0o700);
  expect(statSync(join(home, "tasks", "x.00000000.json")).mode & 0o777).toBe(0o600);
  expect((await runCli(["list", "--json"], { home })).stderr).not.toMatch(/private/); // once repaired, silent

  // Owned by someone else (root can make that here; elsewhere this half cannot be set up).
  if (process.getuid?.() !== 0) return;
  const foreign = tempHome();
  mkdirSync(join(foreign, "tasks"), { mode: 0o700 });
  chownSync(foreign, 4242, 4242);
  for (const json of [false, true]) {
    const refused = await runCli(["list", ...(json ? ["--json"] : [])], { home: foreign });
    expect(refused.code).toBe(2);
    noStack(refused.stderr);
    if (json) expect(events(refused.stdout)).toEqual([expect.objectContaining({ type: "error", exitCode: 2, message: expect.stringMatching(/belongs to another user \(uid 4242\)/) })]);
    else expect(refused.stderr).toMatch(/belongs to another user \(uid 4242\).*\n.*MCP_TASK_HOME/);
  }
});

it("secrets given as ${env:NAME} never reach stdout, stderr, --json lines or the files mcp-task keeps", async () => {
  const SECRET = "tok-SECRET-8731-xyz";
  const env = { MY_TOKEN: SECRET };
  const home = tempHome();
  const server = await startV2Http();
  const outputs: CliResult[] = [];
  const cli = async (args: string[]) => {
    const run = await runCli(args, { home, env });
    outputs.push(run);
    return run;
  };
  try {
    expect((await cli(["server", "add", "api", "--url", server.url, "--header", "Authorization: Bearer ${env:MY_TOKEN}"])).code).toBe(0);
    // A stdio server that prints the secret it was given to stderr, then dies: its stderr tail is in the error.
    const leaky = `node -e "console.error('my token is '+process.env.API_TOKEN); process.exit(3)"`;
    expect((await cli(["server", "add", "leaky", "--stdio", leaky, "--env", "API_TOKEN=${env:MY_TOKEN}"])).code).toBe(0);

    // A server that echoes the secret back (here: because it was sent as an argument) still shows the reference.
    const echoed = await cli(["call", "echo", `text=${SECRET}`, "-s", "api"]);
    expect(echoed.code).toBe(0);
    expect(echoed.stdout.trim()).toBe("${env:MY_TOKEN}");
    const echoedJson = await cli(["call", "echo", `text=say ${SECRET}`, "-s", "api", "--json"]);
    expect(JSON.stringify(events(echoedJson.stdout))).toContain("say ${env:MY_TOKEN}");

    const task = await cli(["call", "task_slow", "ms=300", "-s", "api", "--json"]);
    expect(task.code).toBe(0);
    const id = events(task.stdout)[0].taskId as string;
    for (const args of [["get", id, "--json"], ["watch", id], ["export", id], ["list", "--json"], ["server", "list", "--json"]]) {
      expect((await cli(args)).code, args.join(" ")).toBe(0);
    }
    for (const args of [["tools", "-s", "leaky"], ["call", "echo", "-s", "leaky", "--json"], ["call", "echo", "-s", "leaky"]]) {
      const failed = await cli(args);
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
    readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : e.isFile() ? [join(dir, e.name)] : []));
  const kept = files(home);
  expect(kept.length).toBeGreaterThan(2);
  for (const file of kept) expect(readFileSync(file, "utf8"), file).not.toContain(SECRET);
});
