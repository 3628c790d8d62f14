// The built-in example (until the demo server exists): a long research task on the real V1 server
// @modelcontextprotocol/server-everything over stdio, which stops to ask which "python" is meant; the answer is
// given ahead of time with --input, as a pipeline would.
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const require = createRequire(import.meta.url);
const server = join(dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")), "dist/index.js");
const bin = join(import.meta.dirname, "..", "bin", "mcp-task.js");
const args = [
  bin,
  "call",
  "simulate-research-query",
  "topic=python",
  "ambiguous=true",
  "--input",
  JSON.stringify({ interpretation: "snake" }),
  "--stdio",
  `${JSON.stringify(process.execPath)} ${JSON.stringify(server)} stdio`,
];
console.error(
  `$ mcp-task call simulate-research-query topic=python ambiguous=true --input '{"interpretation":"snake"}' --stdio "<server-everything> stdio"\n`,
);
const run = spawnSync(process.execPath, args, { stdio: "inherit" });
process.exit(run.status ?? 1);
