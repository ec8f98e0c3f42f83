#!/bin/sh
# device-timeout: 170
# Rule 14 on the pure cgroup v2 device under systemd. A real hot-plug: the kernel's dummy USB host
# controller (dummy_hcd) and a USB gadget on it (g_serial, vendor 1234, product 5678) make the
# kernel enumerate a new USB device, as a plug would, and udevd send its events; the app that
# declares the device is launched passively with reason accessory, receives the add on its event
# stream and completes; the apps that declare other devices are not woken; the device unplugged
# (the gadget disconnected) wakes the same app with a remove. Meanwhile an audio-like app that
# holds an audio activity writes a line every second in background for two minutes of the
# device's time while the other background apps stay frozen; status and explain show the
# activity. Then whole-device critical pressure kills suspended apps and the audio app outlives
# them. The two minutes are wall-clock time, the same on a slow guest; what scales with the
# guest's speed are the waits for the daemon.
. /job/lib.sh
install_appwarden /job/policy.toml
mkdir -p /run/accessory-job
files=/run/accessory-job
oom_before=$(kernel_oom_kills)
trap 'cp -r "$files" /job/out/apps 2>/dev/null' EXIT
systemctl start appwarden
require "the daemon answers" wait_for_daemon 5
check "the daemon reads the device events (no 'Accessory wakes are off' in its log)" sh -c \
  '! journalctl -u appwarden --no-pager | grep -q "Accessory wakes are off"'

# App $1's activities as status shows them, "ID:MODE" separated by spaces; empty for none.
activities() {
  appwarden status --json "$1" 2>/dev/null | python3 -c '
import json, sys
data = json.load(sys.stdin)
app = data[0] if isinstance(data, list) else data
print(" ".join("%s:%s" % (a.get("id"), a.get("mode")) for a in app.get("activities", [])))'
}
# The journal entries of app $1 as "NAME KEY=VALUE..." lines.
journal_of() {
  appwarden events --json --app "$1" --limit 1000 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
d = d if isinstance(d, list) else d.get("events", d.get("entries", []))
for e in d:
    p = e.get("properties", {})
    print(e["name"], " ".join("%s=%s" % (k, p[k]) for k in sorted(p)))'
}
lines() { wc -l <"$1" 2>/dev/null || echo 0; }
frozen() { grep -qx "frozen 1" "$(app_group "$1")/cgroup.events"; }

step "big and mid hold their memory and are suspended; audio begins an activity and goes to background"
appwarden open big
check "big holds its 120 MiB before the next app opens" wait_for_anon big 120 5
appwarden open mid
check "mid holds its 120 MiB before the next app opens" wait_for_anon mid 120 5
appwarden open audio
limit=$(within 5)
i=0
while [ "$i" -lt "$limit" ] && [ -z "$(activities audio)" ]; do sleep 1; i=$((i + 1)); done
check "audio holds an audio activity, begun in the foreground" test -n "$(activities audio)"
echo "audio's activities: $(activities audio); its begin-activity said: $(cat $files/audio.activity 2>/dev/null)"
appwarden open front
check "front holds its 30 MiB" wait_for_anon front 30 5
check "front is active" wait_for_state front 3 active
for app in big mid; do check "$app is suspended" wait_for_state "$app" 5 suspended; done
check "the hierarchy is pure cgroup v2" test ! -e /sys/fs/cgroup/memory -a -f /sys/fs/cgroup/cgroup.controllers
for app in big mid; do check "$app's group reports frozen in cgroup.events" frozen "$app"; done
# Past the grace (2 s) the audio app would be suspended without its activity; the two minutes
# below look again.
sleep 10
check "audio is still in background, not suspended" test "$(app_line audio | cut -d" " -f1)" = background
check "audio's group is not frozen" grep -qx "frozen 0" "$(app_group audio)/cgroup.events"
check "audio's band is activity" test "$(app_field audio band)" = activity
check "status shows the activity in the TASKS column" sh -c \
  'appwarden status | grep "^audio " | grep -q "activity [0-9]*:audio"'
check "explain says audio holds the activity" sh -c 'appwarden explain audio | grep -qi "holds activity [0-9]* (audio)"'
check "the journal records the activity's beginning" sh -c 'appwarden events --app audio | grep -q "Began activity"'
appwarden status
audio_start=$(date +%s)
audio_lines_start=$(lines $files/audio.out)
mid_lines_start=$(lines $files/mid.out)

step "a real hot-plug: a USB gadget (1234:5678) on the kernel's dummy host controller"
check "scanner and printer have not run" test "$(app_line scanner | cut -d" " -f1) $(app_line printer | cut -d" " -f1)" = \
  "notRunning notRunning"
journal_of mid >"$files/mid.journal.before"
modprobe dummy_hcd && pass "dummy_hcd is loaded" || fail "dummy_hcd is loaded"
modprobe g_serial idVendor=0x1234 idProduct=0x5678 && pass "the g_serial gadget is loaded" ||
  fail "the g_serial gadget is loaded"
# The sysfs folder of the USB device 1234:5678, once the kernel has enumerated it.
gadget_device() {
  for device in /sys/bus/usb/devices/*; do
    [ "$(cat "$device/idVendor" 2>/dev/null):$(cat "$device/idProduct" 2>/dev/null)" = 1234:5678 ] && echo "$device"
  done
}
limit=$(within 10)
i=0
while [ "$i" -lt "$limit" ] && [ -z "$(gadget_device)" ]; do sleep 1; i=$((i + 1)); done
plugged=$(gadget_device)
check "the kernel enumerated a USB device 1234:5678 ($plugged)" test -n "$plugged"
check "scanner is launched" sh -c "limit=$(within 10); i=0; while [ \$i -lt \$limit ]; do
  [ -s $files/scanner.launches ] && exit 0; sleep 1; i=\$((i + 1)); done; exit 1"
check "scanner was launched with APPWARDEN_LAUNCH_REASON=accessory" grep -qx "launched reason=accessory" \
  "$files/scanner.launches"
journal_of scanner >"$files/scanner.journal"
check "the journal has scanner's passive start, reason accessory" grep -q '^\$AppStartPassively reason=accessory' \
  "$files/scanner.journal"
limit=$(within 10)
i=0
while [ "$i" -lt "$limit" ] && ! grep -q accessoryEvent "$files/scanner.events" 2>/dev/null; do sleep 1; i=$((i + 1)); done
check "scanner received an accessoryEvent on its event stream" grep -q accessoryEvent "$files/scanner.events"
check "the event it received is the add of the device 1234:5678" python3 - "$files/scanner.events" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    try:
        e = json.loads(line)
    except ValueError:
        continue
    if e.get("name") != "accessoryEvent":
        continue
    p = e["properties"]
    device = json.loads(p["properties"])
    ids = (device.get("ID_VENDOR_ID") or device.get("PRODUCT", "").split("/")[0]).lstrip("0"), \
          (device.get("ID_MODEL_ID") or (device.get("PRODUCT", "").split("/") + ["", ""])[1]).lstrip("0")
    print("received:", p["action"], device.get("SUBSYSTEM"), device.get("DEVTYPE"), device.get("DEVPATH"), ids,
          "window", p.get("windowMillis"), "ms")
    if p["action"] == "add" and device.get("SUBSYSTEM") == "usb" and ids == ("1234", "5678"):
        sys.exit(0)
sys.exit(1)
PY
check "scanner completes and is suspended" wait_for_state scanner 20 suspended
check "scanner was not terminated for its window" sh -c "! grep -q accessoryTimeout $files/scanner.journal"
check "printer, which declares 1234:9999 and a tag, was not launched" \
  test "$(app_line printer | cut -d" " -f1)" = notRunning -a ! -e "$files/printer.launches"
journal_of mid >"$files/mid.journal.after"
check "mid, suspended and declaring 1234:9999, got no accessory event" sh -c \
  "! diff $files/mid.journal.before $files/mid.journal.after | grep -qi accessory"
check "mid stayed frozen" frozen mid
check "big stayed frozen" frozen big
check "explain tells of scanner's accessory wake" sh -c 'appwarden explain scanner | grep -qi accessor'
appwarden explain scanner | tail -6

step "the device unplugged: the gadget disconnects from the host"
events_before=$(grep -c accessoryEvent "$files/scanner.events")
if [ -w /sys/class/udc/dummy_udc.0/soft_connect ]; then
  echo disconnect >/sys/class/udc/dummy_udc.0/soft_connect
else
  rmmod g_serial
fi
check "the kernel removed the device" sh -c "limit=$(within 10); i=0; while [ \$i -lt \$limit ]; do
  [ ! -e '$plugged' ] && exit 0; sleep 1; i=\$((i + 1)); done; exit 1"
check "scanner received a remove on its event stream" sh -c "limit=$(within 10); i=0; while [ \$i -lt \$limit ]; do
  grep accessoryEvent $files/scanner.events 2>/dev/null | grep -q remove && exit 0; sleep 1; i=\$((i + 1)); done; exit 1"
check "scanner was woken by thawing, the same process" test "$(grep -c . "$files/scanner.launches")" = 1
check "scanner is suspended again" wait_for_state scanner 20 suspended
check "printer was still not launched" test ! -e "$files/printer.launches"
echo "scanner received $(grep -c accessoryEvent "$files/scanner.events") device events in all ($events_before on the plug)"

step "audio keeps playing while the others are frozen: two minutes of the device's time"
frozen_misses=0
samples=0
while [ $(($(date +%s) - audio_start)) -lt 120 ]; do
  for app in big mid; do frozen "$app" || frozen_misses=$((frozen_misses + 1)); done
  samples=$((samples + 1))
  sleep 10
done
elapsed=$(($(date +%s) - audio_start))
audio_lines=$(($(lines $files/audio.out) - audio_lines_start))
mid_lines=$(($(lines $files/mid.out) - mid_lines_start))
gap=$(tail -n +"$((audio_lines_start + 1))" "$files/audio.out" | awk 'NR > 1 && $1 - last > max { max = $1 - last } { last = $1 } END { print max + 0 }')
echo "over ${elapsed} s audio wrote $audio_lines lines (longest gap ${gap} s); mid wrote $mid_lines; big and mid frozen in $((2 * samples - frozen_misses)) of $((2 * samples)) looks"
check "audio wrote a line for at least half the seconds" test "$audio_lines" -ge $((elapsed / 2))
# A frozen app stops for good; a busy guest may only delay a line by a few seconds.
gap_limit=$((5 + slowdown / 10))
check "audio never stopped for more than $gap_limit s" test "$gap" -le "$gap_limit"
check "audio is still in background with its activity" \
  test "$(app_line audio | cut -d" " -f1)" = background -a -n "$(activities audio)"
check "big and mid were frozen at every look" test "$frozen_misses" -eq 0
check "mid, the same loop without the mode, wrote nothing while suspended" test "$mid_lines" -eq 0

step "critical pressure: a process outside appwarden takes memory until 100 MiB are left"
appwarden status
grep MemAvailable /proc/meminfo
front_before=$(app_line front)
# audio's shell, the first of its processes (the others are its passing date and sleep).
audio_main() { app_line audio | sed 's/,.*//'; }
audio_before=$(audio_main)
hog_memory 100
hog=$!
stopped() { [ "$(app_line "$1" | cut -d" " -f1)" = notRunning ]; }
# The first kill, then a while for the second (none when the first was enough).
limit=$(within 15)
i=0
while [ "$i" -lt "$limit" ]; do
  stopped big || stopped mid && break
  sleep 1
  i=$((i + 1))
done
limit=$(within 3)
i=0
while [ "$i" -lt "$limit" ]; do
  stopped big && stopped mid && break
  sleep 1
  i=$((i + 1))
done
sleep 10
grep MemAvailable /proc/meminfo
events=$(appwarden events --json --limit 1000)
order=$(printf "%s\n" "$events" | python3 -c '
import json, sys
d = json.load(sys.stdin)
d = d if isinstance(d, list) else d.get("events", d.get("entries", []))
print(" ".join(e["app"] for e in d if e["name"] == "$AppTerminated" and e["properties"].get("reason") == "memoryPressure"))')
# The daemon's own record of the pressure: each change of level with the figures that made it,
# and each decision it journaled (a victim chosen, a wait for one dying).
level=$(printf "%s\n" "$events" | python3 -c '
import json, sys
d = json.load(sys.stdin)
d = d if isinstance(d, list) else d.get("events", d.get("entries", []))
level = "normal"
for e in d:
    if e["app"] != "appwarden":
        continue
    p = e["properties"]
    if e["name"] == "pressureChanged":
        level = p.get("to", level)
        print("pressure", p.get("from"), "->", level, "available", p.get("availableBytes"), file=sys.stderr)
    elif e["name"] in ("decision", "memoryKill"):
        print(e["name"], p, file=sys.stderr)
print(level)')
echo "killed for memory pressure, in order: $order; the daemon's level now: $level"
# big and mid are the same size, so either goes first. The hog leaves about 100 MiB: under
# critical_enter, and one kill is enough when the level went critical early (a PSI stall while
# the hog still grew) and the kill brought the device back over critical_exit; otherwise both
# go, and a stall that lasts may take scanner, suspended too, after them.
case " $order " in
  " big "* | " mid "*) pass "a suspended ballast app was killed first ($order)" ;;
  *) fail "a suspended ballast app was killed first ($order)" ;;
esac
others=$(echo "$order" | tr " " "\n" | grep -cvxE "big|mid|scanner")
check "only suspended apps were killed ($order)" test "$others" -eq 0
ballast=$(echo "$order" | tr " " "\n" | grep -cxE "big|mid")
check "the killer stopped only once the device was out of critical pressure" \
  test "$level" != critical -o "$ballast" -eq 2
check "audio is alive, in background, the same process" test "$(audio_main)" = "$audio_before"
check "front is alive, active and the same process" test "$(app_line front)" = "$front_before"
before=$(lines $files/audio.out)
sleep 5
check "audio still writes its lines" test "$(lines $files/audio.out)" -gt "$before"
check "the kernel's OOM killer did not act" test "$(kernel_oom_kills)" = "$oom_before"
kill "$hog"
wait "$hog" 2>/dev/null
appwarden explain audio | tail -5
systemctl stop appwarden
rmmod g_serial 2>/dev/null
rmmod dummy_hcd 2>/dev/null
finish
