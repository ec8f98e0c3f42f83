# Shell functions for device jobs; sourced by each scripts/device/jobs/*/job.sh inside the guest,
# where run.sh copies this file beside the job.
# The guest mounts the job folder at /job (appwarden's Debian package in /job/packages) and the
# test workload, ballast, at /opt/appwarden/bin.

failures=0
job_started_at=$(date +%s)

# The device's configuration, which run.sh writes to /job/device.conf: swap=zram gives the device
# a zram swap of half its RAM, set up as Debian's zram-tools does (lz4, priority 100; the
# kernel's default swappiness, 60, is left as it is), swap=none leaves it without swap;
# disk=emmc says the drive is throttled to eMMC-like speed (run.sh does that). The job's output
# starts with what the device has.
device_swap=$(sed -n 's/^swap=//p' /job/device.conf 2>/dev/null)
device_disk=$(sed -n 's/^disk=//p' /job/device.conf 2>/dev/null)
if [ "${device_swap:-none}" = zram ] && ! grep -q '^/dev/zram' /proc/swaps; then
  modprobe zram num_devices=1
  ram_kib=$(awk '$1 == "MemTotal:" { print $2 }' /proc/meminfo)
  grep -qw lz4 /sys/block/zram0/comp_algorithm && echo lz4 >/sys/block/zram0/comp_algorithm
  echo "$((ram_kib / 2))K" >/sys/block/zram0/disksize
  mkswap /dev/zram0 >/dev/null && swapon -p 100 /dev/zram0 || echo "FAIL: the zram swap could not be set up"
fi
echo "== device: swap ${device_swap:-none}$(awk 'NR > 1 { printf " (%s, %d MiB)", $1, $3 / 1024 }' /proc/swaps)," \
  "compressor $(sed -n 's/.*\[\(.*\)\].*/\1/p' /sys/block/zram0/comp_algorithm 2>/dev/null || echo none)," \
  "drive ${device_disk:-fast}, MemTotal $(awk '$1 == "MemTotal:" { print int($2 / 1024) }' /proc/meminfo) MiB"

# The guest's speed, measured: 200 fork+exec of /bin/true (the guest's slowest kind of work).
# `slowdown` is the time they take here against 100 ms, what they take on an unloaded machine of
# the build host's kind (2 cores): a guest twice as slow, because qemu emulates the CPU or because
# the host is busy, gets waits twice as long. run.sh reads it from /job/out/speed to set the job's
# hard limit, and prints the ratio to the same loop timed on the host (/job/host-calibration-ms).
calibration_start=$(date +%s%N)
i=0
while [ "$i" -lt 200 ]; do /bin/true; i=$((i + 1)); done
guest_ms=$((($(date +%s%N) - calibration_start) / 1000000))
host_ms=$(cat /job/host-calibration-ms 2>/dev/null || echo 0)
slowdown=$(((guest_ms + 99) / 100))
[ "$slowdown" -lt 1 ] && slowdown=1
mkdir -p /job/out
echo "$slowdown $guest_ms $host_ms" >/job/out/speed
echo "== guest slowdown ${slowdown}x: 200 fork+exec take ${guest_ms} ms here, ${host_ms} ms on the host"

# within N: the seconds to allow here for something that takes at most N seconds at host speed.
within() {
  echo $(($1 * slowdown + 10))
}
step() { echo "== $* (at $(($(date +%s) - job_started_at)) s)"; }
pass() { echo "ok: $*"; }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
check() { # check DESCRIPTION COMMAND...: passes when the command succeeds
  description=$1
  shift
  if "$@"; then pass "$description"; else fail "$description"; fi
}
# require DESCRIPTION COMMAND...: as check, but when it fails the job ends at once, with the end
# of the daemon's log, since every later check needs it (a daemon that did not start).
require() {
  description=$1
  shift
  if "$@"; then
    pass "$description"
    return 0
  fi
  fail "$description"
  journalctl -u appwarden --no-pager | tail -40
  finish
}
finish() {
  if [ "$failures" -eq 0 ]; then
    echo "== all checks passed"
    exit 0
  fi
  echo "== $failures check(s) failed"
  exit 1
}

# Installs appwarden's package as an operator would, with apt, which takes the libraries it
# depends on from the device's repository; prints apt's output to /job/out/apt.log. The package
# enables and starts the service on its default policy. Succeeds when apt did.
install_package() {
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends /job/packages/appwarden_*.deb \
    >/job/out/apt.log 2>&1
}

# Installs the package, then the policy given as $1 in place of the default one, with the service
# stopped, for the job to start; and ballast, the test workload, on the service's PATH.
install_appwarden() {
  started=$(date +%s)
  if install_package; then
    echo "== appwarden's package installed with apt in $(($(date +%s) - started)) s"
  else
    cat /job/out/apt.log
    fail "apt installs appwarden's package"
    finish
  fi
  ln -sf /opt/appwarden/bin/ballast /usr/local/bin/ballast
  systemctl stop appwarden
  cp "$1" /etc/appwarden/policy.toml
}

# Waits for the daemon's socket to answer, for what takes $1 seconds at host speed.
wait_for_daemon() {
  limit=$(within "$1")
  i=0
  while [ "$i" -lt "$limit" ]; do
    appwarden status >/dev/null 2>&1 && return 0
    sleep 1
    i=$((i + 1))
  done
  return 1
}

# Prints "STATE PID,PID" for app $1.
app_line() {
  appwarden status --json "$1" 2>/dev/null | python3 -c '
import json, sys
data = json.load(sys.stdin)
app = data[0] if isinstance(data, list) else data.get("apps", [data])[0] if "apps" in data else data
print(app["state"], ",".join(str(p) for p in sorted(app["pids"])))'
}

# Waits for the service to be active (Type=notify: after READY=1), for $1 seconds at host speed.
wait_for_active() {
  limit=$(within "$1")
  i=0
  while [ "$i" -lt "$limit" ]; do
    systemctl is-active --quiet appwarden && return 0
    sleep 1
    i=$((i + 1))
  done
  return 1
}

# Prints field $2 of app $1 as the control API shows it (None when null).
app_field() {
  appwarden status --json "$1" 2>/dev/null | python3 -c '
import json, sys
data = json.load(sys.stdin)
app = data[0] if isinstance(data, list) else data.get("apps", [data])[0] if "apps" in data else data
print(app.get(sys.argv[1]))' "$2"
}

# Waits for app $1 to reach state $3, for what takes $2 seconds at host speed.
wait_for_state() {
  limit=$(within "$2")
  i=0
  while [ "$i" -lt "$limit" ]; do
    [ "$(app_line "$1" | cut -d" " -f1)" = "$3" ] && return 0
    sleep 1
    i=$((i + 1))
  done
  return 1
}

# Waits until app $1's group holds at least $2 MiB of anonymous memory, for what takes $3 seconds
# at host speed, so that an app is not frozen before it has touched all the memory it holds.
wait_for_anon() {
  limit=$(within "$3")
  i=0
  while [ "$i" -lt "$limit" ]; do
    group=$(app_group "$1")
    anon=$(awk '$1 == "anon" { print $2 }' "$group/memory.stat" 2>/dev/null)
    [ -n "$anon" ] && [ "$anon" -ge $(($2 << 20)) ] && return 0
    sleep 1
    i=$((i + 1))
  done
  return 1
}

# The cgroup2 directory of app $1 (found by name under the scope or the service).
app_group() {
  find /sys/fs/cgroup -type d -path "*/appwarden/$1" 2>/dev/null | head -1
}

# The kernel's OOM kills so far (global oom_kill count from /proc/vmstat).
kernel_oom_kills() {
  awk '$1 == "oom_kill" { print $2 }' /proc/vmstat
}

# Starts, in the background, a process outside appwarden that takes memory 10 MiB at a time until
# LEAVE MiB of MemAvailable are left, then holds it; $! is its pid.
hog_memory() { # hog_memory LEAVE
  python3 - "$1" <<'PY' &
import sys, time
def available():
    for line in open("/proc/meminfo"):
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) // 1024
target = available() - int(sys.argv[1])
held = []
while len(held) * 10 < target:
    held.append(b"\x01" * (10 << 20))
    time.sleep(0.2)
print("hog: holding", len(held) * 10, "MiB", flush=True)
time.sleep(3600)
PY
}
