#!/usr/bin/env bash
# Everything the test runs need before the first test: the Debian packages
# (scripts/bootstrap.sh, plus any PACKAGE named here), the Python venv with RootCanal and
# Bumble in .venv (scripts/setup-venv.sh), and a debug build of every target, tests
# included, with warnings as errors. Shared by scripts/test.sh and scripts/stress-test.sh.
#
# Usage: scripts/prepare.sh [PACKAGE...]
# Afterwards run the tests with BEACONCTL_VENV="$PWD/.venv" and `swift test --skip-build`.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/bootstrap.sh "$@"
scripts/setup-venv.sh .venv

echo "prepare: building (debug, every target, warnings are errors)"
swift build --build-tests
