#!/usr/bin/env bash
# Sets everything up and runs the main job: the appwarden daemon on the shipped demo policy
# (policies/demo.toml: six ballast apps on a small device). Run it as root. Stop it with
# Ctrl-C; the apps keep running and the next start re-adopts them (add --stop-apps-on-exit
# to stop them too). The README's tour drives it from a second terminal.
#
# Without root (once the packages are installed), or with --simulate, it replays the demo
# day in virtual time instead.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
swift build -c release --product appwarden
# The program each app's log relay runs; without it beside appwarden every relay is a fork of the daemon.
swift build -c release --product appwarden-relay
swift build -c release --product ballast
bin="$(swift build -c release --show-bin-path)"

if [ "${1:-}" = "--simulate" ] || [ "$(id -u)" -ne 0 ]; then
  [ "$(id -u)" -ne 0 ] && echo "(not root: replaying the demo in virtual time instead of running the daemon)"
  exec "$bin/appwarden" simulate scenarios/demo.toml
fi

# The demo apps run the ballast workload by name, and the camera app holds this file open.
export PATH="$bin:$PATH"
mkdir -p /tmp/appwarden-demo
touch /tmp/appwarden-demo/camera.lock
exec "$bin/appwarden" serve --policy policies/demo.toml --state-dir /tmp/appwarden-demo/state "$@"
