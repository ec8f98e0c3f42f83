#!/usr/bin/env bash
# Installs what appwarden needs to build and test on a Debian machine with Swift already
# installed: libcgroup (the cgroup library), SQLite, pkg-config, curl (the tests call the
# control socket with it, as an app's shell script would), python3 (the crash-consistency
# run) and tmux (the test of `appwarden top` runs it in a real terminal). Safe to run again.
set -euo pipefail

need=()
dpkg -s libcgroup-dev >/dev/null 2>&1 || need+=(libcgroup-dev)
dpkg -s pkg-config >/dev/null 2>&1 || need+=(pkg-config)
dpkg -s libsqlite3-dev >/dev/null 2>&1 || need+=(libsqlite3-dev)
command -v curl >/dev/null 2>&1 || need+=(curl)
command -v python3 >/dev/null 2>&1 || need+=(python3)
command -v tmux >/dev/null 2>&1 || need+=(tmux)
if [ "${#need[@]}" -gt 0 ]; then
  echo "== installing ${need[*]}"
  if [ "$(id -u)" -ne 0 ]; then
    echo "appwarden needs ${need[*]} to build; run this once as root, or install them with apt-get." >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${need[@]}" >/dev/null
fi

if ! command -v swift >/dev/null 2>&1; then
  for dir in /opt/swift/usr/bin /opt/swift/bin; do
    [ -x "$dir/swift" ] && export PATH="$dir:$PATH"
  done
fi
command -v swift >/dev/null 2>&1 || { echo "appwarden needs Swift 6 on PATH." >&2; exit 1; }
