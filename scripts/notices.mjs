// The third-party notices of the bundle (dist/THIRD_PARTY_NOTICES.md), written by scripts/build.mjs from esbuild's
// metafiles: bundling copies each library's code into dist/, so each library's licence must travel with it. Every
// package with at least one file inside a shipped bundle is listed with its version, its licence's name and the
// text of its licence file (or, where the package ships none, a line saying so). Test servers are not shipped, so
// only the CLI's bundles are read.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join, sep } from "node:path";

/** The package folder holding `input` (a metafile input path relative to `root`), or undefined for our own code. */
function packageDir(root, input) {
  const path = input
    .replace(/^[a-z-]+:/, "")
    .split("/")
    .join(sep);
  const at = path.lastIndexOf(`node_modules${sep}`);
  if (at < 0) return undefined;
  const parts = path.slice(at + "node_modules".length + 1).split(sep);
  const name = parts[0].startsWith("@") ? parts.slice(0, 2).join(sep) : parts[0];
  return join(root, path.slice(0, at), "node_modules", name);
}

const LICENCE_FILE = /^(licen[cs]e|copying|notice)(\.|-|$)/i;

/** Writes the notices of every package in `metafiles` (esbuild metafiles of shipped bundles) to `file`. */
export async function writeNotices(root, metafiles, file) {
  const dirs = new Set();
  for (const metafile of metafiles)
    for (const input of Object.keys(metafile.inputs)) {
      const dir = packageDir(root, input);
      if (dir && existsSync(join(dir, "package.json"))) dirs.add(dir);
    }
  const packages = [...dirs]
    .map((dir) => {
      const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
      const files = readdirSync(dir)
        .filter((name) => LICENCE_FILE.test(name))
        .sort();
      const texts = files.map((name) => readFileSync(join(dir, name), "utf8").trim());
      return { name: pkg.name, version: pkg.version, license: pkg.license ?? "(not stated)", texts };
    })
    // One entry per name and version (a package may sit in two folders).
    .filter((p, i, all) => all.findIndex((q) => q.name === p.name && q.version === p.version) === i)
    .sort((a, b) => a.name.localeCompare(b.name) || a.version.localeCompare(b.version));
  const lines = [
    "# Third-party notices",
    "",
    "mcp-task's bundles (dist/) contain code from the packages below, each under its own licence, reproduced here.",
    "",
    ...packages.flatMap((p) => [
      `## ${p.name} ${p.version} (${p.license})`,
      "",
      ...(p.texts.length > 0
        ? p.texts.flatMap((text) => ["```", text, "```", ""])
        : [`The package ships no licence file; its package.json states: ${p.license}.`, ""]),
    ]),
  ];
  await writeFile(file, lines.join("\n"));
  return packages.length;
}
