#!/usr/bin/env bash
# The main job from a fresh clone: build beaconctl and validate the example fleets.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/bootstrap.sh
swift build -c release --product beaconctl
beaconctl=$(swift build -c release --show-bin-path)/beaconctl

echo "demo: beaconctl fleet validate fleets/"
"$beaconctl" fleet validate fleets/
