#!/usr/bin/env bash
# Runs the test command on another Node.js major (default 24), with the binary of the npm
# registry's `node` package. The native modules need nothing more: sodium-native and
# better-sqlite3 13 are Node-API (stubs/better-sqlite3 picks 13 from Node.js 22 on).
# Usage: scripts/test-on-node.sh [MAJOR] [-- npm test arguments]
set -euo pipefail
major=${1:-24}
shift || true
[[ "${1:-}" == "--" ]] && shift
bin=$(dirname "$(npx -y -p "node@$major" which node)")
[[ "$("$bin/node" -p 'process.versions.node.split(".")[0]')" == "$major" ]] || {
  echo "test-on-node: no Node.js $major from the registry" >&2
  exit 1
}
echo "test-on-node: npm test $* on Node.js $("$bin/node" --version)" >&2
PATH="$bin:$PATH" npm test -- "$@"
