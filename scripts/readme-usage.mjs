// Rewrites the README's usage block from `mcp-task --help` (a test checks that they agree).
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dirname, "..");
const help = execFileSync(process.execPath, [join(root, "bin/mcp-task.js"), "--help"], {
  encoding: "utf8",
  env: { ...process.env, COLUMNS: "80" },
});
const path = join(root, "README.md");
const readme = readFileSync(path, "utf8");
const updated = readme.replace(/## Usage\n\n```\n[\s\S]*?```/, () => `## Usage\n\n\`\`\`\n${help}\`\`\``);
writeFileSync(path, updated);
console.log(updated === readme ? "README usage block already up to date" : "README usage block updated");
