#!/usr/bin/env bash
# The whole test suite from a fresh clone: system packages, the Python venv with RootCanal
# and Bumble for the integration tests, every Swift test, the manifest schema check, and a
# quick pass of the benchmarks so they cannot rot; the kernel lane (Debian's kernel under
# QEMU, kernel controllers and bluetoothd: scripts/test-kernel.sh); last, the Debian package,
# installed into a clean Debian 12 root and run there.
set -euo pipefail
cd "$(dirname "$0")/.."

# mosquitto: the broker the MQTT integration tests start on a free port; openssl: the
# certificate authority and certificates its TLS tests make.
scripts/prepare.sh mosquitto openssl
export BEACONCTL_VENV="$PWD/.venv"

echo "test: JSON Schema against the example fleets"
.venv/bin/python scripts/check-schema.py

echo "test: swift test"
swift test --skip-build

# Benchmarks are not timed tests: these short runs keep them building and print their
# figures; the full runs are in the README.
echo "test: benchmark smoke runs (release)"
swift build -c release --product manifest-benchmark
swift build -c release --product radio-benchmark
swift build -c release --product ranging-benchmark
swift build -c release --product ingest-benchmark
release=$(swift build -c release --show-bin-path)
"$release/manifest-benchmark" --sizes 10000
"$release/radio-benchmark" --beacons 1,100 --repeat 1
# The ranging claims are checked, not only printed: on every place of the real recordings
# beaconctl's median error is no larger than the best peer's (see docs/ranging.md).
"$release/ranging-benchmark" --check
"$release/ingest-benchmark" --sizes 100000

echo "test: the kernel lane: beaconctl on the Linux Bluetooth stack, in a VM"
scripts/test-kernel.sh

echo "test: the Debian package: build, lintian, install into a clean Debian 12 root and run"
scripts/test-package.sh
