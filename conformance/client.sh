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
# A field of the scenario's context (MCP_CONFORMANCE_CONTEXT: client credentials for the pre-registered scenarios).
context() { node -e 'process.stdout.write(String(JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT || "{}")[process.argv[1]] ?? ""))' "$1"; }
# The scenario's i-th tool call (context.toolCalls): its name, or its arguments as JSON. An argument given as null is
# left out, as the person would: mcp-task checks arguments against the inputSchema before it sends anything, and
# `"verbose": null` does not fit `type: boolean` (exit 2); a header for an argument not given is omitted all the same.
tool_call() { node -e 'const c = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT).toolCalls[process.argv[1]]; process.stdout.write(process.argv[2] === "name" ? c.name : JSON.stringify(Object.fromEntries(Object.entries(c.arguments).filter(([, v]) => v !== null))))' "$1" "$2"; }
# The person at the browser: fetches the authorization URL and follows its redirects back to mcp-task's listener.
browser="node $here/../test/servers/approve-browser.mjs"

case "${MCP_CONFORMANCE_SCENARIO:-}" in
  initialize | request-metadata | json-schema-ref-no-deref)
    mcp_task tools -s "$url" ;;
  tools_call)
    mcp_task call add_numbers a=2 b=3 -s "$url" ;;
  elicitation-sep1034-client-defaults)
    # The person accepts the form as offered: the fields the answer leaves out take the form's defaults.
    mcp_task call test_client_elicitation_defaults --input '{}' -s "$url" ;;
  sse-retry)
    # The server ends the call's event stream before its answer; mcp-task resumes it after the server's retry:.
    mcp_task call test_reconnection -s "$url" ;;
  http-custom-headers)
    # The scenario's tool calls (context.toolCalls), typed as --args.
    for i in 0 1; do
      mcp_task call "$(tool_call "$i" name)" --args "$(tool_call "$i" arguments)" -s "$url"
    done ;;
  http-invalid-tool-headers)
    # The person lists the tools (the invalid ones are left out) and calls the valid one; calling an invalid one is
    # refused before anything is sent (exit 2).
    mcp_task tools -s "$url"
    mcp_task call valid_tool region=us-west1 -s "$url"
    status=0
    mcp_task call invalid_empty_header value=x -s "$url" || status=$?
    [[ $status -eq 2 ]] ;;
  sep-2322-client-request-state)
    for tool in test_mrtr_echo_state test_mrtr_no_state test_mrtr_unrelated test_mrtr_no_result_type; do
      mcp_task call "$tool" --input '{"confirmed":true}' -s "$url"
    done ;;
  http-standard-headers)
    mcp_task call test_headers -s "$url" ;;
  auth/client-credentials-basic)
    # CI without a person: a pre-registered client with the client-credentials grant, its secret in the environment.
    unset BROWSER
    export CONFORMANCE_CLIENT_SECRET="$(context client_secret)"
    mcp_task server add target --url "$url" --client-id "$(context client_id)" \
      --client-secret '${env:CONFORMANCE_CLIENT_SECRET}' --grant client-credentials
    CI=true mcp_task tools -s target ;;
  auth/pre-registration)
    # A client registered by hand with the authorization server; the person approves in the browser ($BROWSER).
    export CONFORMANCE_CLIENT_SECRET="$(context client_secret)" BROWSER="$browser"
    mcp_task server add target --url "$url" --client-id "$(context client_id)" \
      --client-secret '${env:CONFORMANCE_CLIENT_SECRET}'
    CI=true mcp_task tools -s target ;;
  auth/basic-cimd)
    # mcp-task's client ID metadata document at an https URL (the scenario's; its authorization server does not fetch
    # it): the authorization server says it supports them, so that URL is the client id and nothing is registered.
    export BROWSER="$browser"
    mcp_task server add target --url "$url" --client-metadata-url https://conformance-test.local/client-metadata.json
    CI=true mcp_task tools -s target ;;
  auth/scope-step-up | auth/scope-retry-limit)
    # The tool call asks for more scope than the first sign-in got (403 insufficient_scope): the person signs in
    # again for the wider scope, once.
    export BROWSER="$browser"
    mcp_task server add target --url "$url"
    CI=true mcp_task call test-tool -s target ;;
  auth/*)
    # The person saves the server and uses it; the first 401 opens the browser ($BROWSER, standing in for the person
    # who approves: the suite's authorization server approves at once) and the command goes on signed in.
    export BROWSER="$browser"
    mcp_task server add target --url "$url"
    CI=true mcp_task tools -s target ;;
  *)
    echo "client.sh: no mapping for scenario '${MCP_CONFORMANCE_SCENARIO:-}'" >&2
    exit 2 ;;
esac
