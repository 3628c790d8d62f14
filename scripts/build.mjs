// Bundles the CLI (and the test servers) with esbuild. Start-up time is dominated by module loading:
// one bundled file loads in a fraction of the time of hundreds of node_modules files (see ../shared/STACK.md).
import { build } from "esbuild";
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";

// zod (under the MCP SDK) re-exports all of its ~60 message locales as a namespace, which keeps them all in the
// bundle: 360 KB of the 1.5 MB that every connecting command loads and compiles. Only English is ever configured
// (zod's classic entry calls config(en())), so the locales index is replaced by one that exports English alone.
const englishZod = {
  name: "zod-english-only",
  setup(b) {
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]v4[\\/]/.test(args.importer) ? { path: join(dirname(args.importer), "../locales/index.js"), namespace: "zod-locales" } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: "zod-locales" }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(join(dirname(args.path), "en.js"))};`,
      resolveDir: dirname(args.path),
    }));
  },
};

// commander requires node:child_process when loaded, for executable subcommands, which mcp-task does not have:
// ~4 ms of every start. It gets a stand-in that loads the real module on first use.
const lazyChildProcess = {
  name: "commander-lazy-child-process",
  setup(b) {
    b.onResolve({ filter: /^(node:)?child_process$/ }, (args) =>
      /[\\/]commander[\\/]/.test(args.importer) ? { path: "child_process", namespace: "lazy-child-process" } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: "lazy-child-process" }, () => ({
      contents: 'let real; module.exports = new Proxy({}, { get: (_, key) => (real ??= require("node:child_process"))[key] });',
      loader: "js",
    }));
  },
};

const common = {
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  sourcemap: "linked",
  logLevel: "warning",
  // React and Ink in production mode: the development build is several times slower.
  define: { "process.env.NODE_ENV": '"production"' },
  // Bundled CommonJS dependencies may call require(); give the ESM bundle one.
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  plugins: [englishZod, lazyChildProcess],
};

await build({
  ...common,
  entryPoints: { cli: "src/cli.ts" },
  outdir: "dist",
  splitting: true,
  chunkNames: "chunks/[name]-[hash]",
  external: ["react-devtools-core"],
});

// Test servers and test tools run as child processes of the tests, so they are bundled too.
for (const [dir, out] of [["test/servers", "dist/test-servers"], ["test/tools", "dist/test-tools"]]) {
  const entries = readdirSync(dir).filter((f) => /\.ts$/.test(f) && !f.endsWith(".d.ts"));
  if (entries.length > 0) await build({ ...common, entryPoints: entries.map((f) => `${dir}/${f}`), outdir: out });
}
