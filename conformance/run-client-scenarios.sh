#!/usr/bin/env bash
# Runs the official conformance suite's client scenarios against `mcp-task` (through conformance/client.sh).
# Exit status: 0 when every scenario passed, 1 when any failed, 2 on a setup error.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
node22="$here/node_modules/node/bin/node"
suite="$here/node_modules/@modelcontextprotocol/conformance/dist/index.js"

if [[ ! -x "$node22" || ! -f "$suite" ]]; then
  (cd "$here" && npm ci --no-audit --no-fund >&2)
fi
[[ -f "$root/dist/cli.cjs" ]] || (cd "$root" && node scripts/build.mjs >&2)

work="$(mktemp -d "${TMPDIR:-/tmp}/mcp-task-conformance-clients.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# scenario, then extra suite flags
runs=(
  "tools_call"
  "tools_call --spec-version 2026-07-28"
  "request-metadata"
  "sep-2322-client-request-state"
  "http-standard-headers"
)

failed=0
for run in "${runs[@]}"; do
  read -r scenario flags <<<"$run"
  out="$work/${scenario}.log"
  status=0
  # shellcheck disable=SC2086
  NO_COLOR=1 FORCE_COLOR=0 "$node22" "$suite" client --command "bash $here/client.sh" --scenario "$scenario" $flags --output-dir "$work/results" >"$out" 2>&1 || status=$?
  sed -i 's/\x1b\[[0-9;]*m//g' "$out"
  summary="$(grep -Eo 'Passed: [0-9]+/[0-9]+, [0-9]+ failed(, [0-9]+ warnings)?' "$out" | tail -n1 || true)"
  if [[ $status -ne 0 || -z "$summary" || "$summary" != *" 0 failed"* || ( "$summary" == *"warnings"* && "$summary" != *" 0 warnings" ) ]]; then
    verdict="FAIL"
    failed=$((failed + 1))
  else
    verdict="PASS"
  fi
  printf '%-4s %-45s %s\n' "$verdict" "$scenario${flags:+ $flags}" "${summary:-"(no summary; exit $status)"}"
  if [[ "$verdict" == "FAIL" || "${VERBOSE:-0}" == "1" ]]; then sed 's/^/    /' "$out"; fi
done
echo "conformance: $(( ${#runs[@]} - failed ))/${#runs[@]} client scenario runs without failures"
[[ $failed -eq 0 ]]
