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
revisions=(2025-11-25 2026-07-28)
runs=(
  "tools_call --spec-version 2025-11-25"
  "tools_call --spec-version 2026-07-28"
  "initialize --spec-version 2025-11-25"
  "elicitation-sep1034-client-defaults --spec-version 2025-11-25"
  "sse-retry --spec-version 2025-11-25"
  "request-metadata --spec-version 2026-07-28"
  "sep-2322-client-request-state --spec-version 2026-07-28"
  "http-standard-headers --spec-version 2026-07-28"
  "http-custom-headers --spec-version 2026-07-28"
  "http-invalid-tool-headers --spec-version 2026-07-28"
  "json-schema-ref-no-deref --spec-version 2026-07-28"
)
# Authorization (conformance/client.sh: the person saves the server and uses it; $BROWSER approves). Required at both
# revisions, then at 2026-07-28 only, then the client-credentials extension (no revision: CI without a person).
auth_both=(
  auth/basic-cimd
  auth/metadata-default auth/metadata-var1 auth/metadata-var2 auth/metadata-var3
  auth/scope-from-www-authenticate auth/scope-from-scopes-supported auth/scope-omitted-when-undefined
  auth/scope-retry-limit
  auth/token-endpoint-auth-basic auth/token-endpoint-auth-post auth/token-endpoint-auth-none auth/pre-registration
  auth/scope-step-up
)
auth_2026=(
  auth/resource-mismatch auth/offline-access-scope auth/offline-access-not-supported
  auth/authorization-server-migration auth/metadata-issuer-mismatch
  auth/iss-supported auth/iss-not-advertised auth/iss-supported-missing auth/iss-wrong-issuer auth/iss-unexpected
  auth/iss-normalized
)
for scenario in "${auth_both[@]}"; do
  runs+=("$scenario --spec-version 2025-11-25" "$scenario --spec-version 2026-07-28")
done
for scenario in "${auth_2026[@]}"; do runs+=("$scenario --spec-version 2026-07-28"); done
# Step-up: at 2026-07-28 the command makes the tool call and signs in for the wider scope; at 2025-11-25 the V1
# session's keeper (a broker, where nobody can sign in) makes it, and the command behind it signs in for the wider
# scope and has the keeper call again, with the new token from the store (src/auth/session.ts: withScopeStepUp).
runs+=("auth/client-credentials-basic")

failed=0
declare -A passed=()
for run in "${runs[@]}"; do
  read -r scenario flags <<<"$run"
  name="${scenario//\//_}${flags:+ $flags}"
  out="$work/${name// /_}.log"
  status=0
  # The suite's 30 s limit on the client is a hang-only bound here: a loaded machine (a second copy of the tests beside
  # this one) took longer for a scenario that passed every check.
  # shellcheck disable=SC2086
  NO_COLOR=1 FORCE_COLOR=0 "$node22" "$suite" client --command "bash $here/client.sh" --scenario "$scenario" $flags --timeout 120000 --output-dir "$work/results" >"$out" 2>&1 || status=$?
  sed -i 's/\x1b\[[0-9;]*m//g' "$out"
  summary="$(grep -Eo 'Passed: [0-9]+/[0-9]+, [0-9]+ failed(, [0-9]+ warnings)?' "$out" | tail -n1 || true)"
  if [[ $status -ne 0 || -z "$summary" || "$summary" != *" 0 failed"* || ( "$summary" == *"warnings"* && "$summary" != *" 0 warnings" ) ]]; then
    verdict="FAIL"
    failed=$((failed + 1))
  else
    verdict="PASS"
    passed["$scenario ${flags#--spec-version }"]=1
  fi
  printf '%-4s %-45s %s\n' "$verdict" "$scenario${flags:+ $flags}" "${summary:-"(no summary; exit $status)"}"
  if [[ "$verdict" == "FAIL" || "${VERBOSE:-0}" == "1" ]]; then sed 's/^/    /' "$out"; fi
done
short=0
# Per revision: the client scenarios the suite itself lists as required, and how many of them passed at that revision.
for revision in "${revisions[@]}"; do
  required="$("$node22" "$suite" list --client --requirements "$revision" | sed -n '/^Client scenarios/,/^$/s/^  - //p')"
  total=0 ok=0 missing=()
  for scenario in $required; do
    total=$((total + 1))
    if [[ -n "${passed["$scenario $revision"]:-}" ]]; then ok=$((ok + 1)); else missing+=("$scenario"); fi
  done
  echo "conformance $revision: $ok/$total required client scenarios pass${missing[*]:+ (not passing: ${missing[*]})}"
  [[ $ok -eq $total ]] || short=$((short + 1))
done
echo "conformance: $(( ${#runs[@]} - failed ))/${#runs[@]} client scenario runs without failures"
[[ $failed -eq 0 && $short -eq 0 ]]
