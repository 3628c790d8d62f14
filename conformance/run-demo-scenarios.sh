#!/usr/bin/env bash
# The tasks-* server scenarios against the demo server shipped in mcp-task (V2 mode): see run-server-scenarios.sh.
exec bash "$(dirname "${BASH_SOURCE[0]}")/run-server-scenarios.sh" --demo "$@"
