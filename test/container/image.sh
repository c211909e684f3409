#!/usr/bin/env bash
# npm run test:container: builds the image from the top-level Dockerfile and checks it runs as
# non-root, serves its liveness probe, writes its data and registration under the /data volume,
# reports why it is not ready (no homeserver here), keeps its data across a restart and stops on
# SIGTERM with exit status 0. NODE_IMAGE names the base when the official one cannot be pulled.
# Skips (exit 0, with a message) only where no container engine answers.
set -euo pipefail
cd "$(dirname "$0")/../.."
if ! docker info >/dev/null 2>&1; then
  echo "test:container: SKIPPED, no container engine answers (docker info failed)" >&2
  exit 0
fi
tag=matrix-comment-service:test-$$ name=comment-service-test-$$ volume=comment-service-test-$$
cleanup() { docker rm -f "$name" >/dev/null 2>&1 || true; docker volume rm "$volume" >/dev/null 2>&1 || true; docker rmi "$tag" >/dev/null 2>&1 || true; }
trap cleanup EXIT
fail() { echo "test:container: FAIL: $*" >&2; docker logs "$name" 2>&1 | tail -20 >&2 || true; exit 1; }
ok() { echo "test:container: ok: $*"; }
started=$SECONDS
args=()
[[ -n ${NODE_IMAGE:-} ]] && args+=(--build-arg "NODE_IMAGE=$NODE_IMAGE")
docker build -q "${args[@]}" -t "$tag" . >/dev/null || fail "docker build"
ok "built in $((SECONDS - started)) s, $(($(docker image inspect "$tag" --format '{{.Size}}') / 1000000)) MB"

run() {
  docker run -d --name "$name" -v "$volume:/data" -e COMMENT_SERVICE_MATRIX_AS_TOKEN=as-token \
    -e COMMENT_SERVICE_MATRIX_HS_TOKEN=hs-token -e COMMENT_SERVICE_MATRIX_HOMESERVER_URL=http://127.0.0.1:9 "$tag" >/dev/null
}
probe() { docker exec "$name" node -e "fetch('http://127.0.0.1:8080$1').then(async (r) => console.log(r.status, await r.text()), () => console.log('refused'))"; }
wait_live() {
  for _ in $(seq 60); do [[ $(probe /health/live) == 200* ]] && return 0; sleep 1; done
  fail "no 200 from /health/live within 60 s"
}

run
wait_live
ok "live"
[[ $(docker exec "$name" id -u) == 1000 ]] || fail "runs as uid $(docker exec "$name" id -u), not 1000"
ok "runs as uid 1000"
ready=$(probe /health/ready)
[[ $ready == 503*'"database":"ok"'*'"homeserver":"unavailable"'* ]] || fail "readiness without a homeserver: $ready"
ok "not ready without a homeserver, naming it: $ready"
docker exec "$name" test -s /data/comments.db -a -s /data/appservice-registration.yaml || fail "nothing written under /data"
ok "database and registration under /data"
docker stop -t 30 "$name" >/dev/null
[[ $(docker inspect "$name" --format '{{.State.ExitCode}}') == 0 ]] || fail "SIGTERM: exit status $(docker inspect "$name" --format '{{.State.ExitCode}}')"
ok "stopped by SIGTERM with status 0"
docker rm "$name" >/dev/null
run
wait_live
docker logs "$name" 2>&1 | grep -q '"event":"listening"' || fail "second start"
ok "a second container starts on the same volume"
echo "test:container: passed in $((SECONDS - started)) s"
