#!/usr/bin/env bash
# Builds the named products (default: appwarden) in release mode with the Swift runtime, Foundation
# and Dispatch linked in statically, so that the executables run on a machine without Swift; only
# the C libraries (libc, libstdc++, libcgroup, SQLite) stay shared. Prints the folder holding them
# on its last line.
#
#   bash scripts/build-static.sh                   # appwarden (and appwarden-relay)
#   bash scripts/build-static.sh appwarden ballast
#
# The build goes to .build-release (APPWARDEN_RELEASE_BUILD), apart from the debug build in .build:
# the static flags change how every module is compiled. Each product is linked without the
# $ORIGIN run path (nothing is loaded from beside the executable), with full RELRO
# (-z relro -z now), and without exporting its own symbols to the dynamic loader
# (--no-export-dynamic; swift build exports them otherwise): the Swift runtime looks its own path
# up with dladdr at every start, and dladdr walks every exported symbol, 33,000 of them in a
# static executable, a tenth of what `appwarden status` costs in CPU.
#
# What the device keeps of appwarden is made small three ways. The code is optimized for size
# (-Osize: 2 MB less than -O, no figure of BENCHMARKS.md's daemon benchmarks the worse for it).
# lld links it, with the relative relocations packed (-z pack-relative-relocs, DT_RELR, glibc
# 2.36 and later: 1.8 MB less than 74,000 RELA entries). And the functions are laid out in the
# order scripts/link-order.txt gives (each function in a section of its own,
# -function-sections): the ones the daemon runs once started come first, together, so that the
# code it locks in RAM (DaemonMemory.lockTouchedPages) takes few of the kernel's 64 KiB
# fault-around windows. scripts/link-order.sh writes the file; a function it names that the
# code no longer has is skipped, so a stale file costs memory, never correctness. And
# scripts/link-sections.ld keeps .rodata read-only: lld would make the whole merged section
# writable for the few parts Swift marks so (relocated data), and writable pages can be neither
# let go of nor locked one by one.
#
# The first build compiles every package in release mode, 5 to 15 minutes on 2 cores; later
# builds only compile what changed, and link again when the order file changed.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh >&2

scratch="${APPWARDEN_RELEASE_BUILD:-.build-release}"
order="$PWD/scripts/link-order.txt"
sections="$PWD/scripts/link-sections.ld"
flags=(
  -c release --scratch-path "$scratch"
  --static-swift-stdlib --disable-local-rpath
  -Xswiftc -Osize -Xswiftc -Xfrontend -Xswiftc -function-sections -Xswiftc -use-ld=lld
  -Xlinker --gc-sections -Xlinker -z -Xlinker relro -Xlinker -z -Xlinker now -Xlinker --no-export-dynamic
  -Xlinker -z -Xlinker pack-relative-relocs
  -Xlinker --symbol-ordering-file="$order" -Xlinker --no-warn-symbol-ordering
  -Xlinker -T"$sections"
)
products=("$@")
[ "${#products[@]}" -gt 0 ] || products=(appwarden)
# The daemon runs each app's log relay from the program beside it (else in a fork of itself, which
# shares its pages and so hides part of its memory in the figures that divide shared pages).
if [[ " ${products[*]} " == *" appwarden "* && " ${products[*]} " != *" appwarden-relay "* ]]; then
  products+=(appwarden-relay)
fi
for product in "${products[@]}"; do
  # swift build does not see the order file and the section script as inputs of the link.
  linked="$scratch/release/$product"
  if [ -e "$linked" ] && { [ "$order" -nt "$linked" ] || [ "$sections" -nt "$linked" ]; }; then
    rm -f "$(readlink -f "$linked")"
  fi
  echo "== static release build of $product (in $scratch)" >&2
  nice -n 10 swift build "${flags[@]}" --product "$product" >&2
done
bin_dir=$(swift build "${flags[@]}" --show-bin-path)
for product in "${products[@]}"; do
  # A Swift runtime library still needed would fail on a device without Swift.
  if ldd "$bin_dir/$product" | grep -E 'libswift|libFoundation|libdispatch|libBlocksRuntime|_FoundationICU' >&2; then
    echo "build-static.sh: $bin_dir/$product still loads the Swift runtime (above); it was meant to carry it." >&2
    exit 1
  fi
done
echo "$bin_dir"
