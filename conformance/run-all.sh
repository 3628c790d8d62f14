#!/usr/bin/env bash
# The official conformance suite, both ways: its tasks-* server scenarios against our V2 test server and against
# the demo server (V2 mode), and its client scenarios against mcp-task. Part of `npm test`.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
status=0
bash "$here/run-server-scenarios.sh" || status=1
bash "$here/run-demo-scenarios.sh" || status=1
bash "$here/run-client-scenarios.sh" || status=1
exit $status
