#!/usr/bin/env bash
# The whole test suite: build, then beside one another the checks (types, format, test bounds), the official
# conformance suite and the vitest suites (real servers): most of a test's time is spent waiting on servers and
# processes, so the two cores have room for the rest meanwhile. Each one's output is printed once it is done.
# Ends with one summary line "tests: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
status=0
node scripts/build.mjs || exit 1
mkdir -p .tmp
checks_log=.tmp/checks.log
conformance_log=.tmp/conformance.log
# Types; the formatter (Prettier, 120 columns: `npm run format` fixes what it finds); no wall-clock or CPU bound and
# no long fixed sleep in a functional test (speed is npm run bench's job).
(
  status=0
  npx tsc --noEmit || status=1
  npm run -s format:check || status=1
  node scripts/test-bounds.mjs || status=1
  exit $status
) >"$checks_log" 2>&1 &
checks=$!
bash conformance/run-all.sh >"$conformance_log" 2>&1 &
conformance=$!
npx vitest run --reporter=default --reporter=json --outputFile.json=.tmp/vitest-results.json || status=1
wait $checks || status=1
cat "$checks_log"
wait $conformance || status=1
cat "$conformance_log"
node -e '
  const fs = require("fs");
  let passed = 0, failed = 0;
  try { const r = JSON.parse(fs.readFileSync(".tmp/vitest-results.json", "utf8")); passed += r.numPassedTests; failed += r.numFailedTests; } catch { failed += 1; }
  const log = fs.readFileSync(process.argv[1], "utf8");
  passed += (log.match(/^PASS /gm) || []).length; failed += (log.match(/^FAIL /gm) || []).length;
  console.log(`tests: ${passed} passed, ${failed} failed`);
' "$conformance_log"
exit $status
