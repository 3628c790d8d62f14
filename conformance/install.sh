#!/usr/bin/env bash
# Installs this folder's tools (the conformance suite and Node 22) from its lockfile, when missing.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [[ ! -x "$here/node_modules/node/bin/node" || ! -f "$here/node_modules/@modelcontextprotocol/conformance/dist/index.js" ]]; then
  (cd "$here" && npm ci --no-audit --no-fund >&2)
fi
