#!/usr/bin/env bash
# CI's device step: installs qemu-system-x86, debootstrap and dpkg-dev with apt when they are
# missing (after apt-get update), builds appwarden's Debian package (scripts/package.sh: a static
# release build, checked with lintian) and the test workload ballast (static too), builds the
# device image (or reuses the cached one), and runs every device test job (scripts/device/test.sh),
# one fresh boot each, against the package installed with apt on a device without Swift. Each job's time limits scale with the guest's measured speed (see run.sh);
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
command -v dpkg-scanpackages >/dev/null 2>&1 || missing+=(dpkg-dev)
if [ "${#missing[@]}" -gt 0 ]; then
  echo "== installing ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

echo "== appwarden's Debian package"
step_started=$(date +%s)
deb=$(bash scripts/package.sh | tail -1)
echo "== the test workload, ballast"
bin_dir=$(bash scripts/build-static.sh ballast | tail -1)
echo "== package and ballast built in $(($(date +%s) - step_started)) s"
export APPWARDEN_DEB="$deb" APPWARDEN_BIN_DIR="$bin_dir"

echo "== device image"
bash scripts/device/build-image.sh
echo "== device jobs"
status=0
bash scripts/device/test.sh || status=$?
echo "== device suite: exit $status after $(($(date +%s) - started)) s"
exit "$status"
