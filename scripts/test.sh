#!/usr/bin/env bash
# Sets everything up and runs the whole test suite: lint, a warnings-as-errors build, the
# unit, scenario and real-cgroup tests, end-to-end checks of the built command, and short
# fixed-seed fuzz runs of the policy, scenario and push-payload parsers, of scenario replay and
# of the control API (scripts/fuzz.sh, scripts/fuzz-api.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh

echo "== lint"
swift format lint --strict --recursive Sources Tests Package.swift

echo "== build (warnings are errors)"
swift build --build-tests -Xswiftc -warnings-as-errors

echo "== tests"
swift test --skip-build --no-parallel

echo "== end-to-end: the command"
bin="$(swift build --show-bin-path)/appwarden"
for policy in policies/default.toml policies/demo.toml; do
  "$bin" policy check "$policy"
done
"$bin" simulate --quiet scenarios/demo.toml
for scenario in Tests/Scenarios/*.toml; do
  "$bin" simulate --quiet "$scenario" >/dev/null || { echo "scenario failed: $scenario" >&2; exit 1; }
done
set +e
"$bin" policy check Tests/Policies/broken.toml >/dev/null 2>&1; rc=$?
set -e
[ "$rc" -eq 1 ] || { echo "policy check on a broken policy exited $rc, expected 1" >&2; exit 1; }

if [ "$(id -u)" -eq 0 ]; then
  echo "== example app: Examples/NotesApp, depending on appwarden by path, built and run under a daemon"
  bash scripts/example-app.sh
else
  echo "== example app skipped (it runs a daemon on real cgroups: run as root)"
fi

echo "== crash consistency: serve killed with SIGKILL under load (see RELIABILITY.md)"
python3 scripts/crash-test.py --kills "${APPWARDEN_CRASH_KILLS:-5}" --seed 1 \
  --appwarden "$bin" --ballast "$(dirname "$bin")/ballast"

echo "== fuzz smoke: policy, scenario and push-payload parsers, scenario replay (libFuzzer, fixed seed)"
bash scripts/fuzz.sh --smoke FuzzPolicy FuzzScenario FuzzSimulation FuzzPushPayload
if [ "$(id -u)" -eq 0 ]; then
  echo "== fuzz smoke: control API against a real daemon (schemathesis, fixed seed)"
  bash scripts/fuzz-api.sh --smoke
else
  echo "== fuzz smoke: control API skipped (it runs a daemon on real cgroups: run as root)"
fi

left=$(find /sys/fs/cgroup -maxdepth 4 -type d \( -name '*appwarden-test*' -o -name 'appwarden-fuzz-*' \) 2>/dev/null | head -5)
if [ -n "$left" ]; then
  echo "tests left cgroups behind:" >&2
  echo "$left" >&2
  exit 1
fi
echo "== all checks passed"
