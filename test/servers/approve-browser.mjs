#!/usr/bin/env node
// Stands in for the person at the browser in sign-in tests: `BROWSER="node approve-browser.mjs"` is run with the
// authorization URL; it fetches it and follows the redirects (the test authorization servers approve at once) back
// to mcp-task's loopback listener. APPROVE_LOG, when set, gets the final status (for the tests to check).
import { appendFileSync } from "node:fs";
const url = process.argv[process.argv.length - 1];
try {
  const response = await fetch(url, { redirect: "follow" });
  await response.text();
  if (process.env.APPROVE_LOG)
    appendFileSync(process.env.APPROVE_LOG, `${response.status} ${new URL(response.url).pathname}\n`);
  process.exit(response.ok ? 0 : 1);
} catch (error) {
  if (process.env.APPROVE_LOG) appendFileSync(process.env.APPROVE_LOG, `error ${error}\n`);
  process.exit(1);
}
