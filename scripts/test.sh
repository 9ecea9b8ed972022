#!/usr/bin/env bash
# The whole test suite from a fresh clone: system packages, the Python venv with RootCanal
# and Bumble for the integration tests, every Swift test, the manifest schema check, and a
# quick pass of the benchmarks so they cannot rot.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/bootstrap.sh
scripts/setup-venv.sh .venv
export BEACONCTL_VENV="$PWD/.venv"

echo "test: building (debug, every target, warnings are errors)"
swift build --build-tests

echo "test: JSON Schema against the example fleets"
.venv/bin/python scripts/check-schema.py

echo "test: swift test"
swift test --skip-build

echo "test: benchmark smoke run (release)"
swift run -c release manifest-benchmark --sizes 10000
