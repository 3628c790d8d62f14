// Loads the core bundle (dist/cli.cjs) with V8's code cache for it (dist/cli.cjs.cache, written by the build:
// scripts/code-cache.mjs), which spares each start the compiling of its 450 KB (~10 ms of a 100 ms `list`).
// Node 22 does this itself (module.enableCompileCache); on Node 20 its CommonJS loader takes no cache, so the bundle
// is compiled here as the loader would (the same wrapper, filename and require). A cache V8 refuses (another Node,
// other flags, a rebuilt bundle) costs nothing but the compiling it would have spared; nothing is written at run
// time (a CLI run in CI or from a read-only install must not write beside itself).
// A script compiled this way cannot call import() on Node 20 (that needs --experimental-vm-modules), so the build
// has the core's import() calls go through the function registered here (see scripts/build.mjs: coreImports).
"use strict";
const { readFileSync } = require("node:fs");
const Module = require("node:module");
const { join } = require("node:path");
const { pathToFileURL } = require("node:url");
const vm = require("node:vm");

const dist = join(__dirname, "../dist");
const file = join(dist, "cli.cjs");
const cacheFile = `${file}.cache`;

/** The core's exports, and the script they came from (whose cache scripts/code-cache.mjs writes). */
function loadCore() {
  let cachedData;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    // No cache (a build that did not write one): compiled as without it.
  }
  const script = new vm.Script(Module.wrap(readFileSync(file, "utf8")), { filename: file, cachedData });
  globalThis[Symbol.for("mcp-task.import")] = (spec) =>
    import(spec.startsWith("./") ? pathToFileURL(join(dist, spec)).href : spec);
  const core = new Module(file, module);
  core.filename = file;
  script.runInThisContext()(core.exports, Module.createRequire(file), core, file, dist);
  return { core: core.exports, script, cacheFile };
}

module.exports = { loadCore };
