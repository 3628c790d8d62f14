#!/usr/bin/env node
// Entry point: run the bundled CLI with the real process, then exit with its code.
import { main } from "../dist/cli.js";

const code = await main(process.argv);
process.exitCode = code;
// Open handles (a closing child process, a keep-alive socket) must not keep a finished command waiting.
setTimeout(() => process.exit(code), 50).unref();
