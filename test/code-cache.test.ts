// bin/core.js loads the core bundle with the code cache the build wrote for it, and only for it: V8 itself checks
// no more than the source's length, and a cache made for another bundle of the same length broke functions compiled
// later. A bundle of our own here (two of the same length), loaded by the real loader.
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";

const require = createRequire(import.meta.url);

function bundle(root: string, word: string): number {
  // A function compiled only when called (lazily), as most of the core's are.
  const source = `exports.main = async () => { function later() { return "${word}"; } return later(); };\n`;
  writeFileSync(join(root, "dist", "cli.cjs"), source);
  return source.length;
}

it("a cache is used for the bundle it was made from, and never for another of the same length", async () => {
  const root = mkdtempSync(join(tmpdir(), "mcp-task-code-cache-"));
  mkdirSync(join(root, "bin"));
  mkdirSync(join(root, "dist"));
  copyFileSync(join(import.meta.dirname, "../bin/core.js"), join(root, "bin", "core.js"));
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
});
