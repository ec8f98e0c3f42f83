#!/usr/bin/env bash
# Builds the example app package (Examples/NotesApp, which depends on appwarden by path) into
# .build-example and runs it briefly under a real daemon: opened, sent a silent push, sent home.
# Passes when the app's log shows its background task, the push and a status change. Needs root
# and cgroups, like the daemon; run after `swift build` (it uses the built appwarden).
set -euo pipefail
cd "$(dirname "$0")/.."
bin="$(swift build --show-bin-path)/appwarden"
# The daemon's log relays run appwarden-relay, found beside appwarden.
[ -x "$bin" ] && [ -x "$(dirname "$bin")/appwarden-relay" ] \
  || { echo "example-app.sh: build first (swift build)." >&2; exit 1; }
start=$(date +%s)
swift build --package-path Examples/NotesApp --scratch-path .build-example >/dev/null
notes="$(swift build --package-path Examples/NotesApp --scratch-path .build-example --show-bin-path)/NotesApp"
echo "example app built in $(( $(date +%s) - start )) s: $notes"

dir=$(mktemp -d /tmp/appwarden-example.XXXXXX)
root="appwarden-example-$$"
cat > "$dir/policy.toml" <<POLICY
[apps.notes]
command = "$notes"
background_modes = ["fetch", "remote-notification"]
POLICY
"$bin" serve --policy "$dir/policy.toml" --socket "$dir/sock" --state-dir "$dir/state" \
  --cgroup-root "$root" --lock-dir "$dir/run" --stop-apps-on-exit 2>"$dir/daemon.log" &
daemon=$!
cleanup() {
  kill -TERM "$daemon" 2>/dev/null || true
  wait "$daemon" 2>/dev/null || true
  rm -rf "$dir"
}
trap cleanup EXIT
wait_for() {  # wait_for FILE TEXT: up to 15 s
  for _ in $(seq 150); do
    grep -q -- "$2" "$1" 2>/dev/null && return 0
    sleep 0.1
  done
  echo "example app: \"$2\" never appeared in $1:" >&2
  cat "$1" >&2 || true
  cat "$dir/daemon.log" >&2
  return 1
}
for _ in $(seq 100); do [ -S "$dir/sock" ] && break; sleep 0.1; done
log="$dir/state/logs/notes.log"
"$bin" open notes --socket "$dir/sock"
wait_for "$log" "began background task"
wait_for "$log" "ended background task"
"$bin" push notes '{"aps":{"content-available":1},"id":"n1"}' --socket "$dir/sock" >/dev/null
wait_for "$log" 'push: {"aps"'
"$bin" home --socket "$dir/sock"
wait_for "$log" "status of notes is now background"
echo "example app ran under the daemon: task, push and status change seen"
