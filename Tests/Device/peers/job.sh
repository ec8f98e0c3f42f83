#!/bin/sh
# device-timeout: 900
# device-benchmark
# The peers side by side on one workload: four apps (big 200 MiB, mid 120, small 60, and the
# foreground app front 40) and a process outside them that takes memory until 50 MiB are left.
# Each killer runs alone on a fresh workload: appwarden (the apps under it, three suspended),
# earlyoom, nohang, systemd-oomd (ManagedOOMMemoryPressure=kill on the apps' slice) and the
# kernel's OOM killer alone. Prints who was killed, whether the foreground app lived, and the
# kernel's OOM kills. A benchmark: it fails only when the workload itself cannot run.
. /job/lib.sh
install_appwarden /job/policy.toml
mkdir -p /etc/systemd/system/apps.slice.d
cat >/etc/systemd/system/apps.slice.d/oomd.conf <<'CONF'
[Slice]
ManagedOOMMemoryPressure=kill
ManagedOOMMemoryPressureLimit=20%
CONF
systemctl daemon-reload
leave=50
apps="big:200 mid:120 small:60 front:40"
results=/job/out/peers.txt
printf '%-14s %-22s %-8s %-6s %-10s %s\n' KILLER KILLED "FRONT" HOG "FIRST KILL" "KERNEL OOM KILLS" >"$results"

alive() { # alive NAME: whether the app (or the hog) still runs
  if [ "$mode" = appwarden ] && [ "$1" != hog ]; then
    [ "$(app_line "$1" | cut -d" " -f1)" != notRunning ]
  else
    systemctl is-active --quiet "w-$1.service"
  fi
}

run_workload() { # run_workload KILLER
  mode=$1
  step "workload under $mode"
  case "$mode" in
    appwarden)
      systemctl start appwarden
      wait_for_daemon 60 || fail "$mode: the daemon answers"
      for app in big mid small front; do appwarden open "$app"; done
      for app in big mid small; do wait_for_state "$app" 60 suspended || fail "$mode: $app suspended"; done
      ;;
    *)
      for spec in $apps; do
        systemd-run --quiet --unit="w-${spec%%:*}" --slice=apps.slice /opt/appwarden/bin/ballast --hold "${spec#*:}"
      done
      [ "$mode" = kernel ] || systemctl start "$mode"
      ;;
  esac
  sleep 8
  oom_before=$(kernel_oom_kills)
  started=$(date +%s)
  systemd-run --quiet --unit=w-hog --slice=apps.slice python3 /job/hog.py "$leave"
  first=""
  killed=""
  i=0
  while [ "$i" -lt 90 ]; do
    for name in big mid small front hog; do
      case " $killed " in *" $name "*) continue ;; esac
      if ! alive "$name"; then
        killed="$killed $name"
        [ -n "$first" ] || first=$(($(date +%s) - started))
      fi
    done
    sleep 1
    i=$((i + 1))
    # Once something was killed, give the killer 15 s more to finish.
    [ -n "$first" ] && [ $(($(date +%s) - started - first)) -ge 15 ] && break
  done
  front=alive
  case " $killed " in *" front "*) front=killed ;; esac
  hog=alive
  case " $killed " in *" hog "*) hog=killed ;; esac
  victims=$(echo $killed | sed 's/ hog//; s/^hog //; s/^hog$//')
  first_text="-"
  [ -n "$first" ] && first_text="$first s"
  printf '%-14s %-22s %-8s %-6s %-10s %s\n' "$mode" "${victims:--}" "$front" "$hog" "$first_text" \
    "$(($(kernel_oom_kills) - oom_before))" >>"$results"
  tail -1 "$results"
  # Reset for the next killer.
  systemctl stop w-hog.service 2>/dev/null
  systemctl reset-failed 'w-*' 2>/dev/null
  case "$mode" in
    appwarden)
      systemctl stop appwarden
      systemctl stop appwarden-apps.scope
      rm -rf /var/lib/appwarden
      ;;
    kernel) ;;
    *) systemctl stop "$mode" ;;
  esac
  for spec in $apps; do systemctl stop "w-${spec%%:*}" 2>/dev/null; done
  systemctl reset-failed 2>/dev/null
  sleep 3
}

for killer in appwarden earlyoom nohang systemd-oomd kernel; do
  run_workload "$killer"
done
echo "== peers on one workload (1 GiB guest, hog leaves ${leave} MiB of MemAvailable)"
cat "$results"
finish
