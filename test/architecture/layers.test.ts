// The layer rule of ARCHITECTURE.md, held against the imports: the ```layers block there lists the layers from the
// top down (a line's first column names its files and folders); a file of src/ imports only from its own line or
// the lines below it, types included, and the import graph has no circle. demo-server/ imports nothing from src/.
// Read from the sources with a regular expression (import/export ... from "./x", import("./x")): every import of
// ours is written in one of those two forms (the formatter keeps each on its own statement).
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers/servers.js";

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(ROOT, path)).isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(name) && !name.endsWith(".d.ts") ? [path] : [];
  });
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+"(\.[^"]+)"|import\(\s*"(\.[^"]+)"\s*\)/g;

/** Each file's imports of our own files (by path from the root). */
function importsOf(files: string[]): Map<string, string[]> {
  const known = new Set(files);
  const resolve = (from: string, spec: string) => {
    const base = normalize(join(dirname(from), spec)).replace(/\.js$/, "");
    return [`${base}.ts`, `${base}.tsx`, join(base, "index.ts")].find((f) => known.has(f)) ?? `${base} (not a source)`;
  };
  return new Map(
    files.map((file) => {
      const text = readFileSync(join(ROOT, file), "utf8");
      return [file, [...text.matchAll(IMPORT)].map((m) => resolve(file, (m[1] ?? m[2])!))];
    }),
  );
}

/** The ```layers block of ARCHITECTURE.md: for each line from the top, the paths in its first column. */
function layers(): string[][] {
  const text = readFileSync(join(ROOT, "ARCHITECTURE.md"), "utf8");
  const block = /```layers\n([\s\S]*?)```/.exec(text);
  if (!block) throw new Error("ARCHITECTURE.md has no ```layers block");
  return block[1]!
    .split("\n")
    .map((line) => line.split(/\s{2,}/)[0]!.trim())
    .filter((first) => /^(src|bin|demo-server)\//.test(first))
    .map((first) => first.split(/\s+/));
}

const layerOf = (table: string[][], file: string) =>
  table.findIndex((paths) => paths.some((p) => file === p || (p.endsWith("/") && file.startsWith(p))));

describe("the layers of ARCHITECTURE.md", () => {
  const files = sourceFiles("src");
  const graph = importsOf(files);
  const table = layers();

  it("name every source file", () => {
    expect(files.filter((file) => layerOf(table, file) < 0)).toEqual([]);
  });

  it("hold: no import goes up a line (types included)", () => {
    const up: string[] = [];
    for (const [file, targets] of graph)
      for (const target of targets) {
        if (target.startsWith("demo-server/")) continue; // a program of its own, below everything (next test)
        const [from, to] = [layerOf(table, file), layerOf(table, target)];
        if (to < 0 || to < from) up.push(`${file} -> ${target}`);
      }
    expect(up).toEqual([]);
  });

  it("have no circle in the import graph (types included)", () => {
    const state = new Map<string, "open" | "done">();
    const circles: string[] = [];
    const path: string[] = [];
    const visit = (file: string) => {
      state.set(file, "open");
      path.push(file);
      for (const target of graph.get(file) ?? []) {
        if (state.get(target) === "open") circles.push([...path.slice(path.indexOf(target)), target].join(" -> "));
        else if (!state.has(target) && graph.has(target)) visit(target);
      }
      path.pop();
      state.set(file, "done");
    };
    for (const file of files) if (!state.has(file)) visit(file);
    expect(circles).toEqual([]);
  });

  it("leave demo-server/ a program of its own: it imports nothing from src/", () => {
    const demo = sourceFiles("demo-server");
    const reaching = [...importsOf(demo)].flatMap(([file, targets]) =>
      targets.filter((t) => relative("src", t).startsWith("..") === false).map((t) => `${file} -> ${t}`),
    );
    expect(demo.length).toBeGreaterThan(0);
    expect(reaching).toEqual([]);
  });
});
