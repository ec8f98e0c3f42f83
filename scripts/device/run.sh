#!/usr/bin/env bash
# Boots the device image and runs one job in it as a systemd unit; exits with the job's status.
#
#   sudo bash scripts/device/run.sh scripts/device/jobs/pressure  # a folder holding job.sh
#   sudo bash scripts/device/run.sh scripts/device/jobs/peers     # a benchmark ("# device-benchmark")
#
# The jobs are the folders under scripts/device/jobs that hold a job.sh, beside the lib.sh they
# all source; JOB is a path from the repository's root. A name that is neither lists them.
#
# The job folder is copied to a fresh shared folder, mounted read-write at /job in the guest;
# /job/job.sh runs as the unit device-job.service and its output lands in /job/out/log, printed
# here when the machine has powered off. The device has no Swift: appwarden comes as its Debian
# package (APPWARDEN_DEB, default the newest .build-release/appwarden_*.deb that
# scripts/package.sh built), copied to /job/packages for the job to install with apt, and the
# test workload ballast, a static build too (scripts/build-static.sh ballast; APPWARDEN_BIN_DIR,
# default .build-release's release folder), is shared read-only at /opt/appwarden/bin.
#
# The guest runs with KVM only where the CPU has hardware virtualization (vmx or svm) and no
# paravirtual KVM module is in the way; otherwise with QEMU's software CPU (TCG), 10 to 40 times
# slower than the host. Time limits come from measured speed, not guesses: the job times 200
# fork+exec of /bin/true in the guest when it starts (scripts/device/jobs/lib.sh) and writes the
# slowdown, that time against the 100 ms of an unloaded host, to /job/out/speed. The job's waits
# scale with it, and so does this script's hard limit: a job states its running time at host
# speed with a line "# device-timeout: SECONDS" (default 30), and may run for that times the
# slowdown plus 120 s, at most 1500 s (3600 s for a "# device-benchmark" job, which CI does not
# run), so that a hung job cannot hold CI for long. Booting may
# take the boot budget (300 s under TCG, 120 s with KVM). Past either limit qemu is killed and the
# script exits 124. This script also times the same loop on the host (/job/host-calibration-ms)
# and prints the ratio. Whatever happens, qemu is killed if still running and the run folder is
# removed on exit.
#
# The device comes in two memory configurations and two drives, chosen per job: a line
# "# device-swap: zram" in job.sh gives it a zram swap of half its RAM (lz4, priority 100, as
# Debian's zram-tools sets one up; the swap most small devices run with), "none" (the default)
# no swap at all; "# device-disk: emmc" throttles its drive to eMMC-like speed (qemu's
# throttling.bps-total, 20 MB/s read and write together), "fast" (the default) leaves it as fast
# as the host's. APPWARDEN_DEVICE_SWAP and APPWARDEN_DEVICE_DISK override both lines. The choice
# is written to /job/device.conf, and scripts/device/jobs/lib.sh sets the swap up before the
# job's first step; the job's output starts with the configuration.
#
# Environment: APPWARDEN_DEVICE_MEMORY (MiB, default 1024), APPWARDEN_DEVICE_CPUS (default 2),
# APPWARDEN_DEVICE_SWAP (zram or none), APPWARDEN_DEVICE_DISK (emmc or fast),
# APPWARDEN_DEVICE_DISK_BPS (the emmc drive's bytes per second, default 20000000),
# APPWARDEN_DEVICE_KEEP=1 keeps the run folder (console log, job output) for inspection.
set -euo pipefail
cd "$(dirname "$0")/../.."

job="${1:-}"
if [ -z "$job" ] || { [ ! -f "$job/job.sh" ] && [ ! -f "$job" ]; }; then
  known=""
  for found in scripts/device/jobs/*/job.sh; do known="$known ${found%/job.sh}"; done
  echo "usage: run.sh JOB, where JOB is a folder holding job.sh (such as" \
    "scripts/device/jobs/pressure) or a job script; \"$job\" is neither. The jobs:$known." >&2
  exit 2
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "run.sh needs root (the image cache and qemu's 9p shares of root-owned folders)." >&2
  exit 2
fi
command -v qemu-system-x86_64 >/dev/null 2>&1 || {
  echo "run.sh needs qemu-system-x86_64; install it with: apt-get install qemu-system-x86" >&2
  exit 2
}
bin_dir="${APPWARDEN_BIN_DIR:-.build-release/$(uname -m)-unknown-linux-gnu/release}"
[ -x "$bin_dir/ballast" ] || {
  echo "run.sh needs ballast built in \"$bin_dir\"; build it with: bash scripts/build-static.sh ballast" \
    "(or set APPWARDEN_BIN_DIR)." >&2
  exit 2
}
if ldd "$bin_dir/ballast" | grep -q 'libswift'; then
  echo "run.sh: \"$bin_dir/ballast\" loads the Swift runtime, which the device does not have;" \
    "build it with: bash scripts/build-static.sh ballast" >&2
  exit 2
fi
deb="${APPWARDEN_DEB:-$(ls -t .build-release/appwarden_*.deb 2>/dev/null | head -1)}"
[ -n "$deb" ] && [ -f "$deb" ] || {
  echo "run.sh needs appwarden's Debian package; build it with: bash scripts/package.sh" \
    "(or set APPWARDEN_DEB)." >&2
  exit 2
}

image=$(bash scripts/device/build-image.sh)

run=$(mktemp -d /tmp/appwarden-device.XXXXXX)
qemu_pid=""
cleanup() {
  if [ -n "$qemu_pid" ] && kill -0 "$qemu_pid" 2>/dev/null; then
    kill -KILL "$qemu_pid" 2>/dev/null || true
    wait "$qemu_pid" 2>/dev/null || true
  fi
  if [ "${APPWARDEN_DEVICE_KEEP:-0}" = 1 ]; then
    echo "== run folder kept: $run" >&2
  else
    rm -rf "$run"
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mkdir -p "$run/job"
if [ -d "$job" ]; then
  cp -r "$job/." "$run/job/"
else
  cp "$job" "$run/job/job.sh"
fi
# The shell functions every job sources, and the package the jobs install.
cp scripts/device/jobs/lib.sh "$run/job/lib.sh"
mkdir -p "$run/job/packages"
cp "$deb" "$run/job/packages/"
chmod +x "$run/job/job.sh"
rm -rf "$run/job/out"

# Hardware KVM only: a paravirtual KVM (kvm_pvm) answers on /dev/kvm but cannot boot a stock kernel.
accel=(-accel tcg,thread=multi -cpu max)
boot_budget=300
if [ -w /dev/kvm ] && grep -qE '\b(vmx|svm)\b' /proc/cpuinfo && [ ! -d /sys/module/kvm_pvm ]; then
  accel=(-accel kvm -cpu host)
  boot_budget=120
fi
declared=$(sed -n 's/^# device-timeout: *\([0-9]*\).*/\1/p' "$run/job/job.sh" | head -1)
declared=${declared:-30}
cap=1500
grep -q '^# device-benchmark' "$run/job/job.sh" && cap=3600
# The host's side of the speed measurement; the guest runs the same loop with the same shell.
calibration_start=$(date +%s%N)
sh -c 'i=0; while [ "$i" -lt 200 ]; do /bin/true; i=$((i + 1)); done'
host_ms=$((($(date +%s%N) - calibration_start) / 1000000))
[ "$host_ms" -lt 1 ] && host_ms=1
echo "$host_ms" >"$run/job/host-calibration-ms"
limit=$boot_budget

memory="${APPWARDEN_DEVICE_MEMORY:-1024}"
cpus="${APPWARDEN_DEVICE_CPUS:-2}"
swap_line=$(sed -n 's/^# device-swap: *\([a-z]*\).*/\1/p' "$run/job/job.sh" | head -1)
disk_line=$(sed -n 's/^# device-disk: *\([a-z]*\).*/\1/p' "$run/job/job.sh" | head -1)
swap="${APPWARDEN_DEVICE_SWAP:-${swap_line:-none}}"
disk="${APPWARDEN_DEVICE_DISK:-${disk_line:-fast}}"
case "$swap" in zram | none) ;; *)
  echo "run.sh: the device's swap is \"zram\" or \"none\", not \"$swap\"." >&2
  exit 2
  ;;
esac
drive="file=$image/rootfs.img,if=virtio,format=raw,snapshot=on"
case "$disk" in
  fast) ;;
  emmc)
    disk_bps="${APPWARDEN_DEVICE_DISK_BPS:-20000000}"
    drive+=",throttling.bps-total=$disk_bps"
    ;;
  *)
    echo "run.sh: the device's drive is \"emmc\" or \"fast\", not \"$disk\"." >&2
    exit 2
    ;;
esac
printf 'swap=%s\ndisk=%s\n' "$swap" "$disk" >"$run/job/device.conf"
append="root=/dev/vda rw console=ttyS0 panic=-1 cgroup_no_v1=all systemd.unified_cgroup_hierarchy=1 psi=1"
append+=" systemd.show_status=false loglevel=4"

echo "== booting ($(basename "$image"), $(basename "$deb"), ${accel[1]}, ${cpus} CPUs, ${memory} MiB, swap $swap, drive $disk, boot budget ${limit} s;" \
  "200 fork+exec take ${host_ms} ms on the host)" >&2
started=$(date +%s)
nice -n 19 ionice -c3 qemu-system-x86_64 \
  -machine q35 "${accel[@]}" -smp "$cpus" -m "$memory" \
  -display none -monitor none -nic none -serial "file:$run/console.log" -no-reboot \
  -kernel "$image/vmlinuz" -initrd "$image/initrd.img" -append "$append" \
  -drive "$drive" \
  -virtfs "local,path=$(realpath "$bin_dir"),mount_tag=bin,security_model=none,readonly=on" \
  -virtfs "local,path=$run/job,mount_tag=job,security_model=none" \
  >"$run/qemu.log" 2>&1 &
qemu_pid=$!

timed_out=0
job_started=""
slowdown=""
while kill -0 "$qemu_pid" 2>/dev/null; do
  now=$(date +%s)
  if [ -z "$job_started" ] && grep -q 'device-job: starting' "$run/console.log" 2>/dev/null; then
    job_started=$now
    echo "== booted in $((now - started)) s; job running" >&2
  fi
  if [ -n "$job_started" ] && [ -z "$slowdown" ] && [ -s "$run/job/out/speed" ]; then
    read -r slowdown guest_ms _ <"$run/job/out/speed" || true
    if [ -n "$slowdown" ] && [ "$slowdown" -ge 1 ] 2>/dev/null; then
      job_limit=$((declared * slowdown + 120))
      [ "$job_limit" -gt "$cap" ] && job_limit=$cap
      limit=$((now - started + job_limit))
      echo "== guest slowdown ${slowdown}x (200 fork+exec: ${guest_ms} ms here, ${host_ms} ms on the host," \
        "$((guest_ms / host_ms))x); job limit ${job_limit} s" >&2
    else
      slowdown=""
    fi
  fi
  # A job that does not measure (it does not source lib.sh) is taken to be 100 times slower.
  if [ -n "$job_started" ] && [ -z "$slowdown" ] && [ $((now - job_started)) -ge 120 ]; then
    slowdown=100
    job_limit=$((declared * slowdown + 120))
    [ "$job_limit" -gt "$cap" ] && job_limit=$cap
    limit=$((job_started - started + job_limit))
    echo "== the job wrote no /job/out/speed; job limit ${job_limit} s" >&2
  fi
  if [ $((now - started)) -ge "$limit" ]; then
    timed_out=1
    echo "== stopping the machine after $((now - started)) s (limit $limit s; job started: $([ -n "$job_started" ] && echo yes || echo no))" >&2
    kill -KILL "$qemu_pid" 2>/dev/null || true
    break
  fi
  sleep 1
done
wait "$qemu_pid" 2>/dev/null || true
qemu_pid=""
ended=$(date +%s)

if [ -f "$run/job/out/log" ]; then
  cat "$run/job/out/log"
fi
if [ "$timed_out" = 1 ]; then
  echo "== console (last 40 lines):" >&2
  tail -40 "$run/console.log" >&2 || true
  exit 124
fi
if [ ! -f "$run/job/out/status" ]; then
  echo "== the machine stopped without a job status; console (last 40 lines):" >&2
  tail -40 "$run/console.log" >&2 || true
  cat "$run/qemu.log" >&2 || true
  exit 125
fi
status=$(cat "$run/job/out/status")
echo "== job exited $status; total $((ended - started)) s, job $((ended - ${job_started:-$started})) s" >&2
exit "$status"
