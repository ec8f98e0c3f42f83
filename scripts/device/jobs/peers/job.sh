#!/bin/sh
# device-timeout: 3600
# device-benchmark
# device-swap: zram
# The peers side by side on the device as users have it (a zram swap of half its RAM; the drive
# as run.sh is told: this folder's peers.sh throttles it to eMMC speed). Each workload runs under
# each killer alone, one after the other in this boot, with the device reset in between (apps and
# killer stopped, swap emptied and set up afresh, page cache dropped): see bench.py for the
# workloads and the figures. /job/peers.conf may name the workloads (WORKLOADS="w1 w2 w2f w1b w2b w3 w3m w3h"), the
# killers (KILLERS="appwarden appwarden-nocompress earlyoom nohang systemd-oomd kernel", and
# appwarden-share and appwarden-least on request: see bench.py) and the
# day's length (DAY_SECONDS=600), and may change w1's and w2's apps (IDLE_APPS, IDLE_MIB, FRONT_MIB,
# FRONT_STEP, FRONT_INTERVAL, FRONT_BEFORE: see bench.py) and set appwarden's fair_share (FAIR_SHARE).
# earlyoom and nohang run with Debian's configuration;
# systemd-oomd, which Debian ships without any managed unit, with Fedora's defaults
# (ManagedOOMSwap=kill on the root slice, ManagedOOMMemoryPressure=kill at 50% on the user
# slice), applied here to the apps' slice too (ManagedOOMMemoryPressure=kill, 50%). Prints one
# "row:" line per run, which peers.sh gathers into a table. A benchmark: it fails only when the
# workload itself cannot run.
. /job/lib.sh
WORKLOADS="w1 w2"
KILLERS="appwarden appwarden-nocompress earlyoom nohang systemd-oomd kernel"
DAY_SECONDS=600
[ -f /job/peers.conf ] && . /job/peers.conf
export DAY_SECONDS IDLE_APPS IDLE_MIB FRONT_MIB FRONT_STEP FRONT_INTERVAL FRONT_BEFORE FAIR_SHARE
# Which image this is: a rebuild keeps the image's name (a hash of its package list) but takes
# Debian's packages as they are that day, so the figures of two weeks compare only on one image.
# Taken before appwarden's package is installed, the hash is that of the image's `versions` file
# (build-image.sh): md5sum versions | cut -c1-12.
echo "== image: Debian $(cat /etc/debian_version), built $(date -u -r /etc/hostname '+%Y-%m-%d %H:%M'), $(dpkg-query -W -f '${Package} ${Version}\n' | md5sum | cut -c1-12) (a hash of its package versions)"
install_package || {
  cat /job/out/apt.log
  fail "apt installs appwarden's package"
  finish
}
ln -sf /opt/appwarden/bin/ballast /usr/local/bin/ballast
systemctl disable --now appwarden >/dev/null 2>&1
# systemd-oomd's managed slices exist only for its own turn: with them in place, PID 1 starts
# systemd-oomd as soon as apps.slice starts, and it would kill during the other killers' runs.
oomd_slices() {
  if [ "$1" = on ]; then
    mkdir -p /etc/systemd/system/apps.slice.d /etc/systemd/system/-.slice.d
    printf '[Slice]\nManagedOOMMemoryPressure=kill\nManagedOOMMemoryPressureLimit=50%%\n' \
      >/etc/systemd/system/apps.slice.d/oomd.conf
    printf '[Slice]\nManagedOOMSwap=kill\n' >/etc/systemd/system/-.slice.d/oomd.conf
    systemctl unmask --runtime systemd-oomd.service systemd-oomd.socket >/dev/null 2>&1
  else
    rm -f /etc/systemd/system/apps.slice.d/oomd.conf /etc/systemd/system/-.slice.d/oomd.conf
    systemctl mask --runtime systemd-oomd.service systemd-oomd.socket >/dev/null 2>&1
  fi
  systemctl daemon-reload
}
echo "== earlyoom: $(grep -v '^#' /etc/default/earlyoom | grep . | tr '\n' ' ')"
echo "== kernel $(uname -r), swappiness $(cat /proc/sys/vm/swappiness), zram $(cat /sys/block/zram0/disksize 2>/dev/null) bytes"

reset_device() {
  # systemd-oomd's socket too: systemd reports the ManagedOOM slices to it, which starts
  # systemd-oomd on its own, killing for the runs meant to have another killer or none.
  systemctl stop appwarden earlyoom nohang systemd-oomd.socket systemd-oomd >/dev/null 2>&1
  systemctl stop appwarden-apps.scope >/dev/null 2>&1
  for unit in $(systemctl list-units --plain --no-legend 'w-*' | awk '{ print $1 }'); do
    systemctl stop "$unit" >/dev/null 2>&1
  done
  systemctl reset-failed >/dev/null 2>&1
  rm -rf /var/lib/appwarden /run/front.size
  if grep -q '^/dev/zram0' /proc/swaps; then
    swapoff /dev/zram0
    echo 1 >/sys/block/zram0/reset
    grep -qw lz4 /sys/block/zram0/comp_algorithm && echo lz4 >/sys/block/zram0/comp_algorithm
    echo "$(($(awk '$1 == "MemTotal:" { print $2 }' /proc/meminfo) / 2))K" >/sys/block/zram0/disksize
    mkswap /dev/zram0 >/dev/null && swapon -p 100 /dev/zram0
  fi
  sync
  echo 3 >/proc/sys/vm/drop_caches
  sleep 5
}

for workload in $WORKLOADS; do
  for killer in $KILLERS; do
    reset_device
    if [ "$killer" = systemd-oomd ]; then oomd_slices on; else oomd_slices off; fi
    step "$workload under $killer (MemAvailable $(awk '$1 == "MemAvailable:" { print int($2 / 1024) }' /proc/meminfo) MiB)"
    python3 /job/bench.py "$workload" "$killer" || fail "$workload under $killer: the workload ran"
  done
done
reset_device
oomd_slices off
finish
