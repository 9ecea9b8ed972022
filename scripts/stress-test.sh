#!/usr/bin/env bash
# The whole Swift test suite, several times in a row, while stress-ng keeps the CPU cores
# busy: evidence that no test depends on how fast the machine is. It builds once first
# (scripts/prepare.sh, as scripts/test.sh does), then runs `swift test --skip-build` with
# CI=true RUNS times, printing each run's result and duration and a summary line.
#
# Usage: scripts/stress-test.sh [RUNS] [-- SWIFT_TEST_ARGUMENT...]
#   RUNS                 how many runs of the suite (default 5)
#   SWIFT_TEST_ARGUMENT  passed on to every `swift test`, e.g. -- --skip SomeSuite
# Environment: STRESS_CPUS  stress-ng CPU workers (default 2: both cores of the CI machine)
#
# Exits 0 when every run passed, 1 when any failed, 2 on bad usage. stress-ng (installed
# through apt-get when missing) is stopped however this script ends; each run's full output
# is kept in .build/stress-test/run-N.log.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf 'stress-test: %s\n' "$*"; }
usage() {
    printf 'stress-test: error: %s\nusage: scripts/stress-test.sh [RUNS] [-- SWIFT_TEST_ARGUMENT...]\n' "$1" >&2
    exit 2
}

runs=5
if (($# > 0)) && [[ $1 != "--" ]]; then
    runs=$1
    shift
fi
[[ $runs =~ ^[1-9][0-9]*$ ]] || usage "RUNS must be a positive whole number; got '$runs'"
if (($# > 0)); then
    [[ $1 == "--" ]] || usage "unexpected argument '$1' (put swift test arguments after --)"
    shift
fi
test_arguments=("$@")
workers=${STRESS_CPUS:-2}
[[ $workers =~ ^[1-9][0-9]*$ ]] || usage "STRESS_CPUS must be a positive whole number; got '$workers'"

scripts/prepare.sh stress-ng mosquitto openssl systemd prometheus
export BEACONCTL_VENV="$PWD/.venv"
export CI=true

logs=.build/stress-test
mkdir -p "$logs"

# stress-ng and each `swift test` run in sessions of their own (setsid): an interrupt reaches
# them through the traps below, which end each whole process tree (`swift test` leaves its
# test process running when only it is killed). stress-ng's own timeout bounds it even if
# this script is killed with SIGKILL: an hour per run is far beyond what a run takes.
setsid stress-ng --cpu "$workers" --timeout "$((runs * 3600))s" --quiet &
stress_pid=$!
test_pid=
stop_all() {
    if [[ -n $test_pid ]]; then
        kill -TERM -- "-$test_pid" 2>/dev/null || true
        wait "$test_pid" 2>/dev/null || true
    fi
    kill -TERM -- "-$stress_pid" 2>/dev/null || true
    wait "$stress_pid" 2>/dev/null || true
}
trap stop_all EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
sleep 1
kill -0 "$stress_pid" 2>/dev/null || {
    echo "stress-test: error: stress-ng --cpu $workers did not start (see its messages above)" >&2
    exit 1
}
say "stress-ng --cpu $workers is running (pid $stress_pid); $runs runs of swift test${test_arguments[*]:+ ${test_arguments[*]}}"

failed=0
for ((run = 1; run <= runs; run++)); do
    log="$logs/run-$run.log"
    started=$SECONDS
    # In the background and waited for, so that a signal's trap runs at once, not after the run.
    setsid swift test --skip-build "${test_arguments[@]}" >"$log" 2>&1 &
    test_pid=$!
    if wait "$test_pid"; then
        result=passed
    else
        result=FAILED
        failed=$((failed + 1))
    fi
    test_pid=
    summary=$(grep -E '^. Test run with ' "$log" | tail -n 1 || true)
    say "run $run of $runs: $result in $((SECONDS - started)) s${summary:+ ($summary)}; log: $log"
    if [[ $result == FAILED ]]; then
        # Swift Testing marks failed tests with ✘; show which, the log has the rest.
        grep -E '✘ Test .*(failed|recorded an issue)' "$log" | head -n 20 | sed 's/^/    /' || true
    fi
done

say "$((runs - failed)) of $runs runs passed under stress-ng --cpu $workers"
((failed == 0))
