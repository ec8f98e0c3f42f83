#!/bin/sh
# device-timeout: 12
# On pure cgroup v2 under systemd: launch, freeze and thaw; memory.stat, memory.events and
# memory.pressure read for real; whole-device pressure from MemAvailable (no parent limit) kills
# the largest suspended apps first while the foreground app lives, before the kernel's OOM
# killer acts; `systemctl stop` leaves the apps for the next start.
. /job/lib.sh
install_appwarden /job/policy.toml
oom_before=$(kernel_oom_kills)

step "launch four apps; the three in background are frozen"
systemctl start appwarden
require "the daemon answers" wait_for_daemon 5
for spec in big:200 mid:120 small:60 front:40; do
  appwarden open "${spec%%:*}"
  check "${spec%%:*} holds its ${spec#*:} MiB before the next app opens" wait_for_anon "${spec%%:*}" "${spec#*:}" 5
done
for app in big mid small; do check "$app is suspended" wait_for_state "$app" 5 suspended; done
check "front is active" wait_for_state front 3 active
check "the hierarchy is pure cgroup v2" test ! -e /sys/fs/cgroup/memory -a -f /sys/fs/cgroup/cgroup.controllers
for app in big mid small; do
  check "$app's group reports frozen in cgroup.events" grep -qx "frozen 1" "$(app_group "$app")/cgroup.events"
done

step "thaw: open small, then front again"
small_before=$(app_line small | cut -d" " -f2)
appwarden open small
check "small is active again" wait_for_state small 3 active
check "small's group is thawed" grep -qx "frozen 0" "$(app_group small)/cgroup.events"
check "small kept its process" test "$(app_line small | cut -d" " -f2)" = "$small_before"
appwarden open front
check "small is suspended again" wait_for_state small 5 suspended

step "memory files read for real"
big_group=$(app_group big)
anon=$(awk '$1 == "anon" { print $2 }' "$big_group/memory.stat")
footprint=$(appwarden status --json big | python3 -c '
import json, sys
d = json.load(sys.stdin)
d = d[0] if isinstance(d, list) else d
print(d["footprintBytes"])')
echo "big: memory.stat anon=$anon, footprint reported=$footprint"
check "big's footprint is its 200 MiB, from memory.stat" \
  python3 -c "import sys; f=$footprint; a=$anon; sys.exit(0 if 190<<20 <= f <= 240<<20 and abs(f-a) <= 16<<20 else 1)"
check "big's memory.pressure has PSI lines" grep -q "^some avg10=" "$big_group/memory.pressure"
check "big's memory.events counts no OOM kill" grep -qx "oom_kill 0" "$big_group/memory.events"
check "no memory limit sits above the apps" \
  sh -c "test \"\$(cat $(dirname "$(dirname "$big_group")")/memory.max)\" = max"

step "whole-device pressure: a process outside appwarden takes memory until 120 MiB are left"
grep MemAvailable /proc/meminfo
front_before=$(app_line front)
hog_memory 120
hog=$!
i=0
limit=$(within 10)
while [ "$i" -lt "$limit" ]; do
  [ "$(app_line big | cut -d" " -f1)" = notRunning ] && break
  sleep 1
  i=$((i + 1))
done
sleep 10
grep MemAvailable /proc/meminfo
order=$(appwarden events --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
d = d if isinstance(d, list) else d.get("events", d.get("entries", []))
print(" ".join(e["app"] for e in d if e["name"] == "$AppTerminated" and e["properties"].get("reason") == "memoryPressure"))')
echo "killed for memory pressure, in order: $order"
check "the largest suspended app (big) is killed first" test "${order%% *}" = big
case "$order" in
  "big" | "big mid" | "big mid small") pass "the kills follow size within the suspended band ($order)" ;;
  *) fail "the kills follow size within the suspended band ($order)" ;;
esac
check "front is alive, active and the same process" test "$(app_line front)" = "$front_before"
check "the kernel's OOM killer did not act" test "$(kernel_oom_kills)" = "$oom_before"
check "dmesg shows no OOM kill" sh -c '! dmesg | grep -qi "out of memory"'
kill "$hog"
wait "$hog" 2>/dev/null

step "systemctl stop leaves the apps for the next start"
alive_before=$(for app in mid small front; do app_line "$app"; done)
systemctl stop appwarden
check "front lives on without the daemon" kill -0 "$(echo "$front_before" | cut -d" " -f2)"
systemctl start appwarden
check "the daemon answers again" wait_for_daemon 5
alive_after=$(for app in mid small front; do app_line "$app"; done)
echo "before stop: $alive_before"
echo "after start: $alive_after"
check "the next start re-adopts the same apps in the same states" test "$alive_after" = "$alive_before"
check "the watchdog is armed (WatchdogSec=30 of the unit)" test "$(systemctl show -p WatchdogUSec --value appwarden)" = 30s
check "the daemon fed the watchdog throughout (no watchdog timeout in the journal)" \
  sh -c '! journalctl -u appwarden --no-pager | grep -qi "watchdog timeout"'
systemctl stop appwarden
finish
