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
# static executable, a tenth of what `appwarden status` costs in CPU. The first build compiles
# every package in release mode, 5 to 15 minutes on 2 cores; later builds only compile what
# changed.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh >&2

scratch="${APPWARDEN_RELEASE_BUILD:-.build-release}"
flags=(
  -c release --scratch-path "$scratch"
  --static-swift-stdlib --disable-local-rpath
  -Xlinker --gc-sections -Xlinker -z -Xlinker relro -Xlinker -z -Xlinker now -Xlinker --no-export-dynamic
)
products=("$@")
[ "${#products[@]}" -gt 0 ] || products=(appwarden)
# The daemon runs each app's log relay from the program beside it (else in a fork of itself, which
# shares its pages and so hides part of its memory in the figures that divide shared pages).
if [[ " ${products[*]} " == *" appwarden "* && " ${products[*]} " != *" appwarden-relay "* ]]; then
  products+=(appwarden-relay)
fi
for product in "${products[@]}"; do
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
