#!/usr/bin/env bash
# The peers side by side on the device as users have it: boots the device with a zram swap of half
# its RAM and a drive throttled to eMMC speed, runs the job in this folder (job.sh: each workload
# under appwarden with and without compress_suspended, earlyoom, nohang, systemd-oomd and the
# kernel alone), RUNS times, one boot per workload and run, and prints a table: per workload and
# killer the median of each figure over the runs and, where the runs differ, their range.
#
#   sudo bash scripts/device/jobs/peers/peers.sh                       # w1 and w2, 3 runs
#   sudo RUNS=1 WORKLOADS=w3 bash scripts/device/jobs/peers/peers.sh   # a day of use, once
#   sudo KILLERS="appwarden earlyoom" bash scripts/device/jobs/peers/peers.sh
#
# Environment: RUNS (default 3), WORKLOADS (default "w1 w2"; w2f is w2 with a runaway ten times as
# fast; w1b and w2b are w1 and w2 beside idle apps of 200 MiB instead of 120; w3 is the day of use, DAY_SECONDS long, default 600; w3m the same day with apps 1.3 times
# as large, w3h 1.6 times), KILLERS
# (default all six; appwarden-share, appwarden with the foreground app's fair_share at 360 MiB, and
# appwarden-least, appwarden with kill_order = "least_missed", on request), IDLE_APPS, IDLE_MIB, FRONT_MIB, FRONT_STEP, FRONT_INTERVAL and FRONT_BEFORE (w1's and w2's apps
# changed: see bench.py in this folder), FAIR_SHARE (appwarden's device-wide fair_share, e.g. 60%),
# APPWARDEN_DEVICE_DISK (default emmc), PEERS_LOG (a file that keeps every
# boot's whole output; default: a temporary one, removed).
# Needs what scripts/device/run.sh needs: root, qemu, the package and ballast built. Every boot's
# qemu and run folder are removed by run.sh; this script's own folder is removed on exit.
set -euo pipefail
cd "$(dirname "$0")/../../../.."

runs="${RUNS:-3}"
workloads="${WORKLOADS:-w1 w2}"
killers="${KILLERS:-appwarden appwarden-nocompress earlyoom nohang systemd-oomd kernel}"
export APPWARDEN_DEVICE_SWAP=zram APPWARDEN_DEVICE_DISK="${APPWARDEN_DEVICE_DISK:-emmc}"

work=$(mktemp -d /tmp/appwarden-peers.XXXXXX)
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
log="${PEERS_LOG:-$work/all.log}"
: >"$log"

for run_number in $(seq 1 "$runs"); do
  for workload in $workloads; do
    job="$work/job"
    rm -rf "$job"
    cp -r scripts/device/jobs/peers "$job"
    {
      echo "WORKLOADS=\"$workload\""
      echo "KILLERS=\"$killers\""
      echo "DAY_SECONDS=${DAY_SECONDS:-600}"
      for knob in IDLE_APPS IDLE_MIB FRONT_MIB FRONT_STEP FRONT_INTERVAL FRONT_BEFORE FAIR_SHARE; do
        [ -z "${!knob:-}" ] || echo "$knob=${!knob}"
      done
    } >"$job/peers.conf"
    echo "== run $run_number of $runs: $workload under $killers ($(date -u +%T))" >&2
    set +e
    bash scripts/device/run.sh "$job" >"$work/boot.log" 2>&1
    status=$?
    set -e
    cat "$work/boot.log" >>"$log"
    grep '^row: ' "$work/boot.log" | sed "s/^row: /row: run=$run_number /" >>"$work/rows" || true
    grep '^row: ' "$work/boot.log" >&2 || true
    [ "$status" -eq 0 ] || echo "== that boot ended with status $status (rows it printed are kept)" >&2
  done
done

[ -s "$work/rows" ] || {
  echo "peers.sh: no run printed a result; the output is in ${PEERS_LOG:-the log, removed}." >&2
  tail -40 "$log" >&2
  exit 1
}
python3 - "$work/rows" <<'PY'
import statistics
import sys

rows = []
for line in open(sys.argv[1]):
    rows.append(dict(field.split("=", 1) for field in line.split()[1:]))
columns = [
    ("lost", "apps lost"), ("cold", "cold launches"), ("front", "foreground app"),
    ("short_to_kill_s", "short→kill s"), ("lowest_mib", "lowest MemAvailable MiB"),
    ("oom_kills", "kernel OOM kills"), ("killer_majflt", "killer majflt in kills"),
    ("kill_majflt", "daemon majflt measurement→kill"),
    ("some_peak", "PSI some avg10 peak"), ("full_peak", "PSI full avg10 peak"),
    ("some_total_s", "some stall s"), ("full_total_s", "full stall s"), ("swap_peak_mib", "swap used MiB"),
]


def summary(values):
    numbers = []
    for value in values:
        try:
            numbers.append(float(value))
        except ValueError:
            numbers = None
            break
    if numbers:
        median = statistics.median(numbers)
        text = ("%g" % round(median, 1))
        if min(numbers) != max(numbers):
            text += " (%g–%g)" % (round(min(numbers), 1), round(max(numbers), 1))
        return text
    distinct = sorted(set(values))
    return "; ".join(distinct)


print("| workload | killer | runs | " + " | ".join(title for _, title in columns) + " | lost apps |")
print("| --- " * (len(columns) + 4) + "|")
seen = []
for row in rows:
    key = (row["workload"], row["killer"])
    if key not in seen:
        seen.append(key)
for workload, killer in seen:
    group = [r for r in rows if r["workload"] == workload and r["killer"] == killer]
    cells = [summary([r.get(key, "-") for r in group]) for key, _ in columns]
    lost = "; ".join(r.get("lost_apps", "-") for r in group)
    print("| %s | %s | %d | %s | %s |" % (workload, killer, len(group), " | ".join(cells), lost))
PY
