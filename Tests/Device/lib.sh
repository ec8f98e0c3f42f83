# Shell functions for device jobs; sourced by each Tests/Device/*/job.sh inside the guest.
# The guest mounts the host's binaries at /opt/appwarden/bin and the job folder at /job.

failures=0
step() { echo "== $*"; }
pass() { echo "ok: $*"; }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
check() { # check DESCRIPTION COMMAND...: passes when the command succeeds
  description=$1
  shift
  if "$@"; then pass "$description"; else fail "$description"; fi
}
finish() {
  if [ "$failures" -eq 0 ]; then
    echo "== all checks passed"
    exit 0
  fi
  echo "== $failures check(s) failed"
  exit 1
}

# Installs the binaries, the policy given as $1 and contrib/appwarden.service, as an operator would.
install_appwarden() {
  ln -sf /opt/appwarden/bin/appwarden /usr/local/bin/appwarden
  ln -sf /opt/appwarden/bin/ballast /usr/local/bin/ballast
  mkdir -p /etc/appwarden
  cp "$1" /etc/appwarden/policy.toml
  cp /job/appwarden.service /etc/systemd/system/appwarden.service
  systemctl daemon-reload
}

# Waits up to $1 seconds for the daemon's socket to answer.
wait_for_daemon() {
  i=0
  while [ "$i" -lt "$1" ]; do
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

# Waits up to $2 seconds for app $1 to reach state $3.
wait_for_state() {
  i=0
  while [ "$i" -lt "$2" ]; do
    [ "$(app_line "$1" | cut -d" " -f1)" = "$3" ] && return 0
    sleep 1
    i=$((i + 1))
  done
  return 1
}

# Waits up to $3 seconds until app $1's group holds at least $2 MiB of anonymous memory, so that
# an app is not frozen before it has touched all the memory it holds (the guest is slow).
wait_for_anon() {
  i=0
  while [ "$i" -lt "$3" ]; do
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
