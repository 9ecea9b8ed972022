#!/usr/bin/env bash
# Installs the Debian packages beaconctl builds against, when they are missing, and any
# further packages named as arguments (scripts/stress-test.sh asks for stress-ng).
# Safe to run repeatedly, with no standard input (CI), as root or through sudo.
#
# Usage: scripts/bootstrap.sh [EXTRA-PACKAGE...]   (the stress and packaging scripts name the tools they use)
set -euo pipefail

packages=(libbluetooth-dev libyaml-dev libmosquitto-dev libssl-dev pkg-config python3-venv "$@")

missing=()
for package in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$package")
    fi
done

if ((${#missing[@]})); then
    echo "bootstrap: installing Debian packages: ${missing[*]}"
    if [[ $(id -u) -eq 0 ]]; then
        as_root=()
    elif command -v sudo >/dev/null 2>&1; then
        as_root=(sudo -n)
    else
        echo "bootstrap: error: need root (or sudo) to install ${missing[*]}; run: apt-get install ${missing[*]}" >&2
        exit 2
    fi
    export DEBIAN_FRONTEND=noninteractive
    "${as_root[@]}" apt-get update -qq
    "${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" </dev/null
fi

if ! command -v swift >/dev/null 2>&1; then
    echo "bootstrap: error: no Swift toolchain on PATH; install Swift 6.3 from swift.org and retry" >&2
    exit 2
fi
