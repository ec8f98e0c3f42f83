#!/usr/bin/env bash
# Fuzzes the control API from its OpenAPI document (docs/openapi.yaml) with schemathesis,
# against a real daemon: `appwarden serve` as root on its own cgroup root, state dir and
# socket, running a small ballast policy, reached through a loopback TCP bridge (socat) to
# its Unix socket. Fails on any failed check (5xx answers, responses that do not match the
# document, ...) and when the daemon is no longer running at the end.
#
#   bash scripts/fuzz-api.sh            # 10 minutes (FUZZ_API_SECONDS to change)
#   bash scripts/fuzz-api.sh --smoke    # a short run with a fixed seed (CI)
#
# Run it as root, after a debug build (`swift build`). schemathesis is installed into a venv
# under .build-fuzz; socat comes from apt. The daemon, its apps and its groups are removed
# on exit, whatever happens. /v1/events/stream is left out: it never ends by design.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh

smoke=false
case "${1:-}" in
  --smoke) smoke=true ;;
  "") ;;
  *) echo "fuzz-api.sh: unknown argument \"$1\" (expected --smoke or nothing)." >&2; exit 2 ;;
esac
[ "$(id -u)" -eq 0 ] || { echo "fuzz-api.sh runs the daemon on real cgroups: run it as root." >&2; exit 1; }

if ! command -v socat >/dev/null 2>&1; then
  echo "== installing socat"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq socat >/dev/null
fi
venv="$PWD/.build-fuzz/venv"
schemathesis_version=4.32.5
if ! "$venv/bin/schemathesis" --version 2>/dev/null | grep -q "$schemathesis_version"; then
  echo "== installing schemathesis $schemathesis_version into $venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q "schemathesis==$schemathesis_version"
fi

bin="$(swift build --show-bin-path)"
[ -x "$bin/appwarden" ] && [ -x "$bin/appwarden-relay" ] && [ -x "$bin/ballast" ] \
  || { echo "fuzz-api.sh: build first (swift build)." >&2; exit 1; }

work=$(mktemp -d /tmp/appwarden-fuzz-api.XXXXXX)
root="appwarden-fuzz-$$"
socket="$work/appwarden.sock"
port=$((20000 + $$ % 20000))
daemon=""
bridge=""

# Stops the bridge and the daemon, then kills and removes whatever is left in its groups.
cleanup() {
  set +e
  [ -n "$bridge" ] && kill "$bridge" 2>/dev/null && wait "$bridge" 2>/dev/null
  if [ -n "$daemon" ] && kill -0 "$daemon" 2>/dev/null; then
    kill -TERM "$daemon"
    for _ in $(seq 1 100); do kill -0 "$daemon" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$daemon" 2>/dev/null
    wait "$daemon" 2>/dev/null
  fi
  for hierarchy in /sys/fs/cgroup /sys/fs/cgroup/*; do
    [ -d "$hierarchy/$root" ] || continue
    [ -f "$hierarchy/$root/freezer.state" ] && find "$hierarchy/$root" -name freezer.state \
      -exec sh -c 'echo THAWED > "$1"' _ {} \; 2>/dev/null
    find "$hierarchy/$root" -name cgroup.procs -exec cat {} + 2>/dev/null | xargs -r kill -KILL 2>/dev/null
  done
  sleep 0.2
  for hierarchy in /sys/fs/cgroup /sys/fs/cgroup/*; do
    [ -d "$hierarchy/$root" ] && find "$hierarchy/$root" -depth -type d -exec rmdir {} \; 2>/dev/null
  done
  rm -rf "$work"
}
trap cleanup EXIT

cat >"$work/policy.toml" <<POLICY
foreground_slots = 1

[resources.camera]
description = "A shared resource for the acquire and release calls"

[apps.mail]
command = "$bin/ballast"
args = ["--hold", "4"]
background_modes = ["fetch"]
fetch_interval = "15m"

[apps.chat]
command = "$bin/ballast"
args = ["--hold", "4"]
background_modes = ["remote-notification"]

[apps.camera]
command = "$bin/ballast"
args = ["--hold", "4"]
resources = ["camera"]
POLICY

echo "== fuzz-api: daemon on cgroup root $root, socket $socket"
"$bin/appwarden" serve --policy "$work/policy.toml" --socket "$socket" --state-dir "$work/state" \
  --cgroup-root "$root" --stop-apps-on-exit >"$work/daemon.log" 2>&1 &
daemon=$!
for _ in $(seq 1 100); do [ -S "$socket" ] && break; sleep 0.1; done
[ -S "$socket" ] || { echo "fuzz-api.sh: the daemon did not open its socket:" >&2; cat "$work/daemon.log" >&2; exit 1; }
socat "TCP-LISTEN:$port,bind=127.0.0.1,reuseaddr,fork" "UNIX-CONNECT:$socket" &
bridge=$!
for _ in $(seq 1 50); do curl -fsS "http://127.0.0.1:$port/v1/health" >/dev/null 2>&1 && break; sleep 0.1; done

report="$PWD/.build-fuzz/schemathesis"
mkdir -p "$report"
if $smoke; then
  limits=(--max-examples 20 --seed 1 --generation-deterministic --phases examples,coverage,fuzzing)
else
  limits=(--max-time "${FUZZ_API_SECONDS:-600}" --max-examples 100000 --seed 1 --generation-database none)
fi
echo "== fuzz-api: schemathesis ${limits[*]}"
set +e
"$venv/bin/schemathesis" --config-file Fuzz/schemathesis.toml run docs/openapi.yaml --url "http://127.0.0.1:$port" \
  --checks all --exclude-path /v1/events/stream --workers 1 --request-timeout 10 \
  --no-color --report junit --report-dir "$report" "${limits[@]}" \
  2>&1 | tee "$report/run.log"
rc=${PIPESTATUS[0]}
set -e
if ! kill -0 "$daemon" 2>/dev/null; then
  echo "fuzz-api.sh: the daemon died during the run; its log:" >&2
  tail -50 "$work/daemon.log" >&2
  exit 1
fi
if [ "$rc" -ne 0 ]; then
  echo "fuzz-api.sh: schemathesis found problems (exit $rc); the daemon's log ends:" >&2
  tail -20 "$work/daemon.log" >&2
  exit 1
fi
echo "== fuzz-api: passed; the daemon is still running"
