#!/usr/bin/env bash
# Installs what appwarden needs to build on a Debian machine with Swift already installed:
# libcgroup (the cgroup library) and pkg-config. Safe to run again.
set -euo pipefail

need=()
dpkg -s libcgroup-dev >/dev/null 2>&1 || need+=(libcgroup-dev)
dpkg -s pkg-config >/dev/null 2>&1 || need+=(pkg-config)
dpkg -s libsqlite3-dev >/dev/null 2>&1 || need+=(libsqlite3-dev)
if [ "${#need[@]}" -gt 0 ]; then
  echo "== installing ${need[*]}"
  if [ "$(id -u)" -ne 0 ]; then
    echo "appwarden needs ${need[*]}; run this script as root or install them with apt-get." >&2
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
