// test/README.md lists every test file (its table is where a newcomer finds which file tests what, and how it runs).
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { expect, it } from "vitest";
import { ROOT } from "../helpers/servers.js";

function testFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return testFiles(path);
    return /\.test\.tsx?$/.test(name) ? [relative(join(ROOT, "test"), path)] : [];
  });
}

it("test/README.md names every test file, and no file that is gone", () => {
  const readme = readFileSync(join(ROOT, "test/README.md"), "utf8");
  const files = testFiles(join(ROOT, "test"));
  const listed = [...readme.matchAll(/^\| `([^`]+\.test\.tsx?)` \|/gm)].map((m) => m[1]);
  expect(files.length).toBeGreaterThan(50);
  expect(files.filter((file) => !listed.includes(file))).toEqual([]);
  expect(listed.filter((file) => !files.includes(file!))).toEqual([]);
});
