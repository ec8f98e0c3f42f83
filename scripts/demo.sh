#!/usr/bin/env bash
# Sets everything up and runs the shipped demo: a day on a small device, replayed in
# virtual time through `appwarden simulate`.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
swift build -c release --product appwarden
"$(swift build -c release --show-bin-path)/appwarden" simulate scenarios/demo.toml
