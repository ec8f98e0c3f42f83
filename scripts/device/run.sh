#!/usr/bin/env bash
# Boots the device image and runs one job in it as a systemd unit; exits with the job's status.
#
#   sudo bash scripts/device/run.sh Tests/Device/lifecycle      # a folder holding job.sh
#
# The job folder is copied to a fresh shared folder, mounted read-write at /job in the guest;
# /job/job.sh runs as the unit device-job.service and its output lands in /job/out/log, printed
# here when the machine has powered off. The host-built binaries (APPWARDEN_BIN_DIR, default
# .build/debug: appwarden, ballast) are shared read-only at /opt/appwarden/bin and the Swift
# runtime at the same path as on the host, so the binaries run unchanged.
#
# The guest runs with KVM only where the CPU has hardware virtualization (vmx or svm) and no
# paravirtual KVM module is in the way; otherwise with QEMU's software CPU (TCG), 10 to 40 times
# slower than the host. A job states its own time in guest seconds with a line
# "# device-timeout: SECONDS" (default 300); the hard limit is the boot budget plus that time
# times the slowdown factor, after which qemu is killed and the script exits 124.
#
# Environment: APPWARDEN_DEVICE_MEMORY (MiB, default 1024), APPWARDEN_DEVICE_CPUS (default 2),
# APPWARDEN_DEVICE_KEEP=1 keeps the run folder (console log, job output) for inspection.
set -euo pipefail
cd "$(dirname "$0")/../.."

job="${1:-}"
if [ -z "$job" ] || { [ ! -f "$job/job.sh" ] && [ ! -f "$job" ]; }; then
  echo "usage: run.sh JOB, where JOB is a folder holding job.sh or a job script; \"$job\" is neither." >&2
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
bin_dir="${APPWARDEN_BIN_DIR:-.build/debug}"
for tool in appwarden ballast; do
  [ -x "$bin_dir/$tool" ] || {
    echo "run.sh needs the built $tool in \"$bin_dir\"; build first (swift build) or set APPWARDEN_BIN_DIR." >&2
    exit 2
  }
done
swift_runtime=/opt/swift/usr/lib/swift/linux
[ -d "$swift_runtime" ] || {
  echo "run.sh shares the Swift runtime from \"$swift_runtime\", which does not exist here." >&2
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
# The shell functions every job sources, and the unit file the jobs install.
cp Tests/Device/lib.sh "$run/job/lib.sh"
cp contrib/appwarden.service "$run/job/appwarden.service"
chmod +x "$run/job/job.sh"
rm -rf "$run/job/out"

# Hardware KVM only: a paravirtual KVM (kvm_pvm) answers on /dev/kvm but cannot boot a stock kernel.
accel=(-accel tcg,thread=multi -cpu max)
slowdown=40
if [ -w /dev/kvm ] && grep -qE '\b(vmx|svm)\b' /proc/cpuinfo && [ ! -d /sys/module/kvm_pvm ]; then
  accel=(-accel kvm -cpu host)
  slowdown=2
fi
declared=$(sed -n 's/^# device-timeout: *\([0-9]*\).*/\1/p' "$run/job/job.sh" | head -1)
declared=${declared:-300}
boot_budget=$((slowdown * 6))
[ "$boot_budget" -lt 60 ] && boot_budget=60
# TCG boots in 15-40 s here; the job's own seconds are guest seconds at real clock speed, but
# work inside takes longer, so allow a share of the slowdown on top.
limit=$((boot_budget + declared + declared * slowdown / 8))

memory="${APPWARDEN_DEVICE_MEMORY:-1024}"
cpus="${APPWARDEN_DEVICE_CPUS:-2}"
append="root=/dev/vda rw console=ttyS0 panic=-1 cgroup_no_v1=all systemd.unified_cgroup_hierarchy=1 psi=1"
append+=" systemd.show_status=false loglevel=4"

echo "== booting ($(basename "$image"), ${accel[1]}, ${cpus} CPUs, ${memory} MiB, limit ${limit} s)" >&2
started=$(date +%s)
nice -n 19 ionice -c3 qemu-system-x86_64 \
  -machine q35 "${accel[@]}" -smp "$cpus" -m "$memory" \
  -display none -monitor none -serial "file:$run/console.log" -no-reboot \
  -kernel "$image/vmlinuz" -initrd "$image/initrd.img" -append "$append" \
  -drive "file=$image/rootfs.img,if=virtio,format=raw,snapshot=on" \
  -virtfs "local,path=$swift_runtime,mount_tag=swift,security_model=none,readonly=on" \
  -virtfs "local,path=$(realpath "$bin_dir"),mount_tag=bin,security_model=none,readonly=on" \
  -virtfs "local,path=$run/job,mount_tag=job,security_model=none" \
  >"$run/qemu.log" 2>&1 &
qemu_pid=$!

timed_out=0
job_started=""
while kill -0 "$qemu_pid" 2>/dev/null; do
  now=$(date +%s)
  if [ -z "$job_started" ] && grep -q 'device-job: starting' "$run/console.log" 2>/dev/null; then
    job_started=$now
    echo "== booted in $((now - started)) s; job running" >&2
  fi
  if [ $((now - started)) -ge "$limit" ]; then
    timed_out=1
    echo "== the job did not finish within $limit s; stopping the machine" >&2
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
