#!/usr/bin/env bash
# The Home Assistant lane: `verify --watch --mqtt … --home-assistant` read back from a real
# Home Assistant. Installs the pinned Home Assistant (scripts/requirements-home-assistant.txt)
# into .venv-home-assistant with Debian 12's python3, then runs the Swift tests of
# Tests/IntegrationTests/HomeAssistantTests.swift, which start Mosquitto and Home Assistant on
# free loopback ports, onboard it, give it the MQTT integration and watch three beacons.
# Exits 1 if the test failed or did not run; prints the lane's duration (about 2 minutes
# once installed; the first install downloads about 100 MB from PyPI).
#
# A Home Assistant that cannot be installed fails the lane under CI=true; elsewhere the
# lane says so and is skipped.
#
# Usage: scripts/test-home-assistant.sh      (after scripts/prepare.sh mosquitto)
# Environment: PYTHON                      the interpreter for the venv (default: python3)
#              HOME_ASSISTANT_LANE_TIMEOUT seconds the tests may run (default 1200)
set -euo pipefail
cd "$(dirname "$0")/.."
exec </dev/null

say() { printf 'test-home-assistant: %s\n' "$*"; }
fail() { printf 'test-home-assistant: error: %s\n' "$*" >&2; exit 1; }
started=$SECONDS

requirements=scripts/requirements-home-assistant.txt
venv="$PWD/.venv-home-assistant"
python="${PYTHON:-python3}"
export PIP_NO_INPUT=1

# Without Home Assistant there is no lane: a failure in CI, a skip on a developer's machine.
unavailable() {
    if [[ "${CI:-}" == true ]]; then
        fail "$1"
    fi
    say "skipped: $1"
    exit 0
}

command -v "$python" >/dev/null 2>&1 || unavailable "no '$python' on PATH (Debian: apt-get install python3 python3-venv)"
"$python" -c 'import venv, ensurepip' >/dev/null 2>&1 ||
    unavailable "'$python' cannot create virtual environments: apt-get install python3-venv"
python_version="$("$python" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])')"
wanted_stamp="$(sha256sum "$requirements" | cut -d' ' -f1) python-$python_version"
stamp="$venv/.requirements.stamp"

if [[ -f "$stamp" && "$(cat "$stamp")" == "$wanted_stamp" && -x "$venv/bin/hass" ]]; then
    say "$venv is up to date (Python $python_version)"
else
    say "installing Home Assistant into $venv with $python (Python $python_version)"
    rm -f "$stamp"
    if [[ -d "$venv" && ! -f "$venv/pyvenv.cfg" ]]; then
        fail "$venv exists and is not a virtual environment: remove it yourself"
    fi
    "$python" -m venv --clear "$venv" || unavailable "could not create $venv"
    "$venv/bin/python" -m pip install --disable-pip-version-check --quiet --requirement "$requirements" ||
        unavailable "could not install $requirements into $venv (see pip's message above)"
    [[ -x "$venv/bin/hass" ]] || unavailable "$venv has no bin/hass after installing $requirements"
    printf '%s\n' "$wanted_stamp" >"$stamp"
fi
say "$("$venv/bin/hass" --version 2>/dev/null | sed 's/^/Home Assistant /')"

# The tests are part of the debug build scripts/prepare.sh made.
bin="$(swift build --show-bin-path)"
[[ -x "$bin/beaconctl" ]] || fail "no beaconctl in $bin: run scripts/prepare.sh first"

log="$(mktemp /tmp/beaconctl-home-assistant-lane.XXXXXX)"
set +e
BEACONCTL_HOME_ASSISTANT_VENV="$venv" timeout --kill-after=15 "${HOME_ASSISTANT_LANE_TIMEOUT:-1200}" \
    swift test --skip-build --filter HomeAssistantTests 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
say "lane $((SECONDS - started)) s"
((status == 0)) || fail "the Home Assistant tests failed (exit status $status); output in $log"
# A suite skipped, or filtered to nothing, is no evidence.
grep -q '✔ Suite "beaconctl.s audit in a real Home Assistant" passed' "$log" ||
    fail "the Home Assistant suite did not run; output in $log"
rm -f "$log"
say "Home Assistant lane passed"
