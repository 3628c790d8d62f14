#!/usr/bin/env bash
# The client command the conformance suite runs for its client scenarios: it maps the scenario the suite names in
# MCP_CONFORMANCE_SCENARIO to the mcp-task commands a user would type. The suite appends the server URL as the
# last argument. Everything runs on the system Node (20), never on the suite's Node 22.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
url="${!#}"
home="$(mktemp -d "${TMPDIR:-/tmp}/mcp-task-conformance-client.XXXXXX")"
trap 'rm -rf "$home"' EXIT
mcp_task() { MCP_TASK_HOME="$home" node "$here/../bin/mcp-task.js" "$@"; }

case "${MCP_CONFORMANCE_SCENARIO:-}" in
  tools_call)
    mcp_task call add_numbers a=2 b=3 -s "$url" ;;
  request-metadata)
    mcp_task tools -s "$url" ;;
  sep-2322-client-request-state)
    for tool in test_mrtr_echo_state test_mrtr_no_state test_mrtr_unrelated test_mrtr_no_result_type; do
      mcp_task call "$tool" --input '{"confirmed":true}' -s "$url"
    done ;;
  http-standard-headers)
    mcp_task call test_headers -s "$url" ;;
  *)
    echo "client.sh: no mapping for scenario '${MCP_CONFORMANCE_SCENARIO:-}'" >&2
    exit 2 ;;
esac
