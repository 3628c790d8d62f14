// Writes V8's code cache of the core bundle (dist/cli.cjs.cache: see bin/core.js), run by scripts/build.mjs in a
// process of its own. The cache is taken after the core has run what most commands run (parsing the command line,
// --help, `list` of an empty store), so that it holds those functions compiled too, not only the top level: measured
// on `list`, a cache of the top level alone spared half as much.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";

const { loadCore } = createRequire(import.meta.url)("../bin/core.js");
const home = mkdtempSync(join(tmpdir(), "mcp-task-code-cache-"));
process.env.MCP_TASK_HOME = home;
try {
  const { core, cache, cacheFile } = loadCore();
  for (const args of [["--help"], ["list", "--json"], ["list"]]) await core.main(["node", "mcp-task", ...args]);
  writeFileSync(cacheFile, cache());
} finally {
  rmSync(home, { recursive: true, force: true });
}
process.exit(0);
