#!/usr/bin/env bash
# The whole test suite: build, type-check, the vitest suites (real servers), then the official conformance suite.
# Ends with one summary line "tests: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
status=0
node scripts/build.mjs || exit 1
npx tsc --noEmit || status=1
# The formatter (Prettier, 120 columns): `npm run format` fixes what this finds.
npm run -s format:check || status=1
# No wall-clock or CPU bound and no long fixed sleep in a functional test (speed is npm run bench's job).
node scripts/test-bounds.mjs || status=1
mkdir -p .tmp
npx vitest run --reporter=default --reporter=json --outputFile.json=.tmp/vitest-results.json || status=1
conformance_log=.tmp/conformance.log
bash conformance/run-all.sh 2>&1 | tee "$conformance_log"
[[ ${PIPESTATUS[0]} -eq 0 ]] || status=1
node -e '
  const fs = require("fs");
  let passed = 0, failed = 0;
  try { const r = JSON.parse(fs.readFileSync(".tmp/vitest-results.json", "utf8")); passed += r.numPassedTests; failed += r.numFailedTests; } catch { failed += 1; }
  const log = fs.readFileSync(process.argv[1], "utf8");
  passed += (log.match(/^PASS /gm) || []).length; failed += (log.match(/^FAIL /gm) || []).length;
  console.log(`tests: ${passed} passed, ${failed} failed`);
' "$conformance_log"
exit $status
