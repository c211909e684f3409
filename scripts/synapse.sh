#!/usr/bin/env bash
# Provision, start and stop a real Synapse homeserver for development and tests.
#
# Synapse is not packaged for Debian bookworm, so this script builds (once) a
# minimal Debian sid chroot with debootstrap and installs sid's matrix-synapse
# package into it. Each "instance" is a directory inside the chroot
# (/srv/instances/<name>) holding the config, sqlite database, media store,
# signing key, log and pid file. Processes in the chroot share the host's
# network namespace, so Synapse on 127.0.0.1:PORT is reachable from the host and
# Synapse reaches the appservice on 127.0.0.1 as well.
#
# Usage: scripts/synapse.sh COMMAND [ARGS]
#
# Commands:
#   provision            build the chroot if it is missing or half-built (idempotent)
#   start                provision if needed, create/refresh the instance config,
#                        copy the appservice registration, start Synapse detached
#                        and wait until it answers; restarts a running instance
#                        only when its registration or generated config changed
#   stop                 stop the instance (no error if it is not running); unmount the
#                        chroot's /proc when no other instance runs in it
#   restart              stop, then start (on the port the instance last used,
#                        unless SYNAPSE_PORT is set)
#   status               exit 0 if the instance is running and answering
#   registration-secret  print the instance's registration_shared_secret
#   url                  print the instance's base URL
#   logs [TAIL ARGS]     tail the instance log (default: last 100 lines; e.g. "logs -f")
#   help                 show this help
#
# Environment (all optional):
#   SYNAPSE_CACHE_DIR     chroot location, built once and reused
#                         (default: ${XDG_CACHE_HOME:-$HOME/.cache}/matrix-comment-service/synapse-chroot)
#   SYNAPSE_INSTANCE      instance name (default: dev); data in $SYNAPSE_CACHE_DIR/srv/instances/<name>
#   SYNAPSE_PORT          HTTP listener port on 127.0.0.1 (default: 8008 for start; status/stop/url
#                         use the port the instance was last started with)
#   SYNAPSE_SERVER_NAME   server name (default: localhost, or the instance's existing one);
#                         it cannot change for an existing instance without SYNAPSE_FRESH=1
#   SYNAPSE_REGISTRATION  host path of the appservice registration YAML, or several separated
#                         by ':' (one appservice each); copied into the instance on every start
#                         (without it, the previously copied ones are kept)
#   SYNAPSE_FRESH=1       on start, wipe the instance (database, media, keys, config) first
#   SYNAPSE_START_TIMEOUT seconds to wait for Synapse to answer (default: 60)
#   DEBIAN_MIRROR         Debian mirror for debootstrap (default: the one apt uses)
set -euo pipefail

export DEBIAN_FRONTEND=noninteractive
umask 022

readonly MARKER_NAME=.synapse-chroot-ready
readonly MARKER_FORMAT=1
SELF=$(readlink -f "${BASH_SOURCE[0]}")
readonly SELF
readonly CHROOT_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

say() { printf 'synapse: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

usage() { sed -n '2,/^set -euo pipefail$/{/^#/{s/^# \{0,1\}//;p}}' "${BASH_SOURCE[0]}"; }

# ---------------------------------------------------------------- settings --

abs_path() { # make a path absolute without requiring it to exist
  case $1 in
    /*) printf '%s\n' "$1" ;;
    *) printf '%s/%s\n' "$PWD" "$1" ;;
  esac
}

CACHE_DIR=${SYNAPSE_CACHE_DIR:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/matrix-comment-service/synapse-chroot}
CACHE_DIR=$(abs_path "$CACHE_DIR")
CACHE_DIR=${CACHE_DIR%/}
[[ -n $CACHE_DIR && $CACHE_DIR != / ]] || die "SYNAPSE_CACHE_DIR must not be /"
ROOT=$CACHE_DIR
MARKER=$ROOT/$MARKER_NAME

INSTANCE=${SYNAPSE_INSTANCE:-dev}
[[ $INSTANCE =~ ^[A-Za-z0-9][A-Za-z0-9._-]*$ ]] || die "invalid SYNAPSE_INSTANCE '$INSTANCE' (use letters, digits, . _ -)"
INST_REL=/srv/instances/$INSTANCE          # path inside the chroot
INST=$ROOT$INST_REL                         # path on the host
PID_FILE=$INST/homeserver.pid
LOG_FILE=$INST/homeserver.log
STATE_FILE=$INST/instance.env
BASE_CONFIG=$INST/homeserver.yaml
MANAGED_CONFIG=$INST/conf.d/50-managed.yaml
REG_COPY=$INST/appservice-registration.yaml   # the first registration; more are -2.yaml, -3.yaml, …
START_TIMEOUT=${SYNAPSE_START_TIMEOUT:-60}
[[ $START_TIMEOUT =~ ^[0-9]+$ ]] || die "invalid SYNAPSE_START_TIMEOUT '$START_TIMEOUT'"

if [[ -n ${SYNAPSE_PORT:-} ]]; then
  if ! [[ $SYNAPSE_PORT =~ ^[0-9]+$ ]] || ((SYNAPSE_PORT < 1 || SYNAPSE_PORT > 65535)); then
    die "invalid SYNAPSE_PORT '$SYNAPSE_PORT'"
  fi
fi
if [[ -n ${SYNAPSE_SERVER_NAME:-} ]]; then
  server_name_re='^[][A-Za-z0-9.:_-]+$'
  [[ $SYNAPSE_SERVER_NAME =~ $server_name_re ]] || die "invalid SYNAPSE_SERVER_NAME '$SYNAPSE_SERVER_NAME'"
fi

require_root() {
  [[ $(id -u) -eq 0 ]] || die "must run as root (debootstrap, chroot and mount need it)"
}

# Run a command inside the chroot with a clean environment (no host proxies,
# PYTHONPATH, SYNAPSE_* variables, ...).
in_chroot() {
  env -i PATH="$CHROOT_PATH" HOME=/root LANG=C.UTF-8 LC_ALL=C.UTF-8 TZ=UTC \
    chroot "$ROOT" "$@"
}

# Take an exclusive lock on FILE, storing the fd in the variable named $2.
take_lock() {
  local file=$1 var=$2 fd
  mkdir -p "$(dirname "$file")"
  exec {fd}>>"$file"
  flock "$fd"
  printf -v "$var" '%s' "$fd"
}

# The instance lock, taken once per run: restart (stop, then start) takes it in both steps,
# and flock on a second descriptor of the same file would wait for the first forever.
INST_LOCK_FD=
lock_instance() {
  [[ -n $INST_LOCK_FD ]] || take_lock "$ROOT/srv/instances/.$INSTANCE.lock" INST_LOCK_FD
}

release_lock() {
  local fd=$1
  [[ -n $fd ]] || return 0
  flock -u "$fd" || true
  exec {fd}>&-
}

# --------------------------------------------------------------- provision --

debian_mirror() {
  if [[ -n ${DEBIAN_MIRROR:-} ]]; then
    printf '%s\n' "$DEBIAN_MIRROR"
    return
  fi
  local uri=""
  if [[ -r /etc/apt/sources.list.d/debian.sources ]]; then
    # first URIs: entry that is not the security archive
    uri=$(awk 'tolower($1) == "uris:" { for (i = 2; i <= NF; i++) if ($i !~ /security/) { print $i; exit } }' \
      /etc/apt/sources.list.d/debian.sources || true)
  fi
  if [[ -z $uri && -r /etc/apt/sources.list ]]; then
    uri=$(awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z+]+:\/\//) { if ($i !~ /security/) print $i; break } }' \
      /etc/apt/sources.list | head -n 1 || true)
  fi
  printf '%s\n' "${uri:-http://deb.debian.org/debian}"
}

ensure_debootstrap() {
  command -v debootstrap >/dev/null 2>&1 && return 0
  say "installing debootstrap on the host"
  if ! apt-get install -y --no-install-recommends debootstrap; then
    apt-get update
    apt-get install -y --no-install-recommends debootstrap
  fi
}

# Unmount everything mounted below DIR (deepest first) and delete it without
# crossing file systems. Refuses to delete if something stays mounted.
remove_tree() {
  local dir=$1 mnt
  [[ -e $dir ]] || return 0
  [[ $dir == /* && $dir != / ]] || die "refusing to remove '$dir'"
  local -a mounts=()
  while IFS= read -r mnt; do
    [[ $mnt == "$dir" || $mnt == "$dir"/* ]] && mounts+=("$mnt")
  done < <(awk '{ print $5 }' /proc/self/mountinfo | sed 's/\\040/ /g' | sort -r)
  for mnt in "${mounts[@]}"; do
    umount "$mnt" 2>/dev/null || umount -l "$mnt" || true
  done
  while IFS= read -r mnt; do
    if [[ $mnt == "$dir" || $mnt == "$dir"/* ]]; then
      die "$mnt is still mounted; not removing $dir"
    fi
  done < <(awk '{ print $5 }' /proc/self/mountinfo | sed 's/\\040/ /g')
  rm -rf --one-file-system -- "$dir"
}

chroot_ready() {
  [[ -f $MARKER ]] && grep -qx "format=$MARKER_FORMAT" "$MARKER" 2>/dev/null
}

# Internal: the download/install part of build_chroot (output goes to the log).
build_steps() {
  local build=$1 mirror=$2
  [[ -n $build && $build != / ]] || die "bad build dir"
  ensure_debootstrap
  debootstrap --variant=minbase sid "$build" "$mirror"

  # never let maintainer scripts start services inside the chroot
  printf '#!/bin/sh\nexit 101\n' >"$build/usr/sbin/policy-rc.d"
  chmod 755 "$build/usr/sbin/policy-rc.d"
  cp -L /etc/resolv.conf "$build/etc/resolv.conf" 2>/dev/null || true
  # keep docs, man pages and locales out of the chroot
  cat >"$build/etc/dpkg/dpkg.cfg.d/01-nodoc" <<'EOF'
path-exclude=/usr/share/doc/*
path-include=/usr/share/doc/*/copyright
path-exclude=/usr/share/man/*
path-exclude=/usr/share/info/*
path-exclude=/usr/share/locale/*
EOF
  printf 'APT::Install-Recommends "false";\nAPT::Install-Suggests "false";\n' \
    >"$build/etc/apt/apt.conf.d/01-norecommends"
  # the mirror may serve a frozen snapshot whose Release file has "expired"
  printf 'Acquire::Check-Valid-Until "false";\n' >"$build/etc/apt/apt.conf.d/01-no-valid-until"

  mount -t proc proc "$build/proc"
  local q
  printf -v q '%q' "$build/proc"
  # shellcheck disable=SC2064 # expand now: $build is local
  trap "umount $q 2>/dev/null || umount -l $q 2>/dev/null || true" EXIT
  ROOT=$build in_chroot sh -ec '
    export DEBIAN_FRONTEND=noninteractive
    apt-get update
    apt-get install -y --no-install-recommends matrix-synapse curl ca-certificates
    apt-get clean
    rm -rf /var/lib/apt/lists/*
  '
}

build_chroot() {
  local build=$ROOT.partial mirror build_log
  mirror=$(debian_mirror)
  build_log=$ROOT.provision.log
  mkdir -p "$(dirname "$ROOT")"
  : >"$build_log"
  say "building Debian sid chroot with matrix-synapse in $ROOT (mirror $mirror; log $build_log)"

  if [[ -e $ROOT ]]; then
    say "removing incomplete chroot $ROOT"
    remove_tree "$ROOT"
  fi
  remove_tree "$build"

  # The steps run in a separate bash process so that "set -e" applies to them
  # (it is ignored inside a subshell whose status is tested).
  if ! "$BASH" "$SELF" __build-steps "$build" "$mirror" >>"$build_log" 2>&1; then
    say "provisioning failed; last lines of $build_log:"
    tail -n 40 "$build_log" >&2 || true
    exit 1
  fi

  # /etc/hosts so that an appservice URL using "localhost" resolves
  if [[ ! -s $build/etc/hosts ]]; then
    printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n' >"$build/etc/hosts"
  fi
  mkdir -p "$build/srv/instances"

  local version
  version=$(ROOT=$build in_chroot python3 -c 'import synapse; print(synapse.__version__)') ||
    die "matrix-synapse was installed but cannot be imported"
  printf 'format=%s\nsynapse=%s\nmirror=%s\nbuilt=%s\n' \
    "$MARKER_FORMAT" "$version" "$mirror" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >"$build/$MARKER_NAME"
  mv -T "$build" "$ROOT"
  say "chroot ready (Synapse $version)"
}

# Build the chroot if needed and mount /proc in it. Serialised across
# concurrent invocations by a lock next to the cache dir.
provision() {
  require_root
  local lock_fd
  take_lock "$ROOT.lock" lock_fd
  if ! chroot_ready; then
    build_chroot
  fi
  if ! mountpoint -q "$ROOT/proc"; then
    mount -t proc proc "$ROOT/proc"
  fi
  release_lock "$lock_fd"
}

# ---------------------------------------------------------------- instance --

state_get() { # KEY -> value from the instance state file
  [[ -f $STATE_FILE ]] || return 0
  sed -n "s/^$1=//p" "$STATE_FILE" | head -n 1
}

base_server_name() {
  [[ -f $BASE_CONFIG ]] || return 0
  sed -n 's/^server_name:[[:space:]]*"\{0,1\}\([^"]*\)"\{0,1\}[[:space:]]*$/\1/p' "$BASE_CONFIG" | head -n 1
}

# pid of this instance's Synapse if it is running, else nothing (exit 1)
running_pid() {
  local pid cmd
  [[ -f $PID_FILE ]] || return 1
  pid=$(<"$PID_FILE")
  [[ $pid =~ ^[0-9]+$ ]] || return 1
  [[ -r /proc/$pid/cmdline ]] || return 1
  cmd=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) || return 1
  [[ $cmd == *synapse.app.homeserver*"$INST_REL/homeserver.yaml"* ]] || return 1
  printf '%s\n' "$pid"
}

# does something answer the client versions endpoint on PORT?
# (uses the host's curl, or the chroot's if the host has none)
answers() {
  local port=$1
  local -a args=(-fsS --noproxy '*' --max-time 2 -o /dev/null "http://127.0.0.1:$port/_matrix/client/versions")
  if command -v curl >/dev/null 2>&1; then
    curl "${args[@]}" 2>/dev/null
  else
    in_chroot curl "${args[@]}" 2>/dev/null
  fi
}

current_port() { # port the instance was last started with
  local p
  p=$(state_get port)
  printf '%s\n' "${p:-${SYNAPSE_PORT:-8008}}"
}

# true while PID exists and is not a zombie
pid_alive() {
  local state
  state=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null) || return 1
  [[ -n $state && $state != Z ]]
}

stop_instance() {
  local pid i
  if ! pid=$(running_pid); then
    rm -f "$PID_FILE"
    return 0
  fi
  say "stopping instance '$INSTANCE' (pid $pid)"
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < 300; i++)); do
    pid_alive "$pid" || break
    sleep 0.1
  done
  if pid_alive "$pid"; then
    say "instance '$INSTANCE' did not stop in 30 s; killing it"
    kill -KILL "$pid" 2>/dev/null || true
    for ((i = 0; i < 50; i++)); do
      pid_alive "$pid" || break
      sleep 0.1
    done
  fi
  rm -f "$PID_FILE"
}

generate_base_config() {
  local server_name=$1
  say "generating config for instance '$INSTANCE' (server name $server_name)"
  mkdir -p "$INST"
  in_chroot python3 -m synapse.app.homeserver \
    --generate-config \
    --server-name "$server_name" \
    --report-stats=no \
    --config-path "$INST_REL/homeserver.yaml" \
    --data-directory "$INST_REL" >/dev/null
  # the generated log config is replaced by ours (see managed config)
  rm -f "$INST/$server_name.log.config"
  grep -q '^registration_shared_secret:' "$BASE_CONFIG" ||
    die "generated config has no registration_shared_secret"
  grep -q '^signing_key_path:' "$BASE_CONFIG" || die "generated config has no signing_key_path"
}

# The part of the config this script owns; rewritten on every start.
render_managed_config() {
  local port=$1 server_name=$2 regs=$3
  local rl='{per_second: 1000, burst_count: 10000}'
  cat <<EOF
# Written by scripts/synapse.sh on every start; edits are overwritten.
# Merged over homeserver.yaml (top-level keys replace those there).
public_baseurl: "http://127.0.0.1:$port/"
listeners:
  - port: $port
    bind_addresses: ["127.0.0.1"]
    type: http
    tls: false
    x_forwarded: false
    resources:
      - names: [client, media, openid]
        compress: false

database:
  name: sqlite3
  args:
    database: "$INST_REL/homeserver.db"
media_store_path: "$INST_REL/media_store"
signing_key_path: "$INST_REL/$server_name.signing.key"
log_config: "$INST_REL/log.config"
pid_file: "$INST_REL/homeserver.pid"

report_stats: false
enable_metrics: false
enable_registration: false
enable_authenticated_media: true
default_room_version: "12"
url_preview_enabled: false
presence:
  enabled: true

# no federation: no key servers, no outgoing federation, no federation listener
trusted_key_servers: []
suppress_key_server_warning: true
federation_domain_whitelist: []
allow_public_rooms_over_federation: false
serve_server_wellknown: false

app_service_config_files: [$(
  for ((i = 0; i < regs; i++)); do
    ((i)) && printf ', '
    copy=$(reg_copy "$i")
    printf '"%s"' "$INST_REL${copy#"$INST"}"
  done
)]

# generous rate limits: the tests drive ordinary users hard
rc_message: $rl
rc_registration: $rl
rc_registration_token_validity: $rl
rc_login:
  address: $rl
  account: $rl
  failed_attempts: $rl
rc_admin_redaction: $rl
rc_joins:
  local: $rl
  remote: $rl
rc_joins_per_room: $rl
rc_3pid_validation: $rl
rc_invites:
  per_room: $rl
  per_user: $rl
  per_issuer: $rl
rc_third_party_invite: $rl
rc_media_create: $rl
rc_key_requests: $rl
rc_presence:
  per_user: $rl
rc_delayed_event_mgmt: $rl
rc_reports: $rl
rc_room_creation: $rl
rc_user_directory: $rl
EOF
}

render_log_config() {
  cat <<'EOF'
# Written by scripts/synapse.sh. Everything goes to stderr, which the script
# redirects (appending) to homeserver.log in the instance directory.
version: 1
formatters:
  precise:
    format: '%(asctime)s - %(name)s - %(lineno)d - %(levelname)s - %(request)s - %(message)s'
handlers:
  console:
    class: logging.StreamHandler
    formatter: precise
    stream: ext://sys.stderr
loggers:
  synapse.storage.SQL:
    level: INFO
  twisted:
    level: WARNING
root:
  level: INFO
  handlers: [console]
disable_existing_loggers: false
EOF
}

# write CONTENT to FILE only if it differs; returns 0 if the file changed
write_if_changed() {
  local file=$1 content=$2
  if [[ -f $file ]] && [[ $(<"$file") == "$content" ]]; then
    return 1
  fi
  mkdir -p "$(dirname "$file")"
  printf '%s\n' "$content" >"$file.tmp"
  mv -f "$file.tmp" "$file"
  return 0
}

launch() {
  local port=$1
  [[ -f $LOG_FILE ]] && mv -f "$LOG_FILE" "$LOG_FILE.1"
  : >"$LOG_FILE"
  rm -f "$PID_FILE"
  local pid
  (
    # close every inherited fd above 2 (lock fds, caller pipes) so the
    # detached server holds nothing of the caller's
    for fd in "/proc/$BASHPID/fd/"*; do
      fd=${fd##*/}
      if ((fd > 2)); then
        eval "exec $fd>&-" 2>/dev/null || true
      fi
    done
    cd /
    exec setsid nohup env -i PATH="$CHROOT_PATH" HOME=/root LANG=C.UTF-8 LC_ALL=C.UTF-8 TZ=UTC \
      chroot "$ROOT" python3 -m synapse.app.homeserver \
      --config-path "$INST_REL/homeserver.yaml" \
      --config-path "$INST_REL/conf.d/" \
      </dev/null >>"$LOG_FILE" 2>&1
  ) &
  pid=$!
  printf '%s\n' "$pid" >"$PID_FILE"

  local deadline=$((SECONDS + START_TIMEOUT))
  while :; do
    # (not running_pid: until the launcher has exec'd python the command line
    # does not name synapse yet)
    if ! pid_alive "$pid"; then
      sleep 0.2 # let the log flush
      say "Synapse instance '$INSTANCE' exited during startup; last lines of $LOG_FILE:"
      tail -n 60 "$LOG_FILE" >&2 || true
      rm -f "$PID_FILE"
      exit 1
    fi
    if answers "$port"; then
      running_pid >/dev/null || die "pid $pid is not the expected Synapse process"
      return 0
    fi
    if ((SECONDS >= deadline)); then
      say "Synapse instance '$INSTANCE' did not answer on port $port within ${START_TIMEOUT}s; last lines of $LOG_FILE:"
      tail -n 60 "$LOG_FILE" >&2 || true
      stop_instance
      exit 1
    fi
    sleep 0.25
  done
}

# The instance's copy of registration number $1 (from 0).
reg_copy() {
  if (($1 == 0)); then printf '%s' "$REG_COPY"; else printf '%s' "${REG_COPY%.yaml}-$(($1 + 1)).yaml"; fi
}

cmd_start() {
  provision

  lock_instance # held until exit

  local port=${SYNAPSE_PORT:-8008}
  local server_name=${SYNAPSE_SERVER_NAME:-}
  # One appservice registration, or several separated by ':' (one per appservice).
  local -a reg_srcs=()
  [[ -n ${SYNAPSE_REGISTRATION:-} ]] && IFS=':' read -r -a reg_srcs <<<"$SYNAPSE_REGISTRATION"
  local i
  for i in "${!reg_srcs[@]}"; do
    reg_srcs[i]=$(abs_path "${reg_srcs[i]}")
    [[ -f ${reg_srcs[i]} && -r ${reg_srcs[i]} ]] || die "SYNAPSE_REGISTRATION file not readable: ${reg_srcs[i]}"
  done

  if [[ ${SYNAPSE_FRESH:-0} == 1 ]]; then
    stop_instance
    if [[ -e $INST ]]; then
      say "wiping instance '$INSTANCE' (SYNAPSE_FRESH=1)"
      remove_tree "$INST"
    fi
  fi

  local existing_name
  existing_name=$(base_server_name)
  if [[ -n $existing_name ]]; then
    if [[ -n $server_name && $server_name != "$existing_name" ]]; then
      die "instance '$INSTANCE' was created with server name '$existing_name', not '$server_name'; start it with SYNAPSE_FRESH=1 to recreate it"
    fi
    server_name=$existing_name
  else
    server_name=${server_name:-localhost}
  fi

  # work out the desired state before touching a running instance
  local regs=0 reg_changed=0
  if ((${#reg_srcs[@]} > 0)); then
    regs=${#reg_srcs[@]}
    for i in "${!reg_srcs[@]}"; do
      cmp -s "${reg_srcs[i]}" "$(reg_copy "$i")" || reg_changed=1
    done
    [[ -f $(reg_copy "$regs") ]] && reg_changed=1
  else
    while [[ -f $(reg_copy "$regs") ]]; do regs=$((regs + 1)); done
  fi
  local -a reg_copy_names=()
  for ((i = 0; i < regs; i++)); do reg_copy_names+=("$(reg_copy "$i")"); done
  local managed log_cfg
  managed=$(render_managed_config "$port" "$server_name" "$regs")
  log_cfg=$(render_log_config)

  local pid
  if pid=$(running_pid); then
    local old_port
    old_port=$(state_get port)
    if ((reg_changed == 0)) && [[ -f $MANAGED_CONFIG && $(<"$MANAGED_CONFIG") == "$managed" ]] &&
      [[ $(<"$INST/log.config") == "$log_cfg" ]] && [[ $old_port == "$port" ]]; then
      local deadline=$((SECONDS + START_TIMEOUT))
      until answers "$port"; do
        if ((SECONDS >= deadline)) || ! running_pid >/dev/null; then
          say "instance '$INSTANCE' (pid $pid) is running but not answering; restarting it"
          stop_instance
          break
        fi
        sleep 0.25
      done
      if running_pid >/dev/null; then
        printf 'synapse: ready at http://127.0.0.1:%s (server name %s)\n' "$port" "$server_name"
        return 0
      fi
    else
      say "configuration or registration changed; restarting instance '$INSTANCE'"
      stop_instance
    fi
  fi

  if answers "$port"; then
    die "something else already answers on 127.0.0.1:$port; choose another SYNAPSE_PORT"
  fi

  [[ -f $BASE_CONFIG ]] || generate_base_config "$server_name"
  mkdir -p "$INST/media_store" "$INST/conf.d"
  if ((${#reg_srcs[@]} > 0)); then
    for i in "${!reg_srcs[@]}"; do
      cp -f "${reg_srcs[i]}" "${reg_copy_names[i]}.tmp"
      mv -f "${reg_copy_names[i]}.tmp" "${reg_copy_names[i]}"
    done
    i=$regs
    while [[ -f $(reg_copy "$i") ]]; do
      rm -f "$(reg_copy "$i")"
      i=$((i + 1))
    done
  fi
  write_if_changed "$MANAGED_CONFIG" "$managed" || true
  write_if_changed "$INST/log.config" "$log_cfg" || true
  printf 'port=%s\nserver_name=%s\n' "$port" "$server_name" >"$STATE_FILE"

  local t0=${EPOCHREALTIME/[.,]/}
  launch "$port"
  local t1=${EPOCHREALTIME/[.,]/}
  say "instance '$INSTANCE' started in $(((t1 - t0) / 1000)) ms (pid $(<"$PID_FILE"), log $LOG_FILE)"
  printf 'synapse: ready at http://127.0.0.1:%s (server name %s)\n' "$port" "$server_name"
}

# Unmount the chroot's /proc once no process runs inside the chroot any more (other
# instances may still), so the cache directory can be removed; start mounts it again.
release_proc() {
  local lock_fd root real
  real=$(readlink -f "$ROOT")
  take_lock "$ROOT.lock" lock_fd
  if mountpoint -q "$ROOT/proc"; then
    for root in /proc/[0-9]*/root; do
      if [[ $(readlink "$root" 2>/dev/null) == "$real" ]]; then
        release_lock "$lock_fd"
        return 0
      fi
    done
    umount "$ROOT/proc" 2>/dev/null || umount -l "$ROOT/proc" || true
  fi
  release_lock "$lock_fd"
}

cmd_stop() {
  require_root
  if [[ ! -d $INST ]]; then
    say "instance '$INSTANCE' does not exist"
    return 0
  fi
  lock_instance # held until exit
  if running_pid >/dev/null; then
    stop_instance
    say "instance '$INSTANCE' stopped"
  else
    rm -f "$PID_FILE"
    say "instance '$INSTANCE' is not running"
  fi
  release_proc
}

cmd_status() {
  local pid port
  port=$(current_port)
  if ! pid=$(running_pid); then
    say "instance '$INSTANCE' is not running"
    return 1
  fi
  if answers "$port"; then
    say "instance '$INSTANCE' is running (pid $pid) at http://127.0.0.1:$port (server name $(base_server_name))"
    return 0
  fi
  say "instance '$INSTANCE' has a process (pid $pid) but does not answer on port $port"
  return 1
}

cmd_registration_secret() {
  [[ -f $BASE_CONFIG ]] || die "instance '$INSTANCE' has no config yet; run '$0 start' first"
  local secret
  secret=$(sed -n 's/^registration_shared_secret:[[:space:]]*//p' "$BASE_CONFIG" | head -n 1)
  secret=${secret#\"}
  secret=${secret%\"}
  secret=${secret#\'}
  secret=${secret%\'}
  [[ -n $secret ]] || die "no registration_shared_secret in $BASE_CONFIG"
  printf '%s\n' "$secret"
}

cmd_url() {
  printf 'http://127.0.0.1:%s\n' "$(current_port)"
}

cmd_logs() {
  [[ -f $LOG_FILE ]] || die "no log for instance '$INSTANCE' ($LOG_FILE)"
  if (($# == 0)); then
    set -- -n 100
  fi
  exec tail "$@" "$LOG_FILE"
}

main() {
  local cmd=${1:-help}
  (($# > 0)) && shift
  case $cmd in
    provision)
      provision
      say "chroot ready in $ROOT ($(sed -n 's/^synapse=/Synapse /p' "$MARKER"))"
      ;;
    start) cmd_start ;;
    stop) cmd_stop ;;
    restart)
      # same port as before unless SYNAPSE_PORT says otherwise (start alone defaults to 8008)
      SYNAPSE_PORT=${SYNAPSE_PORT:-$(current_port)}
      cmd_stop
      cmd_start
      ;;
    status) cmd_status ;;
    registration-secret) cmd_registration_secret ;;
    url) cmd_url ;;
    logs) cmd_logs "$@" ;;
    __build-steps) build_steps "$@" ;;
    help | -h | --help) usage ;;
    *)
      usage >&2
      exit 2
      ;;
  esac
}

main "$@"
