#!/usr/bin/env bash
# Installs the project N times (default 10) the way a newcomer would: a fresh clone of the
# current commit, an empty npm cache each time, `npm ci`. Stops at the first failure and
# prints its log. Usage: scripts/install-loop.sh [N]
set -euo pipefail
runs=${1:-10}
repo=$(git -C "$(dirname "$0")/.." rev-parse --show-toplevel)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git clone --quiet "$repo" "$work/clone"
for i in $(seq 1 "$runs"); do
  rm -rf "$work/clone/node_modules" "$work/cache"
  start=$(date +%s)
  if ! (cd "$work/clone" && npm ci --no-audit --no-fund --cache "$work/cache") >"$work/log" 2>&1; then
    echo "install-loop: run $i of $runs FAILED after $(($(date +%s) - start)) s:"
    tail -n 40 "$work/log"
    exit 1
  fi
  warnings=$(grep -c "install-scripts\|EBADENGINE" "$work/log" || true)
  echo "install-loop: run $i of $runs passed in $(($(date +%s) - start)) s ($warnings install-script/engine warning lines)"
done
echo "install-loop: $runs of $runs passed"
