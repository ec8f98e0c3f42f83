#!/bin/sh
# device-timeout: 10
# Rule 13 on the pure cgroup v2 device under systemd: the cpu controller is enabled for the app
# groups and the start-up log says so; the foreground app's group has cpu.weight 10000 and the
# background apps' 1; a busy foreground app gets far more of the two CPUs than each of three busy
# background apps; the background CPU budget warns, then terminates the background apps cpuLimit,
# and explain gives the figures.
. /job/lib.sh
install_appwarden /job/policy.toml
systemctl start appwarden
require "the daemon answers" wait_for_daemon 5
check "the start-up log names cgroup2's cpu controller" sh -c \
  'journalctl -u appwarden --no-pager | grep -q "CPU classes through cgroup2 cpu.weight"'

step "three apps begin a background task and spin in background; front spins in the foreground"
for app in back1 back2 back3; do
  appwarden open "$app"
  sleep 1
done
appwarden open front
check "front is active" wait_for_state front 5 active
for app in back1 back2 back3; do
  check "$app is in background" wait_for_state "$app" 5 background
done
front_group=$(app_group front)
check "the app groups' parent enables the cpu controller" sh -c \
  "grep -qw cpu '$(dirname "$front_group")/cgroup.subtree_control'"
check "front's group has the foreground's weight" test "$(cat "$front_group/cpu.weight")" = 10000
check "back1's group has the background's weight" test "$(cat "$(app_group back1)/cpu.weight")" = 1
check "status shows the classes" sh -c 'appwarden status | grep "^front " | grep -q " fg " && appwarden status | grep "^back1 " | grep -q " bg"'

step "the CPU each app gets over 5 s"
usage() { awk '$1 == "usage_usec" { print $2 }' "$(app_group "$1")/cpu.stat"; }
f0=$(usage front); b0=$(usage back1); c0=$(usage back2); d0=$(usage back3)
sleep 5
f1=$(usage front); b1=$(usage back1); c1=$(usage back2); d1=$(usage back3)
front_ms=$(((f1 - f0) / 1000))
back_ms=$((((b1 - b0) + (c1 - c0) + (d1 - d0)) / 3000))
echo "over 5 s: front used $front_ms ms of CPU, each background app $back_ms ms on average"
# With equal weights each of the four would get half a CPU; with the classes front keeps its core.
check "front gets at least twice what each background app gets" test "$front_ms" -ge $((2 * back_ms))

step "the background CPU budget: warned, then terminated cpuLimit"
appwarden home
terminated() { [ "$(app_line back1 | cut -d" " -f1)" = notRunning ]; }
limit=$(within 40)
i=0
while [ "$i" -lt "$limit" ] && ! terminated; do sleep 1; i=$((i + 1)); done
check "back1 is terminated" terminated
check "back1 was warned first" sh -c 'appwarden events --app back1 2>/dev/null | grep -q cpuWarning'
check "explain says cpuLimit with the figures" sh -c \
  'appwarden explain back1 | grep -q "cpuLimit" && appwarden explain back1 | grep -q "of a CPU over"'
appwarden explain back1 | tail -8
finish
