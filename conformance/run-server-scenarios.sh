#!/usr/bin/env bash
# Runs every tasks-* server scenario of the official MCP conformance suite
# (@modelcontextprotocol/conformance, pinned in ./package.json, run on the Node 22 binary of the
# npm package node@22 in ./node_modules) over Streamable HTTP, against mcp-task's V2 test server, or with
# `--demo` against the demo server shipped with mcp-task (demo-server/) in its V2 mode, as shipped plus the fixture
# tools the scenarios call (--conformance-fixtures).
#
#   conformance/run-server-scenarios.sh              # all tasks-* scenarios
#   conformance/run-server-scenarios.sh tasks-lifecycle tasks-mrtr-input   # just these
#   conformance/run-server-scenarios.sh --demo       # against the demo server
#
# Environment: KEEP_RESULTS=1 keeps the suite's result folders (default: a temp dir, removed);
# VERBOSE=1 prints the suite's full output of every scenario.
# Exit status: 0 when every scenario passed, 1 when any failed, 2 on a setup error.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
node22="$here/node_modules/node/bin/node"
suite="$here/node_modules/@modelcontextprotocol/conformance/dist/index.js"
server_js="$root/dist/test-servers/v2-server.js"
server_name="server"
if [[ "${1:-}" == "--demo" ]]; then
  shift
  server_js="$root/dist/test-servers/demo-server-main.js"
  server_name="demo server"
fi

# (a) the suite and Node 22, installed from the committed lockfile when missing
if [[ ! -x "$node22" || ! -f "$suite" ]]; then
  echo "conformance: installing the suite and Node 22 in $here" >&2
  if [[ -f "$here/package-lock.json" ]]; then
    (cd "$here" && npm ci --no-audit --no-fund >&2)
  else
    (cd "$here" && npm install --no-audit --no-fund >&2)
  fi
fi
"$node22" --version >/dev/null || { echo "conformance: $node22 does not run" >&2; exit 2; }

# (b) the server bundle, rebuilt when missing or older than its sources
if [[ ! -f "$server_js" ]] || [[ -n "$(find "$root/demo-server" "$root/test/servers" -name '*.ts' -newer "$server_js" -print -quit)" ]]; then
  echo "conformance: building the test servers" >&2
  (cd "$root" && node scripts/build.mjs >&2)
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/mcp-task-conformance.XXXXXX")"
server_pid=""
cleanup() {
  if [[ -n "$server_pid" ]] && kill -0 "$server_pid" 2>/dev/null; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  if [[ "${KEEP_RESULTS:-0}" == "1" ]]; then
    echo "conformance: results kept in $work" >&2
  else
    rm -rf "$work"
  fi
}
trap cleanup EXIT

# (c) the server, on a free loopback port (it picks one with --port 0 and prints its URL)
if [[ "$server_name" == "demo server" ]]; then
  node "$server_js" --port 0 --store "$work/store" --conformance-fixtures >"$work/server.out" 2>"$work/server.err" &
else
  node "$server_js" --port 0 --quiet >"$work/server.out" 2>"$work/server.err" &
fi
server_pid=$!
url=""
for _ in $(seq 1 100); do
  url="$(sed -n 's/^listening \(http:[^ ]*\)$/\1/p' "$work/server.out" | head -n1)"
  [[ -n "$url" ]] && break
  kill -0 "$server_pid" 2>/dev/null || break
  sleep 0.1
done
if [[ -z "$url" ]]; then
  echo "conformance: the $server_name did not start" >&2
  cat "$work/server.err" >&2
  exit 2
fi
echo "conformance: $server_name at $url (Node $("$node22" --version) runs the suite)" >&2

# (d) the scenarios: as given, or every tasks-* server scenario the suite lists
if [[ $# -gt 0 ]]; then
  scenarios=("$@")
else
  mapfile -t scenarios < <("$node22" "$suite" list --server 2>/dev/null | sed -n 's/^ *- \(tasks-[^ ]*\).*/\1/p')
  if [[ ${#scenarios[@]} -eq 0 ]]; then
    mapfile -t scenarios < <("$node22" "$suite" list 2>/dev/null | sed -n 's/^ *- \(tasks-[^ ]*\).*/\1/p')
  fi
fi
if [[ ${#scenarios[@]} -eq 0 ]]; then
  echo "conformance: no tasks-* scenarios found" >&2
  exit 2
fi

failed=0
for scenario in "${scenarios[@]}"; do
  out="$work/$scenario.log"
  status=0
  NO_COLOR=1 FORCE_COLOR=0 "$node22" "$suite" server --url "$url" --scenario "$scenario" --output-dir "$work/results" >"$out" 2>&1 || status=$?
  sed -i 's/\x1b\[[0-9;]*m//g' "$out" # the suite colours its output even into a file
  # The suite prints "Passed: P/T, F failed, W warnings" per scenario and exits non-zero on a failure.
  summary="$(grep -Eo 'Passed: [0-9]+/[0-9]+, [0-9]+ failed(, [0-9]+ warnings)?' "$out" | tail -n1 || true)"
  skipped="$(grep -c 'SKIPPED' "$out" || true)"
  if [[ $status -ne 0 ]]; then
    verdict="FAIL"
    failed=$((failed + 1))
  elif [[ "$summary" == "Passed: 0/0,"* && "$skipped" != "0" ]]; then
    verdict="SKIP" # the suite itself skips every check of this scenario (not a failure)
    summary="$summary; the suite skips it: $(grep -m1 'SKIPPED' "$out" | sed 's/.*SKIPPED *//')"
  else
    verdict="PASS"
  fi
  printf '%-4s %-30s %s\n' "$verdict" "$scenario" "${summary:-"(no summary; exit $status)"}"
  if [[ "$verdict" == "FAIL" || "${VERBOSE:-0}" == "1" ]]; then
    sed 's/^/    /' "$out"
  fi
done

if ! kill -0 "$server_pid" 2>/dev/null; then
  echo "conformance: the $server_name died during the run; its log:" >&2
  cat "$work/server.err" >&2
  failed=$((failed + 1))
fi

# (e) the verdict
total=${#scenarios[@]}
echo "conformance: $((total - failed))/$total tasks-* scenarios without failures"
[[ $failed -eq 0 ]]
