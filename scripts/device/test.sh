#!/usr/bin/env bash
# Runs every device test job (each folder under scripts/device/jobs with a job.sh, except
# benchmarks marked "# device-benchmark") in its own fresh boot of the device image, one machine at
# a time, and prints each job's result and duration. Benchmarks run by name or through run.sh.
#
#   sudo bash scripts/device/test.sh            # every job
#   sudo bash scripts/device/test.sh restart    # only the named jobs
set -euo pipefail
cd "$(dirname "$0")/../.."

jobs=()
if [ "$#" -gt 0 ]; then
  for name in "$@"; do jobs+=("scripts/device/jobs/$name"); done
else
  for dir in scripts/device/jobs/*/; do
    [ -f "$dir/job.sh" ] && ! grep -q '^# device-benchmark' "$dir/job.sh" && jobs+=("${dir%/}")
  done
fi
bash scripts/device/build-image.sh >/dev/null

results=()
failed=0
for job in "${jobs[@]}"; do
  echo "== device job $(basename "$job")"
  started=$(date +%s)
  set +e
  bash scripts/device/run.sh "$job"
  status=$?
  set -e
  took=$(($(date +%s) - started))
  if [ "$status" -eq 0 ]; then
    results+=("passed  ${took} s  $(basename "$job")")
  else
    results+=("FAILED  ${took} s  $(basename "$job") (exit $status)")
    failed=1
  fi
done
echo "== device jobs"
printf '%s\n' "${results[@]}"
exit "$failed"
