#!/usr/bin/env node
// Entry point: run the bundled CLI with the real process, then exit with its code. CommonJS (bin/package.json), as
// is the core bundle it loads (with its code cache: core.js): Node starts a CommonJS file sooner than an ES module
// (see scripts/build.mjs).
"use strict";
const { main } = require("./core.js").loadCore().core;

main(process.argv).then(async (code) => {
  process.exitCode = code;
  // What was written must get out first: a result of many MB to a pipe is still being written when main returns.
  await Promise.all(
    [process.stdout, process.stderr].map((stream) => new Promise((resolve) => stream.write("", () => resolve()))),
  );
  // Open handles (a closing child process, a keep-alive socket) must not keep a finished command waiting.
  setTimeout(() => process.exit(code), 50).unref();
});
