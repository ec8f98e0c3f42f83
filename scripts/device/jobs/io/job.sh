#!/bin/sh
# device-timeout: 30
# device-disk: emmc
# Rule 13's I/O weights on the pure cgroup v2 device under systemd, its drive throttled to eMMC
# speed and scheduled by BFQ (the operator's choice; appwarden changes no scheduler): the io
# controller is enabled for the app groups, the start-up log names the drive as honouring the
# weights, the foreground reader's group has the foreground's weight and the background writers'
# the background's; the reader's rate beside two busy writers, with the classes and with equal
# weights, and alone, is printed, and the classes give it at least 1.25 times what equal weights do
# (2.0 and 2.6 times in the first runs).
. /job/lib.sh
drive=$(lsblk -no PKNAME "$(findmnt -no SOURCE /)" 2>/dev/null | head -1)
[ -n "$drive" ] || drive=$(basename "$(findmnt -no SOURCE /)")
step "the drive $drive under BFQ"
modprobe bfq 2>/dev/null
echo bfq >"/sys/block/$drive/queue/scheduler" 2>/dev/null
check "the drive's scheduler is bfq" grep -q '\[bfq\]' "/sys/block/$drive/queue/scheduler"
mkdir -p /var/tmp/appwarden-io
dd if=/dev/urandom of=/var/tmp/appwarden-io/data bs=1M count=32 2>/dev/null
sync
install_appwarden /job/policy.toml
systemctl start appwarden
require "the daemon answers" wait_for_daemon 5
check "the start-up log names the drive as honouring the I/O weights" sh -c \
  "journalctl -u appwarden --no-pager | grep -q 'I/O classes through cgroup2 io.weight, in effect on $drive (bfq)'"

step "two writers begin a background task; the reader reads in the foreground"
for app in writer1 writer2; do
  appwarden open "$app"
  sleep 1
done
appwarden open reader
check "reader is active" wait_for_state reader 5 active
for app in writer1 writer2; do
  check "$app is in background" wait_for_state "$app" 5 background
done
reader_group=$(app_group reader)
check "the app groups' parent enables the io controller" sh -c \
  "grep -qw io '$(dirname "$reader_group")/cgroup.subtree_control'"
check "reader's group has the foreground's I/O weight" sh -c "grep -q '^default 1000\$' '$reader_group/io.bfq.weight'"
check "writer1's group has the background's I/O weight" sh -c \
  "grep -q '^default 10\$' '$(app_group writer1)/io.bfq.weight'"

# Bytes app $1's group read (r) or wrote (w) from the drive, from io.stat.
io_bytes() {
  group=$(app_group "$1")
  [ -n "$group" ] || { echo 0; return; }
  awk -v key="$2bytes=" '{ for (i = 2; i <= NF; i++) if (index($i, key) == 1) sum += substr($i, length(key) + 1) }
    END { print sum + 0 }' "$group/io.stat"
}
# Prints the KiB per second app reader read over 10 s, and the writers' together.
measure() {
  r0=$(io_bytes reader r); w0=$(($(io_bytes writer1 w) + $(io_bytes writer2 w)))
  sleep 10
  r1=$(io_bytes reader r); w1=$(($(io_bytes writer1 w) + $(io_bytes writer2 w)))
  echo "$(((r1 - r0) / 10240)) $(((w1 - w0) / 10240))"
}
step "the reader beside the writers, with the classes (1000 against 10)"
sleep 2
set -- $(measure)
classes=$1
echo "reader $1 KiB/s, the writers $2 KiB/s together"

step "the same with equal weights (reloaded)"
printf '\n[cpu]\nforeground_io_weight = 100\nbackground_io_weight = 100\n' >>/etc/appwarden/policy.toml
check "the reload succeeds" systemctl reload appwarden
sleep 2
check "reader's group has the equal weight" sh -c "grep -q '^default 100\$' '$reader_group/io.bfq.weight'"
set -- $(measure)
equal=$1
echo "reader $1 KiB/s, the writers $2 KiB/s together"

step "the reader alone"
appwarden force-quit writer1 >/dev/null
appwarden force-quit writer2 >/dev/null
sleep 7
set -- $(measure)
echo "reader $1 KiB/s alone"
echo "the reader's rate: alone $1 KiB/s, beside two writers $classes KiB/s with the classes, $equal KiB/s with equal weights"
check "the classes give the reader at least a quarter more than equal weights do" \
  test "$((4 * classes))" -ge "$((5 * equal))"
finish
