#!/bin/sh
# device-timeout: 20
# device-benchmark
# The peers side by side on one workload: three idle apps (big 200 MiB, mid 120, small 60) and
# the foreground app front, which grows in 10 MiB steps whenever more than 20 MiB of MemAvailable
# are left (front.py), so it takes back whatever a killer frees until the device is short again.
# Each killer runs alone on a fresh workload: appwarden (the apps are its apps, the idle ones
# suspended), earlyoom, nohang (both with Debian's configuration), systemd-oomd
# (ManagedOOMMemoryPressure=kill on the apps' slice) and the kernel's OOM killer alone. Prints
# who was killed in what order, whether front lived, when memory became short (MemAvailable under
# 200 MiB, appwarden's critical_enter) after front started, the first kill after that, the
# lowest MemAvailable seen and the kernel's OOM kills. A benchmark: it fails only when the
# workload itself cannot run. Times are sampled about once a second (slower in a slow guest).
. /job/lib.sh
install_appwarden /job/policy.toml
mkdir -p /etc/systemd/system/apps.slice.d
cat >/etc/systemd/system/apps.slice.d/oomd.conf <<'CONF'
[Slice]
ManagedOOMMemoryPressure=kill
ManagedOOMMemoryPressureLimit=20%
CONF
systemctl daemon-reload
short_mib=200
idle="big:200 mid:120 small:60"
# Long enough for front to grow to the device's end (in real time, with a share for slowness).
watch=$(($(within 1) / 4 + 90))
results=/job/out/peers.txt
printf '%-13s %-20s %-7s %-9s %-11s %-10s %s\n' KILLER "KILLED (ORDER)" FRONT "SHORT AT" "FIRST KILL" "LOWEST" \
  "KERNEL OOM KILLS" >"$results"

available_mib() { awk '$1 == "MemAvailable:" { print int($2 / 1024) }' /proc/meminfo; }

# Prints the names of the apps still running, one status call for all of them.
running() {
  if [ "$mode" = appwarden ]; then
    appwarden status 2>/dev/null | awk 'NR > 1 && $2 != "notRunning" { print $1 }'
  else
    for name in big mid small front; do
      systemctl is-active --quiet "w-$name.service" && echo "$name"
    done
  fi
}

run_workload() { # run_workload KILLER
  mode=$1
  step "workload under $mode"
  case "$mode" in
    appwarden)
      systemctl start appwarden
      wait_for_daemon 5 || fail "$mode: the daemon answers"
      for spec in $idle; do
        appwarden open "${spec%%:*}"
        wait_for_anon "${spec%%:*}" "${spec#*:}" 5 || fail "$mode: ${spec%%:*} holds its memory"
      done
      appwarden open front
      for spec in $idle; do wait_for_state "${spec%%:*}" 5 suspended || fail "$mode: ${spec%%:*} suspended"; done
      ;;
    *)
      for spec in $idle; do
        systemd-run --quiet --unit="w-${spec%%:*}" --slice=apps.slice /opt/appwarden/bin/ballast --hold "${spec#*:}"
      done
      sleep 8
      [ "$mode" = kernel ] || systemctl start "$mode"
      systemd-run --quiet --unit=w-front --slice=apps.slice python3 /job/front.py 20
      ;;
  esac
  oom_before=$(kernel_oom_kills)
  started=$(date +%s)
  short=""
  first=""
  killed=""
  lowest=$(available_mib)
  i=0
  while [ $(($(date +%s) - started)) -lt "$watch" ]; do
    now=$(($(date +%s) - started))
    free=$(available_mib)
    [ "$free" -lt "$lowest" ] && lowest=$free
    [ -z "$short" ] && [ "$free" -lt "$short_mib" ] && short=$now
    alive=" $(running | tr '\n' ' ') "
    for name in big mid small front; do
      case " $killed " in *" $name "*) continue ;; esac
      case "$alive" in *" $name "*) ;; *)
        killed="$killed $name"
        [ -n "$first" ] || first=$now
        ;;
      esac
    done
    # Once front is done growing and something was killed, give the killer 20 s more.
    [ -n "$first" ] && [ $((now - first)) -ge 20 ] && break
    sleep 1
  done
  front=alive
  case " $killed " in *" front "*) front=killed ;; esac
  short_text="-"
  [ -n "$short" ] && short_text="$short s"
  first_text="-"
  [ -n "$first" ] && first_text="+$((first - ${short:-0})) s"
  victims=$(echo $killed | tr ' ' ,)
  printf '%-13s %-20s %-7s %-9s %-11s %-10s %s\n' "$mode" "${victims:--}" "$front" "$short_text" "$first_text" \
    "$lowest MiB" "$(($(kernel_oom_kills) - oom_before))" >>"$results"
  tail -1 "$results"
  # Reset for the next killer.
  case "$mode" in
    appwarden)
      systemctl stop appwarden
      systemctl stop appwarden-apps.scope
      rm -rf /var/lib/appwarden
      ;;
    kernel) ;;
    *) systemctl stop "$mode" ;;
  esac
  for name in big mid small front; do systemctl stop "w-$name" 2>/dev/null; done
  systemctl reset-failed 2>/dev/null
  sleep 3
}

for killer in appwarden earlyoom nohang systemd-oomd kernel; do
  run_workload "$killer"
done
echo "== peers on one workload (1 GiB guest, no swap; front grows while more than 20 MiB are left; short: under ${short_mib} MiB)"
cat "$results"
finish
