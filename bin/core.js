// Loads the core bundle (dist/cli.cjs) with V8's code cache for it (dist/cli.cjs.cache, written by the build:
// scripts/code-cache.mjs), which spares each start the compiling of its 450 KB (~10 ms of a 100 ms `list`).
// Node 22 does this itself (module.enableCompileCache); on Node 20 its CommonJS loader takes no cache, so the bundle
// is compiled here as the loader would (the same wrapper, filename and require). Nothing is written at run time (a
// CLI run in CI or from a read-only install must not write beside itself).
// The cache starts with the SHA-1 of the bundle it was made from, and is used only for that bundle: V8 checks no more
// than the source's length, and took a cache made for a rebuilt bundle of the same length, whose functions then
// failed to compile as they were first called (a SyntaxError in the middle of a run). The build writes that SHA-1 on
// the bundle's last line (`//# mcp-task-build=<hex>`), read here: hashing the bundle at each start loaded node:crypto,
// ~4 ms that most commands never need otherwise (src/hash.ts loads it on first use). A bundle without the line gets
// no cache. A cache V8 refuses (another Node, other flags) costs nothing but the compiling it would have spared.
// A script compiled this way cannot call import() on Node 20 (that needs --experimental-vm-modules), so the build
// has the core's import() calls go through the function registered here (see scripts/build.mjs: coreImports).
"use strict";
const { readFileSync } = require("node:fs");
const Module = require("node:module");
const { join } = require("node:path");
const { pathToFileURL } = require("node:url");
const vm = require("node:vm");

const DIGEST_BYTES = 20;
const BUILD_MARK = "//# mcp-task-build=";

/** `text` with its digest on a last line of its own, as the build writes dist/cli.cjs (node:crypto loaded here only). */
function withBuildDigest(text) {
  const digest = require("node:crypto").createHash("sha1").update(text).digest("hex");
  return `${text}${text.endsWith("\n") ? "" : "\n"}${BUILD_MARK}${digest}\n`;
}

/** The digest the build wrote on the bundle's last line (withBuildDigest), or undefined. */
function buildDigest(source) {
  const tail = source.subarray(Math.max(0, source.length - 128)).toString("latin1");
  const at = tail.lastIndexOf(BUILD_MARK);
  const hex = at < 0 ? "" : tail.slice(at + BUILD_MARK.length, at + BUILD_MARK.length + 2 * DIGEST_BYTES);
  return /^[0-9a-f]{40}$/.test(hex) ? Buffer.from(hex, "hex") : undefined;
}

/** The core's exports, and what scripts/code-cache.mjs needs to write its cache. */
function loadCore(dist = join(__dirname, "../dist")) {
  const file = join(dist, "cli.cjs");
  const cacheFile = `${file}.cache`;
  const source = readFileSync(file);
  const digest = buildDigest(source);
  let cachedData;
  try {
    const cache = digest && readFileSync(cacheFile);
    if (cache && cache.subarray(0, DIGEST_BYTES).equals(digest)) cachedData = cache.subarray(DIGEST_BYTES);
  } catch {
    // No cache (a build that did not write one): compiled as without it.
  }
  const script = new vm.Script(Module.wrap(source.toString("utf8")), { filename: file, cachedData });
  globalThis[Symbol.for("mcp-task.import")] = (spec) =>
    import(spec.startsWith("./") ? pathToFileURL(join(dist, spec)).href : spec);
  const core = new Module(file, module);
  core.filename = file;
  script.runInThisContext()(core.exports, Module.createRequire(file), core, file, dist);
  /** The cache of the script as it stands (its functions compiled so far), for this bundle (which has its digest). */
  const cache = () => {
    if (!digest) throw new Error(`${file} has no build digest on its last line (${BUILD_MARK}...)`);
    return Buffer.concat([digest, script.createCachedData()]);
  };
  return { core: core.exports, cache, cacheFile, cached: cachedData !== undefined && !script.cachedDataRejected };
}

module.exports = { loadCore, withBuildDigest };
