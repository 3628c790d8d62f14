// Bundles the CLI (and the test servers) with esbuild. Start-up time is dominated by module loading: one bundled
// file loads in a fraction of the time of hundreds of node_modules files (see docs/stack.md#the-build).
//
// The CLI is two bundles:
//   - dist/cli.cjs, the core: everything a command loads at start (commander, the commands, the store, the
//     engine, the printer), as one CommonJS file. Node's CommonJS loader starts a file ~20 ms sooner than its ES
//     module loader does the same code as ES modules (measured on `list`: 117 against 135 ms, `node -e 0` 83).
//   - dist/lazy/, ES modules loaded with import() when a command needs them: the MCP SDK, the broker, the Ink
//     views (Ink and yoga-layout use top-level await, which CommonJS cannot hold), proper-lockfile, AJV.
// A module of the core that lazy code imports (the errors, the store, the tracker...) must not be bundled a second
// time into dist/lazy: a second copy of a class breaks `instanceof` (a UsageError thrown by the dashboard would be
// reported as an internal error) and a second copy of a module's state splits it. So the core puts its modules'
// namespaces in a registry at load, and the lazy bundle reads those modules from it instead of bundling them.
import { build } from "esbuild";
import { spawnSync } from "node:child_process";
import { readdirSync, rmSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import {
  inkBoundedCaches,
  inkStyledChars,
  stringWidthSymbols,
  tokenizeSimpleLines,
  yogaWithoutFetch,
} from "./build-patches.mjs";
import { writeNotices } from "./notices.mjs";

const root = resolve(import.meta.dirname, "..");
const { withBuildDigest } = createRequire(import.meta.url)("../bin/core.js");
const REGISTRY = 'globalThis[Symbol.for("mcp-task.core")]';

// zod (under the MCP SDK) re-exports all of its ~60 message locales as a namespace, which keeps them all in the
// bundle: 360 KB of the 1.5 MB that every connecting command loads and compiles. Only English is ever configured
// (zod's classic entry calls config(en())), so the locales index is replaced by one that exports English alone.
const englishZod = {
  name: "zod-english-only",
  setup(b) {
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]v4[\\/]/.test(args.importer)
        ? { path: join(dirname(args.importer), "../locales/index.js"), namespace: "zod-locales" }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: "zod-locales" }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(join(dirname(args.path), "en.js"))};`,
      resolveDir: dirname(args.path),
    }));
  },
};

// commander requires node:child_process when loaded, for executable subcommands, which mcp-task does not have:
// ~3 ms of every start (with node:net, which it loads). It gets a stand-in that loads the real module on first use.
// (The stand-in serves require() alone: an ES import of it is read at once. mcp-task's own modules import the module
// where they use it: src/auth/browser.ts.)
const lazyChildProcess = {
  name: "commander-lazy-child-process",
  setup(b) {
    b.onResolve({ filter: /^(node:)?child_process$/ }, (args) =>
      /[\\/]commander[\\/]/.test(args.importer)
        ? { path: "child_process", namespace: "lazy-child-process" }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: "lazy-child-process" }, () => ({
      contents:
        'let real; module.exports = new Proxy({}, { get: (_, key) => (real ??= require("node:child_process"))[key] });',
      loader: "js",
    }));
  },
};

// proper-lockfile takes graceful-fs as its fs, whose loading (it clones and patches node:fs) was half of the ~8 ms
// the lock's first use cost (a call's handle write, the broker's client). graceful-fs queues the calls that open
// files when descriptors run out (EMFILE); proper-lockfile's calls (mkdir, stat, utimes, rmdir, realpath) open none,
// so node:fs serves them the same.
const lockfileFs = {
  name: "lockfile-node-fs",
  setup(b) {
    b.onResolve({ filter: /^graceful-fs$/ }, (args) =>
      /[\\/]proper-lockfile[\\/]/.test(args.importer) ? { path: "graceful-fs", namespace: "lockfile-fs" } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: "lockfile-fs" }, () => ({
      contents: 'module.exports = require("node:fs");',
      loader: "js",
    }));
  },
};

// The SDK's StdioClientTransport (and the sibling it spawns to probe a server's generation) starts its server with
// cross-spawn, which on POSIX is child_process.spawn; it is pointed at src/protocol/process.ts, which starts the
// server as the leader of a process group of its own, so that stopping the server reaches what it started (a
// grandchild holding its pipes). The transport is the SDK's base class on purpose: only that one probes on a sibling.
const serverSpawn = (inCore) => ({
  name: "server-spawn",
  setup(b) {
    b.onResolve({ filter: /^cross-spawn$/ }, (args) => {
      if (!/[\\/]@modelcontextprotocol[\\/]/.test(args.importer)) return undefined;
      const file = "src/protocol/process.ts";
      return inCore?.(file) ? { path: file, namespace: "core" } : { path: join(root, file) };
    });
  },
});

const common = {
  bundle: true,
  platform: "node",
  target: "node20",
  sourcemap: "linked",
  logLevel: "warning",
  // React and Ink in production mode: the development build is several times slower.
  define: { "process.env.NODE_ENV": '"production"' },
  // Whitespace and comments out, syntax shortened; names kept (stack traces, error classes' names). A process holds
  // the source of every module it loads (V8 compiles functions lazily from it), and one non-Latin-1 character in a
  // comment (an arrow, a dash) had V8 hold a whole bundle as UTF-16: the dashboard held 3.7 MB of bundle text.
  minifyWhitespace: true,
  minifySyntax: true,
};
const esm = {
  ...common,
  format: "esm",
  // Bundled CommonJS dependencies may call require(); give the ESM bundle one.
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
};

/**
 * The lazy bundle's entry name for a module imported with import(): src/broker/client.ts -> broker-client; a module
 * of ours outside src/ keeps its folder: demo-server/index.ts -> demo-server-index.
 */
function lazyName(path, spec) {
  const rel = relative(root, path);
  if (!rel.startsWith("..") && !rel.split(/[\\/]/).includes("node_modules")) {
    return rel
      .replace(/^src[\\/]/, "")
      .replace(/\.[cm]?[jt]sx?$/, "")
      .replaceAll("\\", "/")
      .replaceAll("/", "-");
  }
  return `pkg-${spec.replace(/^@/, "").replace(/[^A-Za-z0-9]+/g, "-")}`;
}

/** In the core: every import() of a module (not a node: builtin) becomes an import of its lazy bundle entry. */
function toLazy(targets) {
  return {
    name: "imports-to-lazy",
    setup(b) {
      b.onResolve({ filter: /.*/ }, async (args) => {
        if (args.kind !== "dynamic-import" || args.path.startsWith("node:")) return undefined;
        const found = await b.resolve(args.path, {
          kind: "import-statement",
          importer: args.importer,
          resolveDir: args.resolveDir,
        });
        if (found.errors.length > 0) return { errors: found.errors };
        const name = lazyName(found.path, args.path);
        targets.set(name, found.path);
        return { path: `./lazy/${name}.js`, external: true };
      });
    },
  };
}

// bin/core.js compiles the core with its code cache, and a script compiled so cannot call import() on Node 20: each
// import() of the core (of a lazy bundle or a node: builtin, always a string) is made a call of the function
// bin/core.js registers (the banner's fallback, import() itself, is for the core loaded with require()). The build
// fails if an import() is left.
const CORE_IMPORT = "__coreImport";
async function coreImports(file) {
  const calls = /(?<![\w$.])import\((?=")/g;
  const text = (await readFile(file, "utf8")).replace(calls, `${CORE_IMPORT}(`);
  const left = /(?<![\w$.])import\((?!spec\))/.exec(text);
  if (left)
    throw new Error(`core-imports: an import() the build cannot redirect: ${text.slice(left.index, left.index + 60)}`);
  // The core's last edit, so written with its digest (bin/core.js matches its code cache against it, without hashing).
  await writeFile(file, withBuildDigest(text));
}

const core = (entry, targets, extra = {}) =>
  build({
    ...common,
    ...extra,
    entryPoints: { cli: entry },
    outdir: "dist",
    outExtension: { ".js": ".cjs" },
    format: "cjs",
    external: ["react-devtools-core"],
    // import.meta.url (src/hash.ts's createRequire) as CommonJS knows it.
    define: { ...common.define, "import.meta.url": "__import_meta_url" },
    banner: {
      js:
        'const __import_meta_url = require("node:url").pathToFileURL(__filename).href;\n' +
        `const ${CORE_IMPORT} = globalThis[Symbol.for("mcp-task.import")] ?? ((spec) => import(spec));`,
    },
    plugins: [englishZod, lazyChildProcess, serverSpawn(), toLazy(targets), ...(extra.plugins ?? [])],
  });

// The lazy bundles' chunk names carry a hash: last build's chunks would stay beside this build's, and `npm pack`
// would ship them. The folder is written whole below.
rmSync(join(root, "dist/lazy"), { recursive: true, force: true });

// 1. The core as it is, to learn which of our modules it holds and what it imports lazily.
const targets = new Map();
const first = await core("src/cli.ts", targets, { metafile: true, write: false });
const coreFiles = Object.keys(first.metafile.inputs).filter((input) => input.startsWith("src/"));

// 2. What each of those modules exports (bundle: false keeps every module's own exports).
const exportsOf = new Map();
const unbundled = await build({
  entryPoints: coreFiles,
  bundle: false,
  format: "esm",
  outdir: "dist/.exports",
  write: false,
  metafile: true,
  logLevel: "warning",
});
for (const output of Object.values(unbundled.metafile.outputs)) {
  if (output.entryPoint) exportsOf.set(output.entryPoint, output.exports);
}

// 3. The core again, now registering the namespace of each of its modules as it loads.
const registryEntry = {
  name: "core-registry",
  setup(b) {
    b.onResolve({ filter: /^core-entry$/ }, () => ({ path: "core-entry", namespace: "core-entry" }));
    b.onLoad({ filter: /.*/, namespace: "core-entry" }, () => ({
      resolveDir: root,
      loader: "js",
      contents: [
        'export * from "./src/cli.ts";',
        ...coreFiles.map((file, i) => `import * as m${i} from ${JSON.stringify(`./${file}`)};`),
        `${REGISTRY} = { ${coreFiles.map((file, i) => `${JSON.stringify(file)}: m${i}`).join(", ")} };`,
      ].join("\n"),
    }));
  },
};
const shippedCore = await core("core-entry", new Map(), { plugins: [registryEntry], metafile: true });
await coreImports(join(root, "dist/cli.cjs"));

// 4. The lazy modules, as ES modules sharing chunks among themselves, reading the core's modules from its registry.
const fromCore = {
  name: "core-from-registry",
  setup(b) {
    b.onResolve({ filter: /^\.\.?\// }, async (args) => {
      if (args.pluginData?.resolving) return undefined;
      const found = await b.resolve(args.path, {
        kind: args.kind,
        importer: args.importer,
        resolveDir: args.resolveDir,
        pluginData: { resolving: true },
      });
      const file = relative(root, found.path);
      return exportsOf.has(file) ? { path: file, namespace: "core" } : undefined;
    });
    b.onLoad({ filter: /.*/, namespace: "core" }, (args) => {
      const names = exportsOf.get(args.path);
      const named = names.filter((name) => name !== "default");
      return {
        loader: "js",
        contents: [
          `const m = ${REGISTRY}[${JSON.stringify(args.path)}];`,
          `if (!m) throw new Error("mcp-task: lazy code loaded without its core (${args.path})");`,
          named.length > 0 ? `export const { ${named.join(", ")} } = m;` : "",
          names.includes("default") ? "export default m.default;" : "",
        ].join("\n"),
      };
    });
  },
};
const shippedLazy = await build({
  ...esm,
  entryPoints: Object.fromEntries(targets),
  metafile: true,
  outdir: "dist/lazy",
  splitting: true,
  chunkNames: "chunks/[name]-[hash]",
  external: ["react-devtools-core"],
  plugins: [
    englishZod,
    inkBoundedCaches,
    inkStyledChars,
    stringWidthSymbols,
    tokenizeSimpleLines,
    yogaWithoutFetch,
    lockfileFs,
    serverSpawn((file) => exportsOf.has(file)),
    fromCore,
  ],
});

await writeNotices(root, [shippedCore.metafile, shippedLazy.metafile], join(root, "dist/THIRD_PARTY_NOTICES.md"));

// mcp-framework (a test server's, test/servers/framework-server.ts) takes zod 3.x as a peer and checks a tool's schema
// with instanceof: the server's tools must be built with the very zod it loads, not the project's zod 4 (which the
// MCP SDK uses). Its `zod` is resolved where mcp-framework's own import of it is.
const frameworkZod = {
  name: "framework-peer-zod",
  setup(b) {
    b.onResolve({ filter: /^zod$/ }, async (args) => {
      if (!/framework-server\.ts$/.test(args.importer)) return undefined;
      const framework = await b.resolve("mcp-framework", { kind: args.kind, resolveDir: args.resolveDir });
      return b.resolve("zod", { kind: args.kind, resolveDir: dirname(framework.path) });
    });
  },
};

// Test servers and test tools run as child processes of the tests, so they are bundled too.
for (const [dir, out] of [
  ["test/servers", "dist/test-servers"],
  ["test/tools", "dist/test-tools"],
]) {
  const entries = readdirSync(dir).filter((f) => /\.ts$/.test(f) && !f.endsWith(".d.ts"));
  if (entries.length > 0)
    await build({
      ...esm,
      entryPoints: entries.map((f) => `${dir}/${f}`),
      outdir: out,
      plugins: [englishZod, lazyChildProcess, frameworkZod],
    });
}

// Last, with every bundle written: the core's code cache (scripts/code-cache.mjs), in a process of its own.
const cached = spawnSync(process.execPath, [join(root, "scripts/code-cache.mjs")], {
  stdio: ["ignore", "ignore", "inherit"],
});
if (cached.status !== 0) throw new Error(`code-cache: exited with ${cached.status}`);
