#!/usr/bin/env bash
# Writes scripts/link-order.txt, the order in which the static release build of appwarden lays out
# its functions (lld's --symbol-ordering-file, in scripts/build-static.sh): the functions the
# daemon runs after it lets go of the pages its start-up and its boot ran (a measurement, the
# checkpoint's save, the rehearsed kill; then launches, suspensions, requests, a memory kill at a
# level change) first, then those only start-up and the boot run, then, by the linker's own
# order, the rest.
#
#   bash scripts/link-order.sh [APPWARDEN [BALLAST]]
#
# Why: the daemon locks the pages of code it has run (DaemonMemory.lockTouchedPages), and the
# kernel maps a page of code together with its neighbours in the same 64 KiB window (fault-around),
# so the lock holds whole windows. With the functions that run together laid out together, those
# windows are few. An entry the code no longer has is skipped by the linker; run this again after
# large changes and compare the locked figure of the served benchmark (BENCHMARKS.md).
#
# How: the given build (default .build-release/release/appwarden, with ballast and appwarden-relay
# beside it; scripts/build-static.sh appwarden ballast) runs `serve` under valgrind's callgrind
# with 20 apps of ballast, as root (cgroups), in a folder of its own, removed with every app and
# group at the end. callgrind dumps what ran before the daemon lets go of its start-up pages
# apart from what ran after. Needs valgrind (apt-get install valgrind). Takes a few minutes.
set -euo pipefail
cd "$(dirname "$0")/.."

appwarden="${1:-.build-release/release/appwarden}"
ballast="${2:-$(dirname "$appwarden")/ballast}"
for program in "$appwarden" "$ballast" "$(dirname "$appwarden")/appwarden-relay"; do
  [ -x "$program" ] || {
    echo "link-order.sh: $program is missing; build it with: bash scripts/build-static.sh appwarden ballast" >&2
    exit 2
  }
done
command -v valgrind >/dev/null 2>&1 || {
  echo "link-order.sh needs valgrind: apt-get install valgrind" >&2
  exit 2
}
[ "$(id -u)" -eq 0 ] || {
  echo "link-order.sh needs root: the daemon makes cgroups" >&2
  exit 2
}
relay="$(dirname "$appwarden")/appwarden-relay"
ballast=$(readlink -f "$ballast")

work=$(mktemp -d /tmp/appwarden-link-order.XXXXXX)
# valgrind cannot read the DWARF 5 of the build's debug information; the symbol table is enough.
mkdir "$work/bin"
strip --strip-debug -o "$work/bin/appwarden" "$appwarden"
cp "$relay" "$work/bin/appwarden-relay"
appwarden="$work/bin/appwarden"
socket="$work/control.sock"
root="appwarden-link-order-$$"
daemon=""
cleanup() {
  if [ -n "$daemon" ] && kill -0 "$daemon" 2>/dev/null; then
    kill -TERM "$daemon" 2>/dev/null || true
    for _ in $(seq 1 600); do kill -0 "$daemon" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$daemon" 2>/dev/null || true
  fi
  # Whatever the daemon left: its apps' processes and groups in every hierarchy.
  for group in $(find /sys/fs/cgroup -maxdepth 3 -type d -name "$root" 2>/dev/null); do
    for procs in $(find "$group" -name cgroup.procs 2>/dev/null); do
      while read -r pid; do kill -KILL "$pid" 2>/dev/null || true; done <"$procs"
    done
    find "$group" -depth -type d -exec rmdir {} \; 2>/dev/null || true
  done
  rm -rf "$work"
}
trap cleanup EXIT

apps=()
for index in $(seq -w 1 20); do apps+=("app$index"); done
{
  echo "foreground_slots = 1"
  for app in "${apps[@]}"; do
    printf '[apps.%s]\ncommand = "%s"\nargs = ["--hold", "1"]\n[apps.%s.background]\ngrace = "1s"\n\n' \
      "$app" "$ballast" "$app"
  done
} >"$work/policy.toml"
# The same policy with every level crossed at once: the daemon goes critical and kills.
sed '1a [memory]\nwarning_enter = "99%"\nwarning_exit = "100%"\ncritical_enter = "99%"\ncritical_exit = "100%"\n' \
  "$work/policy.toml" >"$work/critical.toml"

client() { "$appwarden" "$@" --socket "$socket"; }

echo "== serve under callgrind (slow: the daemon runs some 50 times slower)" >&2
valgrind --tool=callgrind --demangle=no --dump-instr=no \
  --dump-before='*shedStartUpPages*' --dump-after='*lockTouchedPages*' \
  --callgrind-out-file="$work/callgrind" \
  "$appwarden" serve --policy "$work/policy.toml" --socket "$socket" --state-dir "$work/state" \
  --cgroup-root "$root" --lock-dir "$work/lock" --stop-apps-on-exit >"$work/serve.log" 2>&1 &
daemon=$!

wait_for() { # SECONDS DESCRIPTION COMMAND...
  local limit=$1 what=$2
  shift 2
  for _ in $(seq 1 $((limit * 2))); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    kill -0 "$daemon" 2>/dev/null || { cat "$work/serve.log" >&2; echo "link-order.sh: serve ended" >&2; exit 1; }
    sleep 0.5
  done
  cat "$work/serve.log" >&2
  echo "link-order.sh: $what did not happen within $limit s" >&2
  exit 1
}
has_locked() { grep -q "Memory locked in RAM" "$work/serve.log"; }
wait_for 600 "the daemon's lock after its rehearsed kill" has_locked
wait_for 600 "the control socket's first answer" client status
all_suspended() { [ "$(client status --json | grep -o '"state":"suspended"' | wc -l)" -eq "${#apps[@]}" ]; }

echo "== launches, suspensions and requests" >&2
for app in "${apps[@]}"; do client open "$app" >/dev/null; done
client home >/dev/null
wait_for 600 "every app's suspension" all_suspended
for _ in 1 2 3; do
  client status >/dev/null
  client status --json >/dev/null
  client explain app01 >/dev/null
  client events >/dev/null
done
sleep 10

echo "== a level change to critical, and the kills it makes" >&2
cp "$work/critical.toml" "$work/policy.toml"
client policy reload >/dev/null
some_killed() { client events | grep -q "memoryPressure"; }
wait_for 600 "a memory kill" some_killed
sleep 10
kill -TERM "$daemon"
for _ in $(seq 1 1200); do kill -0 "$daemon" 2>/dev/null || break; sleep 0.5; done
daemon=""

# The dumps, in order: what ran before the start-up pages were let go of (callgrind.1), and what
# the boot ran before they were let go of again; then up to the lock (the last of them triggered
# by lockTouchedPages), which the lock keeps; then what ran after it (the last dump, at the end,
# is "callgrind"). In each, "ob=" names the object a function
# belongs to, and "fn=(ID) NAME" a function that ran, named in full the first time its ID appears.
functions() { # FILE...: the executable's functions that ran, each once
  awk -v exe="$appwarden" '
    # "(ID) NAME" defines ID in this file; "(ID)" refers back to it.
    function named(spec, table,    id, rest) {
      if (!match(spec, /^\([0-9]+\)/)) return spec
      id = substr(spec, 1, RLENGTH)
      rest = substr(spec, RLENGTH + 2)
      if (rest != "") table[FILENAME, id] = rest
      return table[FILENAME, id]
    }
    /^c?ob=/ { name = named(substr($0, index($0, "=") + 1), objects); if ($0 ~ /^ob=/) object = name; next }
    /^c?fn=/ {
      name = named(substr($0, index($0, "=") + 1), functions)
      sub(/\047[0-9]+$/, "", name)  # the mark of a recursion depth
      if ($0 ~ /^fn=/ && object == exe && name !~ /^(0x|\(|$)/ && !(name in seen)) { seen[name] = 1; print name }
    }' "$@"
}
parts=$(ls "$work"/callgrind.* | sed 's/.*\.//' | sort -n)
last_locked=$(grep -l "^desc: Trigger: --dump-after=.*lockTouchedPages" "$work"/callgrind.* | sed 's/.*\.//' | sort -n | tail -1)
[ -n "$last_locked" ] || { echo "link-order.sh: no dump at the daemon's lock; did it lock its memory?" >&2; exit 1; }
# The daemon lets go of its start-up pages twice: before the boot, and after it (what only the
# boot ran). Each dump triggered before a letting go holds what ran before it: start-up, then the
# boot.
last_shed=$(grep -l "^desc: Trigger: --dump-before=.*shedStartUpPages" "$work"/callgrind.* | sed 's/.*\.//' | sort -n | tail -1)
[ -n "$last_shed" ] || { echo "link-order.sh: no dump before the daemon let go of its start-up pages" >&2; exit 1; }
start_up=() locked=() later=("$work/callgrind")
for part in $parts; do
  if [ "$part" -le "$last_shed" ]; then
    start_up+=("$work/callgrind.$part")
  elif [ "$part" -le "$last_locked" ]; then
    locked+=("$work/callgrind.$part")
  else
    later+=("$work/callgrind.$part")
  fi
done
# A name that several objects define for themselves (a local helper such as objectdestroy.2Tm, a
# value witness of the standard library's) would draw every object's whole section holding one to
# the front; only the names the executable defines once are ordered.
nm --defined-only "$appwarden" | awk 'NF == 3 { count[$3]++ } END { for (name in count) if (count[name] == 1) print name }' \
  >"$work/unique"
# Each part sorted by name (which groups a module's and a type's functions), so that the file
# changes little from one run to the next.
functions "${locked[@]}" | grep -xF -f "$work/unique" | LC_ALL=C sort >"$work/locked"
functions "${later[@]}" | grep -xF -f "$work/unique" | grep -vxF -f "$work/locked" | LC_ALL=C sort >"$work/later" || true
cat "$work/locked" "$work/later" >"$work/hot"
functions "${start_up[@]}" | grep -xF -f "$work/unique" | grep -vxF -f "$work/hot" | LC_ALL=C sort \
  >"$work/start-up" || true
{
  echo "# The functions of the appwarden executable in the order the static release build lays them out"
  echo "# (lld --symbol-ordering-file): what the daemon runs from letting go of its start-up pages to"
  echo "# locking what it ran, what it runs later, then what only start-up runs. Written by"
  echo "# scripts/link-order.sh; see its header."
  cat "$work/hot" "$work/start-up"
} >scripts/link-order.txt
echo "scripts/link-order.txt: $(wc -l <"$work/locked") functions run up to the lock, $(wc -l <"$work/later") later," \
  "$(wc -l <"$work/start-up") only at start-up" >&2
