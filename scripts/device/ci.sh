#!/usr/bin/env bash
# CI's device step: installs qemu-system-x86 and debootstrap with apt when they are missing
# (after apt-get update), builds the binaries when they are not built yet, builds the device
# image (or reuses the cached one), and runs every device test job (scripts/device/test.sh), one
# fresh boot each. Each job's time limits scale with the guest's measured speed (see run.sh);
# every boot's qemu process and run folder are removed whatever happens.
#
#   sudo bash scripts/device/ci.sh
#
# Without root it says so and does nothing (the device needs root for its image and 9p shares).
set -euo pipefail
cd "$(dirname "$0")/../.."

if [ "$(id -u)" -ne 0 ]; then
  echo "== device suite skipped: it builds an image and boots a virtual machine; run it as root"
  exit 0
fi
started=$(date +%s)
missing=()
command -v qemu-system-x86_64 >/dev/null 2>&1 || missing+=(qemu-system-x86)
command -v debootstrap >/dev/null 2>&1 || missing+=(debootstrap)
command -v mke2fs >/dev/null 2>&1 || missing+=(e2fsprogs)
if [ "${#missing[@]}" -gt 0 ]; then
  echo "== installing ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

bin_dir="${APPWARDEN_BIN_DIR:-.build/debug}"
if [ ! -x "$bin_dir/appwarden" ] || [ ! -x "$bin_dir/ballast" ]; then
  echo "== building the binaries"
  source scripts/setup.sh
  swift build
fi

echo "== device image"
bash scripts/device/build-image.sh
echo "== device jobs"
status=0
bash scripts/device/test.sh || status=$?
echo "== device suite: exit $status after $(($(date +%s) - started)) s"
exit "$status"
