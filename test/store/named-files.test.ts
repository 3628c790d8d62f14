// Files a person names on the command line (src/store/named-files.ts): read or written only when they are regular
// files. A FIFO waited for a writer for ever, and neither Ctrl-C nor SIGTERM ended the process (its exit waited on
// the thread blocked in open). The binary, since a hang here would hang the test's own process; the timeouts are
// ones only a hang trips.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { cliEnv, exitedAndRead, runCli, tempHome } from "../helpers/cli.js";
import { ROOT } from "../helpers/servers.js";
import { MAX_CLIENT_CONFIG_BYTES } from "../../src/limits.js";

const HANG = { timeoutMs: 30_000 };

it("a FIFO or a device given as a file is refused at once with one line (exit 2): server import, import, @file, --trace, --junit", async () => {
  const home = tempHome();
  const fifo = join(home, "pipe");
  expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
  const cases: Array<[string[], RegExp]> = [
    [
      ["server", "import", fifo],
      /^mcp-task: error: cannot read \S+pipe: it is a FIFO, and mcp-task reads only regular files\nhint: /,
    ],
    [
      ["import", fifo],
      /^mcp-task: error: cannot read \S+pipe: it is a FIFO, .*\nhint: save it to a file first, or pipe it in with - \(stdin\)\n$/,
    ],
    [
      ["import", "/dev/zero"],
      /^mcp-task: error: cannot read \/dev\/zero: it is a device, and mcp-task reads only regular files\n/,
    ],
    [["server", "import", home], /cannot read \S+: it is a directory, and mcp-task reads only regular files\n/],
    [
      ["call", "--stdio", "node -e 0", "echo", "--args", `@${fifo}`],
      /^mcp-task: error: cannot read --args from \S+pipe: it is a FIFO/,
    ],
    [
      ["tools", "--stdio", "node -e 0", `--trace=${fifo}`],
      /^mcp-task: error: cannot write the trace file \S+pipe \(it is a FIFO or socket, and mcp-task writes only to regular files\)\n/,
    ],
    [
      ["check", "--stdio", "node -e 0", "--junit", fifo],
      /cannot write \S+pipe: it is a FIFO or socket, and mcp-task writes only regular files/,
    ],
  ];
  for (const [args, line] of cases) {
    const run = await runCli(args, { home, ...HANG });
    expect(run.code, `${args.join(" ")}: ${run.stderr}`).toBe(2);
    expect(run.stderr).toMatch(line);
  }
  // A report goes to a regular file as before.
  const report = join(home, "report.xml");
  writeFileSync(report, "x".repeat(100_000));
  await runCli(["check", "--stdio", "node -e 0", "--junit", report], { home, ...HANG });
  expect(readFileSync(report, "utf8")).toMatch(/^<\?xml[^]*<\/testsuites>\n?$/);
});

it("a client file past MAX_CLIENT_CONFIG_BYTES is refused by its size, unread (exit 2)", async () => {
  const home = tempHome();
  const file = join(home, "huge.json");
  writeFileSync(file, "");
  truncateSync(file, MAX_CLIENT_CONFIG_BYTES + 1); // sparse: costs no disk
  const run = await runCli(["server", "import", file], { home, ...HANG });
  expect(run.code).toBe(2);
  expect(run.stderr).toMatch(/^mcp-task: error: cannot read \S+huge\.json: it is larger than 64 MiB \(64 MiB\)\n$/);
});

it("import - waiting on a stdin that never ends stops at the first Ctrl-C (exit 130)", async () => {
  const home = tempHome();
  const child = spawn(process.execPath, [join(ROOT, "bin/mcp-task.js"), "import", "-"], {
    env: cliEnv(home),
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk) => (stderr += chunk));
  child.stdout.resume();
  child.stdin.write("[");
  const exited = exitedAndRead(child);
  // One Ctrl-C, once mcp-task handles it (before that, Node's default would end the process and prove nothing): its
  // home's tasks directory is made after its handler is installed.
  while (!existsSync(join(home, "tasks"))) await new Promise((resolve) => setTimeout(resolve, 20));
  await new Promise((resolve) => setTimeout(resolve, 200));
  child.kill("SIGINT");
  const hang = setTimeout(() => child.kill("SIGKILL"), 30_000); // hang-only: a Ctrl-C not handled never exits
  const code = await exited;
  clearTimeout(hang);
  child.stdin.destroy();
  expect(code, stderr).toBe(130);
  expect(stderr).toMatch(/^mcp-task: error: interrupted\n/);
});
