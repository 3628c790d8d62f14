#!/usr/bin/env node
// Stands in for the person at the browser in URL-mode elicitation tests: `BROWSER="node visit-browser.mjs"` is run
// with the page's URL; it writes the URL it was given to VISIT_LOG (for the tests to check) and fetches it, which
// makes the test server mark the page visited and send notifications/elicitation/complete.
import { appendFileSync } from "node:fs";
const url = process.argv[process.argv.length - 1];
if (process.env.VISIT_LOG) appendFileSync(process.env.VISIT_LOG, `${url}\n`);
try {
  const response = await fetch(url);
  await response.text();
  process.exit(response.ok ? 0 : 1);
} catch {
  process.exit(1);
}
