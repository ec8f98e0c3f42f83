#!/usr/bin/env bash
# Coverage-guided fuzzing (libFuzzer) of the parsers that read outside input: policy TOML,
# scenario TOML (parsed only, and parsed then replayed in virtual time) and silent-push JSON.
# Each target must never crash, never hang and, when it refuses an input, name the problem.
#
#   bash scripts/fuzz.sh                 # 10 minutes per target (FUZZ_SECONDS to change)
#   bash scripts/fuzz.sh --smoke         # a short, fixed-seed run of each (CI)
#   bash scripts/fuzz.sh [--smoke] FuzzPolicy ...   # only the named targets (FuzzPolicy,
#                                                    # FuzzScenario, FuzzSimulation, FuzzPushPayload)
#
# Builds the Fuzz/ package in release mode with -sanitize=fuzzer into .build-fuzz. Seeds come
# from policies/, Tests/Policies, scenarios/,
# Tests/Scenarios, Fuzz/Corpus/toml (inputs that once crashed) and Fuzz/Corpus/push; the TOML
# targets use Fuzz/toml.dict. A crashing,
# hanging (-timeout) or memory-exhausting (-rss_limit_mb) input is written to
# .build-fuzz/artifacts/TARGET/ and the script exits 1.
#
# The timed runs of the TOML targets use libFuzzer's fork mode, whose short-lived children
# start afresh (needed while the TOML library of the time leaked every parsed document); an
# out-of-memory input in a child still stops the run (-ignore_ooms=0).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh

smoke=false
targets=()
for arg in "$@"; do
  case "$arg" in
    --smoke) smoke=true ;;
    FuzzPolicy | FuzzScenario | FuzzSimulation | FuzzPushPayload) targets+=("$arg") ;;
    *) echo "fuzz.sh: unknown argument \"$arg\" (expected --smoke, FuzzPolicy, FuzzScenario, FuzzSimulation or FuzzPushPayload)." >&2; exit 2 ;;
  esac
done
[ "${#targets[@]}" -gt 0 ] || targets=(FuzzPolicy FuzzScenario FuzzSimulation FuzzPushPayload)

scratch="$PWD/.build-fuzz"
# Swift's own crash reporter would catch the signal first; libFuzzer's must, to save the input.
export SWIFT_BACKTRACE=enable=no
echo "== fuzz: build (release, -sanitize=fuzzer)"
# A failed build stops here, so that stale binaries are never run.
if ! (cd Fuzz && swift build -c release --scratch-path "$scratch" \
  -Xswiftc -sanitize=fuzzer -Xswiftc -use-ld=lld \
  -Xcc -fsanitize=fuzzer-no-link -Xcxx -fsanitize=fuzzer-no-link 2>&1 |
  { grep -v -e 'unhandled; explicitly declare' -e '/CMakeLists.txt$' || true; }); then
  echo "fuzz.sh: the fuzz targets did not build (the compiler's errors are above)." >&2
  exit 1
fi
bin="$scratch/release"

seeds() {
  case "$1" in
    FuzzPolicy) echo policies/*.toml Tests/Policies/*.toml Fuzz/Corpus/toml/* ;;
    FuzzScenario | FuzzSimulation) echo scenarios/*.toml Tests/Scenarios/*.toml Fuzz/Corpus/toml/* ;;
    FuzzPushPayload) echo Fuzz/Corpus/push/* ;;
  esac
}

# Smoke runs count executions from a fixed seed on a fresh copy of the seeds, so they
# explore the same inputs on every machine; the counts give about 20 s per target.
smoke_runs() {
  case "$1" in
    FuzzPolicy) echo 60000 ;;
    FuzzScenario) echo 40000 ;;
    FuzzSimulation) echo 40000 ;;
    FuzzPushPayload) echo 2000000 ;;
  esac
}

status=0
for target in "${targets[@]}"; do
  [ -x "$bin/$target" ] || { echo "fuzz.sh: $bin/$target was not built." >&2; exit 1; }
  artifacts="$scratch/artifacts/$target"
  mkdir -p "$artifacts"
  common=(-timeout=10 -rss_limit_mb=2048 -max_len=8192 -print_final_stats=1 -artifact_prefix="$artifacts/")
  [ "$target" = FuzzPushPayload ] || common+=(-dict=Fuzz/toml.dict)
  if $smoke; then
    corpus=$(mktemp -d)
    # shellcheck disable=SC2046
    cp $(seeds "$target") "$corpus/"
    echo "== fuzz smoke: $target ($(smoke_runs "$target") runs, seed 1)"
    set +e
    "$bin/$target" "${common[@]}" -seed=1 -runs="$(smoke_runs "$target")" "$corpus" >"$artifacts/smoke.log" 2>&1
    rc=$?
    set -e
    rm -rf "$corpus"
  else
    corpus="$scratch/corpus/$target"
    mkdir -p "$corpus"
    # shellcheck disable=SC2046
    cp $(seeds "$target") "$corpus/"
    seconds="${FUZZ_SECONDS:-600}"
    echo "== fuzz: $target for ${seconds}s (corpus $corpus)"
    set +e
    fork=()
    [ "$target" = FuzzPushPayload ] || fork=(-fork=1 -ignore_ooms=0 -ignore_timeouts=0 -ignore_crashes=0)
    "$bin/$target" "${common[@]}" "${fork[@]}" -max_total_time="$seconds" "$corpus" >"$artifacts/run.log" 2>&1
    rc=$?
    set -e
  fi
  log="$artifacts/$($smoke && echo smoke || echo run).log"
  grep -E 'DONE|^stat::number_of_executed_units|^stat::peak_rss_mb' "$log" | sed 's/^/   /' || true
  grep -E '^#[0-9]+: cov:' "$log" | tail -1 | sed 's/^/   /' || true
  if [ "$rc" -ne 0 ]; then
    echo "fuzz.sh: $target failed (exit $rc); the input is in $artifacts/, the log in $log:" >&2
    grep -E -A3 'ERROR: libFuzzer|Fatal error|==ERROR|Test unit written' "$log" | head -20 >&2 || true
    status=1
  fi
done
exit "$status"
