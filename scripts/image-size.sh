#!/usr/bin/env bash
# Builds the image (Dockerfile at the top level) and prints its uncompressed size beside the goal
# (500 MB on the official slim base). NODE_IMAGE, when set, is passed as the base image.
# Usage: scripts/image-size.sh [TAG]   (default tag: matrix-comment-service:size)
set -euo pipefail
cd "$(dirname "$0")/.."
tag=${1:-matrix-comment-service:size}
args=()
[[ -n ${NODE_IMAGE:-} ]] && args+=(--build-arg "NODE_IMAGE=$NODE_IMAGE")
docker build -q "${args[@]}" -t "$tag" . >/dev/null
bytes=$(docker image inspect "$tag" --format '{{.Size}}')
base=$(docker image inspect "${NODE_IMAGE:-node:24-bookworm-slim}" --format '{{.Size}}' 2>/dev/null || echo 0)
printf 'image %s: %d MB uncompressed (base %s: %d MB, the service %d MB); goal ≤ 500 MB on node:24-bookworm-slim\n' \
  "$tag" $((bytes / 1000000)) "${NODE_IMAGE:-node:24-bookworm-slim}" $((base / 1000000)) $(((bytes - base) / 1000000))
