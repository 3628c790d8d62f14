// bin/core.js loads the core bundle with the code cache the build wrote for it, and only for it: V8 itself checks
// no more than the source's length, and a cache made for another bundle of the same length broke functions compiled
// later. A bundle of our own here (two of the same length), stamped with its digest as the build stamps
// dist/cli.cjs, loaded by the real loader.
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";

const require = createRequire(import.meta.url);
const { withBuildDigest } = require("../../bin/core.js") as { withBuildDigest(text: string): string };

function bundle(root: string, word: string, stamped = true): number {
  // A function compiled only when called (lazily), as most of the core's are.
  const code = `exports.main = async () => { function later() { return "${word}"; } return later(); };\n`;
  const source = stamped ? withBuildDigest(code) : code;
  writeFileSync(join(root, "dist", "cli.cjs"), source);
  return source.length;
}

it("a cache is used for the bundle it was made from, and never for another of the same length", async () => {
  const root = mkdtempSync(join(tmpdir(), "mcp-task-code-cache-"));
  mkdirSync(join(root, "bin"));
  mkdirSync(join(root, "dist"));
  copyFileSync(join(import.meta.dirname, "../../bin/core.js"), join(root, "bin", "core.js"));
  const { loadCore } = require(join(root, "bin", "core.js")) as {
    loadCore(dist?: string): { core: { main(): Promise<string> }; cache(): Buffer; cacheFile: string; cached: boolean };
  };
  const dist = join(root, "dist");
  const length = bundle(root, "first");
  const made = loadCore(dist);
  expect(made.cached).toBe(false); // none yet
  expect(await made.core.main()).toBe("first");
  writeFileSync(made.cacheFile, made.cache());
  const again = loadCore(dist);
  expect(again.cached).toBe(true);
  expect(await again.core.main()).toBe("first");
  expect(bundle(root, "other")).toBe(length); // another bundle of the same length
  const rebuilt = loadCore(dist);
  expect(rebuilt.cached).toBe(false);
  expect(await rebuilt.core.main()).toBe("other");
  // A bundle without the build's digest line (edited by hand, or built otherwise) runs without a cache, and none
  // can be made for it.
  bundle(root, "first", false);
  const unstamped = loadCore(dist);
  expect(unstamped.cached).toBe(false);
  expect(await unstamped.core.main()).toBe("first");
  expect(() => unstamped.cache()).toThrow(/no build digest/);
});

// Start-up pays only for what the command uses: node:crypto (~4 ms to load) is loaded on first use (src/hash.ts), and
// the loader matches the cache by the digest the build wrote rather than by hashing the bundle; node:child_process
// through the build's stand-in (lazyChildProcess). The built CLI here.
it.each([["--help"], ["list", "--json"]])(
  "`mcp-task %s` starts without node:crypto or node:child_process",
  (...args) => {
    const root = join(import.meta.dirname, "../..");
    const home = mkdtempSync(join(tmpdir(), "mcp-task-start-"));
    const probe = join(home, "probe.cjs");
    writeFileSync(
      probe,
      'process.on("exit", () => process.stderr.write(["crypto", "child_process"].map((m) => `${m}: ${process.moduleLoadList.includes(`NativeModule ${m}`)}\\n`).join("")));',
    );
    const run = spawnSync(process.execPath, ["-r", probe, join(root, "bin/mcp-task.js"), ...args], {
      encoding: "utf8",
      env: { ...process.env, MCP_TASK_HOME: home },
    });
    rmSync(home, { recursive: true, force: true });
    expect(run.status).toBe(0);
    expect(run.stderr).toContain("crypto: false");
    expect(run.stderr).toContain("child_process: false");
  },
);
