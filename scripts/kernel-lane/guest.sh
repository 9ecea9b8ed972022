#!/usr/bin/env bash
# The kernel lane's guest side: runs as root inside the VM that scripts/test-kernel.sh boots
# (the host's root filesystem, read-only, with RESULTS writable). It loads hci_vhci, starts
# RootCanal, bridges two of its controllers into the kernel as hci0 and hci1, starts D-Bus
# and bluetoothd, and runs beaconctl's kernel-path cases against them. A third RootCanal
# controller, reached over TCP and never bridged, is the outside world: it scans what hci0
# advertises and advertises what hci1 must hear.
#
# Results: RESULTS/results.tap, one `ok N - case` or `not ok N - case: reason` line per case,
# then `# done` when every case ran; RESULTS/NAME.log holds each case's commands and output.
#
# Usage: guest.sh RESULTS BEACONCTL VHCI-BRIDGE ROOTCANAL [CASE...]   (default: every case)
set -uo pipefail

results=$1 beaconctl=$2 bridge=$3 rootcanal=$4
shift 4
tap="$results/results.tap"
work="$(mktemp -d /tmp/kernel-lane.XXXXXX)"
hci_port=6402
outside="tcp-client:127.0.0.1:$hci_port"
uuid=7A1B3C4D-5E6F-4A0B-9C1D-2E3F4A5B6C7D
: >"$tap"

say() { printf 'guest: %s\n' "$*" >&2; }

# Every process started here, stopped on exit (the VM powers off after this script anyway).
background=()
cleanup() {
    local pid
    for pid in "${background[@]}"; do kill "$pid" 2>/dev/null; done
}
trap cleanup EXIT

# wait_for SECONDS WHAT COMMAND...: polls COMMAND every 0.2 s until it succeeds; false at the deadline.
wait_for() {
    local seconds=$1 what=$2
    shift 2
    local deadline=$((SECONDS + seconds))
    until "$@" >/dev/null 2>&1; do
        if ((SECONDS >= deadline)); then
            say "gave up after ${seconds} s waiting for $what"
            return 1
        fi
        sleep 0.2
    done
}

# --- Case bookkeeping -------------------------------------------------------------------
case_number=0
case_log=/dev/null
case_failure=""

# check CONDITION-DESCRIPTION COMMAND...: runs COMMAND; on failure marks the case failed.
check() {
    local what=$1
    shift
    if "$@" >>"$case_log" 2>&1; then
        printf 'check ok: %s\n' "$what" >>"$case_log"
        return 0
    fi
    printf 'check FAILED: %s\n' "$what" >>"$case_log"
    [[ -n "$case_failure" ]] || case_failure=$what
    return 1
}

run_case() {
    local name=$1
    case_number=$((case_number + 1))
    case_log="$results/$name.log"
    case_failure=""
    : >"$case_log"
    local started=$SECONDS
    say "case $name"
    "case_$name"
    local status=$?
    if [[ -z "$case_failure" && $status -ne 0 ]]; then case_failure="case ended with status $status"; fi
    local took=$((SECONDS - started))
    if [[ -z "$case_failure" ]]; then
        printf 'ok %d - %s (%d s)\n' "$case_number" "$name" "$took" >>"$tap"
    else
        printf 'not ok %d - %s (%d s): %s\n' "$case_number" "$name" "$took" "$case_failure" >>"$tap"
    fi
}

# Runs a command with its output in the case log, after printing it there.
logged() {
    printf '$ %s\n' "$*" >>"$case_log"
    "$@" >>"$case_log" 2>&1
}

# expect_exit STATUS OUTPUT-FILE COMMAND...: runs COMMAND (output to the file and the log),
# and checks its exit status.
expect_exit() {
    local want=$1 output=$2
    shift 2
    printf '$ %s\n' "$*" >>"$case_log"
    "$@" >"$output" 2>&1
    local got=$?
    head -n 40 "$output" >>"$case_log"
    (($(wc -l <"$output") <= 40)) || printf '(%d lines in all)\n' "$(wc -l <"$output")" >>"$case_log"
    check "exit status $want from: $*" test "$got" -eq "$want"
}

# --- The controllers -----------------------------------------------------------------------
port_listening() { ss -Hltn "sport = :$1" | grep -q LISTEN; }

start_rootcanal() {
    mkdir -p "$work/rootcanal"
    (cd "$work/rootcanal" && exec "$rootcanal" -hci_port "$hci_port" -test_port 6401 -link_port 6403 \
        -link_ble_port 6404 >"$results/rootcanal.log" 2>&1) &
    background+=($!)
    wait_for 60 "RootCanal's HCI port $hci_port" port_listening "$hci_port"
}

# The kernel has finished setting a controller up once mgmt reports its address.
controller_set_up() {
    btmgmt --index "$1" info 2>/dev/null | grep -Eq 'addr ([0-9A-F]{2}:){5}[0-9A-F]{2}' &&
        ! btmgmt --index "$1" info 2>/dev/null | grep -q 'addr 00:00:00:00:00:00'
}

# start_bridge N: bridges a new RootCanal controller into the kernel; it must become hciN.
declare -A bridge_pid
start_bridge() {
    local index=$1
    local out="$work/bridge-$index.out"
    : >"$out"
    "$bridge" "127.0.0.1:$hci_port" >"$out" 2>>"$results/bridge-$index.log" &
    bridge_pid[$index]=$!
    background+=($!)
    wait_for 20 "vhci-bridge to register a controller" grep -q '^hci' "$out" || return 1
    local name
    name="$(head -n 1 "$out")"
    [[ "$name" == "hci$index" ]] || { say "the bridge made $name, expected hci$index"; return 1; }
    wait_for 30 "the kernel to set up hci$index" controller_set_up "$index"
}

# btmgmt_says PATTERN ARGS...: btmgmt exits 0 even when mgmt refused; judge by what it printed.
btmgmt_says() {
    local pattern=$1
    shift
    printf '$ btmgmt %s\n' "$*" >>"$case_log"
    btmgmt "$@" 2>&1 | tee -a "$case_log" | grep -q "$pattern"
}

powered() { btmgmt --index "$1" info 2>/dev/null | grep -q 'current settings:.*powered'; }

start_bluetoothd() {
    mkdir -p /run/dbus
    rm -f /run/dbus/pid
    dbus-daemon --system --fork --nopidfile || return 1
    wait_for 20 "the system D-Bus socket" test -S /run/dbus/system_bus_socket || return 1
    /usr/libexec/bluetooth/bluetoothd --nodetach >"$results/bluetoothd.log" 2>&1 &
    background+=($!)
    bluetoothd_pid=$!
    # bluetoothd powers the controllers it adopts (AutoEnable); power them ourselves if not.
    local index
    for index in 0 1; do
        if ! wait_for 15 "bluetoothd to power hci$index" powered "$index"; then
            btmgmt --index "$index" power on >/dev/null 2>&1
            wait_for 10 "hci$index to power on" powered "$index" || return 1
        fi
    done
}

# --- Beacons -----------------------------------------------------------------------------
write_manifest() {
    cat >"$work/lane.yaml" <<EOF
version: 1
fleet: kernel-lane
uuid: $uuid
defaults:
  measured_power: auto
  interval_ms: 100
  tx_power: 0
venues:
  - id: lab
    name: Kernel lane
    major: 7
    host: lane-advertiser
    beacons:
      - {id: door, name: Door, minor: 1}
      - {id: till, name: Till, minor: 2}
      - {id: shelf, name: Shelf, minor: 3}
      - {id: window, name: Window, minor: 4, measured_power: -62}
EOF
}

# The 30 advertising-data bytes of beacon MINOR with measured power POWER (hex, upper case).
frame_hex() {
    printf '0201061AFF4C000215%s%04X%04X%02X' "${uuid//-/}" 7 "$1" $(($2 & 0xFF))
}

# snoop_has FILE HEX: the btsnoop capture FILE carries these bytes somewhere.
snoop_has() {
    python3 -c 'import sys; sys.exit(0 if bytes.fromhex(sys.argv[2]) in open(sys.argv[1], "rb").read() else 1)' "$1" "$2"
}

# Starts `advertise` in the background on SPEC with extra arguments; its JSON lines go to
# $work/NAME.out. Waits for its `started` event.
start_advertiser() {
    local name=$1 spec=$2
    shift 2
    printf '$ %s advertise --hci %s --manifest lane.yaml --host lane-advertiser --format json %s &\n' \
        "$beaconctl" "$spec" "$*" >>"$case_log"
    "$beaconctl" advertise --hci "$spec" --manifest "$work/lane.yaml" --host lane-advertiser \
        --format json "$@" >"$work/$name.out" 2>"$work/$name.err" &
    advertiser_pid=$!
    background+=($!)
    wait_for 60 "advertise to start on $spec" grep -q '"event":"started"' "$work/$name.out"
}

# Stops the advertiser with SIGTERM and returns its exit status (124 if it outlived 30 s).
stop_advertiser() {
    local name=$1
    kill -TERM "$advertiser_pid" 2>/dev/null
    local deadline=$((SECONDS + 30))
    while kill -0 "$advertiser_pid" 2>/dev/null; do
        ((SECONDS < deadline)) || { kill -KILL "$advertiser_pid"; break; }
        sleep 0.2
    done
    wait "$advertiser_pid"
    local status=$?
    { echo "--- advertise stdout"; cat "$work/$name.out"; echo "--- advertise stderr"; cat "$work/$name.err"; } >>"$case_log"
    return "$status"
}

# The measured power the advertiser put in each beacon's frame, from its `started` event.
measured_power_of() {
    python3 - "$1" "$2" <<'EOF'
import json, sys
for line in open(sys.argv[1]):
    event = json.loads(line)
    if event.get("event") == "started":
        for beacon in event["beacons"]:
            if beacon["minor"] == int(sys.argv[2]):
                print(beacon["measuredPowerDbm"])
                sys.exit(0)
sys.exit(1)
EOF
}

# --- Cases ---------------------------------------------------------------------------------

# `controllers` lists both kernel controllers; `--hci hciN` describes one.
case_controllers() {
    expect_exit 0 "$work/list.txt" "$beaconctl" controllers
    check "hci0 listed as up" grep -Eq '^hci0 +([0-9A-F]{2}:){5}[0-9A-F]{2} +up +' "$work/list.txt"
    check "hci1 listed as up" grep -Eq '^hci1 +([0-9A-F]{2}:){5}[0-9A-F]{2} +up +' "$work/list.txt"
    check "listed by index" test "$(grep -o '^hci[0-9]*' "$work/list.txt" | paste -sd ' ')" = "hci0 hci1"
    local address
    address="$(btmgmt --index 0 info | grep -Eo 'addr ([0-9A-F]{2}:){5}[0-9A-F]{2}' | head -n 1 | cut -d' ' -f2)"
    check "hci0's address is the one mgmt reports ($address)" grep -q "^hci0 *$address" "$work/list.txt"
    expect_exit 0 "$work/one.txt" "$beaconctl" controllers --hci hci0
    check "version shown" grep -Eq 'Bluetooth version +5\.' "$work/one.txt"
    check "LE features shown" grep -q 'LE Extended Advertising' "$work/one.txt"
    check "advertising sets shown" grep -Eq 'Advertising sets +[0-9]+' "$work/one.txt"
    check "TX power shown" grep -q 'Advertising TX power' "$work/one.txt"
    check "access is shared with the kernel" grep -qi 'shared' "$work/one.txt"
}

# `advertise --hci hci0` on the RAW channel next to bluetoothd: a scanner outside the kernel
# hears the four exact frames; SIGTERM stops cleanly; bluetoothd keeps its powered controller
# and can still add an advertisement of its own.
case_advertise_raw() {
    start_advertiser adv hci0 || { check "advertise started" false; stop_advertiser adv; return; }
    check "4 beacons in the started event" python3 -c '
import json, sys
events = [json.loads(l) for l in open(sys.argv[1])]
started = [e for e in events if e["event"] == "started"]
sys.exit(0 if started and len(started[0]["beacons"]) == 4 and started[0]["controller"]["access"] == "shared-with-kernel" else 1)' "$work/adv.out"
    expect_exit 0 "$work/scan.txt" timeout 60 "$beaconctl" scan --hci "$outside" --uuid "$uuid" --duration 6 \
        --format jsonl --snoop "$work/outside.btsnoop"
    local minor power
    for minor in 1 2 3 4; do
        power="$(measured_power_of "$work/adv.out" "$minor")"
        check "the outside scanner saw beacon 7/$minor" grep -q "\"major\":7,\"minor\":$minor," "$work/scan.txt"
        check "the exact frame of beacon 7/$minor ($(frame_hex "$minor" "$power")) on the air" \
            snoop_has "$work/outside.btsnoop" "$(frame_hex "$minor" "$power")"
    done
    stop_advertiser adv
    check "advertise exits 0 after SIGTERM" test $? -eq 0
    check "stopped event after SIGTERM" grep -q '"event":"stopped".*"signal":"SIGTERM"' "$work/adv.out"
    check "hci0 still powered" powered 0
    check "btmgmt add-adv still works" btmgmt_says 'Instance added: 1' --index 0 add-adv -d 02010603030118 1
    check "btmgmt rm-adv" btmgmt_says 'Instance removed: 1' --index 0 rm-adv 1
}

# `scan` and `verify` on hci1 (RAW, bluetoothd running) hear beacons advertised outside.
case_verify_raw() {
    start_advertiser outside-adv "$outside" || { check "outside advertiser started" false; stop_advertiser outside-adv; return; }
    expect_exit 0 "$work/scan1.txt" timeout 60 "$beaconctl" scan --hci hci1 --uuid "$uuid" --duration 5 --format jsonl
    check "scan on hci1 saw all 4 beacons" test "$(grep -o '"minor":[0-9]*' "$work/scan1.txt" | sort -u | wc -l)" -eq 4
    expect_exit 0 "$work/verify.txt" timeout 90 "$beaconctl" verify "$work/lane.yaml" --hci hci1 --timeout 30
    check "verify: 4 ok" test "$(grep -Ec '^ *ok ' "$work/verify.txt")" -ge 4
    stop_advertiser outside-adv
    check "outside advertiser exits 0" test $? -eq 0
}

# `provision` advertises on hci0 and verifies from hci1, both kernel controllers.
case_provision() {
    expect_exit 0 "$work/provision.txt" timeout 120 "$beaconctl" provision "$work/lane.yaml" --host lane-advertiser \
        --hci hci0 --verify-hci hci1 --once --timeout 30
}

# The USER channel is refused while the controller is up, works once it is down, and the
# kernel can power it up again afterwards.
case_user_channel() {
    expect_exit 3 "$work/user-up.txt" timeout 30 "$beaconctl" controllers --hci hci-user:0
    check "refusal names the fix" grep -q 'btmgmt --index 0 power off' "$work/user-up.txt"
    check "power off" btmgmt_says 'Set Powered complete' --index 0 power off
    expect_exit 0 "$work/user-down.txt" timeout 60 "$beaconctl" advertise --hci hci-user:0 --uuid "$uuid" \
        --major 9 --minor 9 --duration 2
    check "exclusive access" grep -q 'Advertising 1 beacon on hci-user:0' "$work/user-down.txt"
    # Once the user channel closes, bluetoothd adopts the controller again and powers it.
    check "hci0 powered again by bluetoothd" wait_for 20 "hci0 powered" powered 0
}

# Without capabilities: the exact error and its fix; a setcap copy works unprivileged.
case_privileges() {
    local unprivileged=(setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all)
    expect_exit 3 "$work/noprivs.txt" timeout 60 "${unprivileged[@]}" "$beaconctl" advertise --hci hci0 \
        --uuid "$uuid" --major 9 --minor 1 --duration 2
    local grant='grant them once with `sudo setcap cap_net_raw,cap_net_admin+eip $(command -v beaconctl)`, or run as root'
    check "the exact RAW-channel error and its fix" grep -Fxq "beaconctl: error: hci0: the kernel filters LE events out for \
this process, which lacks the CAP_NET_RAW capability; $grant" "$work/noprivs.txt"
    expect_exit 3 "$work/noprivs-user.txt" timeout 60 "${unprivileged[@]}" "$beaconctl" controllers --hci hci-user:0
    check "the exact USER-channel error and its fix" grep -Fxq "beaconctl: error: hci-user:0: the user channel needs the \
CAP_NET_ADMIN capability; $grant" "$work/noprivs-user.txt"
    local copy=/tmp/beaconctl-setcap
    install -m 0755 "$beaconctl" "$copy"
    check "setcap on a copy" logged setcap cap_net_raw,cap_net_admin+eip "$copy"
    expect_exit 0 "$work/setcap.txt" timeout 60 setpriv --reuid=nobody --regid=nogroup --clear-groups "$copy" \
        advertise --hci hci0 --uuid "$uuid" --major 9 --minor 1 --duration 2
    # The capability set of the unit `advertise --print-systemd-unit` writes
    # (AmbientCapabilities/CapabilityBoundingSet = CAP_NET_RAW CAP_NET_ADMIN), as setpriv
    # gives it to an unprivileged user: the plain binary, no file capabilities.
    local unit_caps
    unit_caps=$("$beaconctl" advertise --hci hci0 --uuid "$uuid" --major 9 --minor 1 --print-systemd-unit \
        | sed -n 's/^AmbientCapabilities=//p')
    check "the unit grants CAP_NET_RAW and CAP_NET_ADMIN" test "$unit_caps" = "CAP_NET_RAW CAP_NET_ADMIN"
    expect_exit 0 "$work/ambient.txt" timeout 60 setpriv --reuid=nobody --regid=nogroup --clear-groups \
        --inh-caps=-all,+net_raw,+net_admin --ambient-caps=-all,+net_raw,+net_admin \
        --bounding-set=-all,+net_raw,+net_admin "$beaconctl" \
        advertise --hci hci0 --uuid "$uuid" --major 9 --minor 1 --duration 2
}

# Faults while advertising on hci0: the bridge killed (exit 3 without --restart; with it
# the beacons come back once hci0 does), mgmt power off (the same), hciconfig reset.
case_faults() {
    start_advertiser fault1 hci0 || { check "advertise started" false; stop_advertiser fault1; return; }
    kill -KILL "${bridge_pid[0]}"
    wait_for 30 "advertise to end after the bridge died" bash -c "! kill -0 $advertiser_pid"
    stop_advertiser fault1
    check "exit 3 when hci0 goes away" test $? -eq 3
    check "bridge restarted as hci0" start_bridge 0
    check "hci0 powered after restart" wait_for 20 "hci0 powered" powered 0

    start_advertiser fault2 hci0 --restart || { check "advertise --restart started" false; stop_advertiser fault2; return; }
    kill -KILL "${bridge_pid[0]}"
    check "bridge restarted as hci0 again" start_bridge 0
    check "hci0 powered again" wait_for 20 "hci0 powered" powered 0
    check "beacons back after the restart" wait_for 60 "a second started event" \
        grep -q '"event":"started".*"restart":1' "$work/fault2.out"
    stop_advertiser fault2
    check "exit 0 after SIGTERM" test $? -eq 0

    start_advertiser fault3 hci0 || { check "advertise started" false; stop_advertiser fault3; return; }
    check "power off" btmgmt_says 'Set Powered complete' --index 0 power off
    check "advertise ends by itself after btmgmt power off" \
        wait_for 30 "advertise to end after power off" bash -c "! kill -0 $advertiser_pid"
    stop_advertiser fault3
    check "exit 3 after btmgmt power off" test $? -eq 3
    check "the fault is reported" grep -q '"event":"interrupted"' "$work/fault3.out"
    check "power on again" btmgmt_says 'Set Powered complete' --index 0 power on

    start_advertiser fault5 hci0 --restart || { check "advertise --restart started" false; stop_advertiser fault5; return; }
    check "power off under --restart" btmgmt_says 'Set Powered complete' --index 0 power off
    check "the power-off is reported" wait_for 30 "an interrupted event" grep -q '"event":"interrupted"' "$work/fault5.out"
    check "power on" btmgmt_says 'Set Powered complete' --index 0 power on
    check "beacons back after power on" wait_for 60 "a second started event" \
        grep -q '"event":"started".*"restart":1' "$work/fault5.out"
    stop_advertiser fault5
    check "exit 0 after SIGTERM" test $? -eq 0

    start_advertiser fault4 hci0 || { check "advertise started" false; stop_advertiser fault4; return; }
    check "hciconfig hci0 reset" logged hciconfig hci0 reset
    check "advertise ends by itself after hciconfig reset" \
        wait_for 30 "advertise to end after reset" bash -c "! kill -0 $advertiser_pid"
    stop_advertiser fault4
    check "exit 3 after hciconfig reset" test $? -eq 3
    check "the reset is named" grep -qi 'reset' "$work/fault4.err"
    check "hci0 powered after the reset" wait_for 20 "hci0 powered" powered 0
}

# bluetoothd's two advertisements (mgmt instances 1 and 2: the kernel advertises instance N
# from set handle N) and their payloads on the air.
bluetoothd_payloads=(FFFF626C7A31 FFFF626C7A32)
add_bluetoothd_advertisements() {
    check "btmgmt add-adv 1" btmgmt_says 'Instance added: 1' --index 0 add-adv -d 07FFFFFF626C7A31 1
    check "btmgmt add-adv 2" btmgmt_says 'Instance added: 2' --index 0 add-adv -d 07FFFFFF626C7A32 2
}

remove_bluetoothd_advertisements() {
    check "mgmt can still remove its instance 1" btmgmt_says 'Instance removed: 1' --index 0 rm-adv 1
    check "mgmt can still remove its instance 2" btmgmt_says 'Instance removed: 2' --index 0 rm-adv 2
}

# mgmt still lists bluetoothd's two instances: `btmgmt advinfo` (BlueZ 5.66) prints their
# count; remove_bluetoothd_advertisements, which only succeeds for instances that exist,
# then confirms their numbers.
bluetoothd_instances_listed() {
    printf '$ btmgmt --index 0 advinfo\n' >>"$case_log"
    btmgmt --index 0 advinfo >"$work/advinfo.txt" 2>&1
    cat "$work/advinfo.txt" >>"$case_log"
    grep -q 'Instances list with 2 items' "$work/advinfo.txt"
}

# scan_outside NAME SECONDS [ARGS...]: the independent scanner (RootCanal's third controller)
# listens for SECONDS; sightings in $work/NAME.txt, the capture in $work/NAME.btsnoop.
scan_outside() {
    local name=$1 seconds=$2
    shift 2
    expect_exit 0 "$work/$name.txt" timeout 60 "$beaconctl" scan --hci "$outside" --duration "$seconds" --format jsonl \
        --snoop "$work/$name.btsnoop" "$@"
}

# bluetoothd advertises as mgmt instances 1 and 2 (set handles 1 and 2); beaconctl's four
# beacons take free sets from the top of the controller's range down, all on the air beside
# bluetoothd's two; SIGTERM takes only beaconctl's off the air, and mgmt still lists its two.
case_coexist() {
    add_bluetoothd_advertisements
    start_advertiser coexist hci0 || { check "advertise started" false; stop_advertiser coexist; return; }
    check "beaconctl's sets are 15, 14, 13, 12: clear of bluetoothd's 1 and 2" python3 -c '
import json, sys
started = [json.loads(l) for l in open(sys.argv[1]) if "\"started\"" in l][0]
handles = [b["handle"] for b in started["beacons"]]
print("handles", handles)
sys.exit(0 if handles == [15, 14, 13, 12] else 1)' "$work/coexist.out"
    scan_outside during 6 --uuid "$uuid"
    local minor power payload
    for minor in 1 2 3 4; do
        power="$(measured_power_of "$work/coexist.out" "$minor")"
        check "the outside scanner saw beacon 7/$minor" grep -q "\"major\":7,\"minor\":$minor," "$work/during.txt"
        check "the exact frame of beacon 7/$minor on the air" snoop_has "$work/during.btsnoop" "$(frame_hex "$minor" "$power")"
    done
    for payload in "${bluetoothd_payloads[@]}"; do
        check "bluetoothd's advertisement $payload on the air with the beacons" snoop_has "$work/during.btsnoop" "$payload"
    done
    stop_advertiser coexist
    check "advertise exits 0 after SIGTERM" test $? -eq 0
    check "stopped event after SIGTERM" grep -q '"event":"stopped".*"signal":"SIGTERM"' "$work/coexist.out"
    scan_outside after 6
    for payload in "${bluetoothd_payloads[@]}"; do
        check "bluetoothd's advertisement $payload still on the air" snoop_has "$work/after.btsnoop" "$payload"
    done
    check "the beacons off the air" bash -c "! grep -q '\"major\":7,' '$work/after.txt'"
    check "btmgmt still lists bluetoothd's instances 1 and 2" bluetoothd_instances_listed
    remove_bluetoothd_advertisements
}

# More beacons than free sets (15 beacons; bluetoothd holds 2 of RootCanal's 16 sets): the
# refusal names the numbers and the ways out, nothing of beaconctl's goes on the air (its
# capture holds no set command), and bluetoothd's advertisements stay as they were.
case_coexist_full() {
    add_bluetoothd_advertisements
    {
        printf 'version: 1\nfleet: kernel-lane-full\nuuid: %s\nvenues:\n  - id: big\n    major: 8\n    host: lane-full\n    beacons:\n' "$uuid"
        local minor
        for minor in $(seq 1 15); do printf '      - {id: b%d, minor: %d}\n' "$minor" "$minor"; done
    } >"$work/full.yaml"
    scan_outside full-before 6
    local payload
    for payload in "${bluetoothd_payloads[@]}"; do
        check "before: bluetoothd's advertisement $payload on the air" snoop_has "$work/full-before.btsnoop" "$payload"
    done
    check "before: no beacon of that fleet on the air" bash -c "! grep -q '\"major\":8,' '$work/full-before.txt'"
    expect_exit 3 "$work/full.txt" timeout 60 "$beaconctl" advertise --hci hci0 --manifest "$work/full.yaml" \
        --host lane-full --duration 5 --snoop "$work/full.btsnoop"
    check "the refusal says how many sets, how many bluetoothd holds, how many beacons were asked" grep -Fq \
        "beaconctl: error: hci0: 15 beacons need 15 advertising sets, but the controller has 16 and bluetoothd holds 2 of them (mgmt advertising instances 1, 2), leaving 14 free; nothing was put on the air." \
        "$work/full.txt"
    check "the refusal names the ways out" grep -Fq "Advertise at most 14 beacons from this box" "$work/full.txt"
    check "... legacy rotation" grep -Fq -- "--family legacy" "$work/full.txt"
    check "no other-family wording" \
        bash -c "! grep -Eqi 'other (command )?family|families exclude|is using (legacy|extended) advertising' '$work/full.txt'"
    expect_exit 0 "$work/full-btmon.txt" btmon -r "$work/full.btsnoop"
    # LE Set Extended Advertising Parameters (0x2036) and Enable (0x2039), as btmon names opcodes.
    check "no advertising set was created or enabled" \
        bash -c "! grep -Eq '\(0x08\|0x003[69]\)' '$work/full-btmon.txt'"
    check "... while the capture holds the read of the number of sets" grep -q '(0x08|0x003b)' "$work/full-btmon.txt"
    scan_outside full-after 6
    for payload in "${bluetoothd_payloads[@]}"; do
        check "after: bluetoothd's advertisement $payload still on the air" snoop_has "$work/full-after.btsnoop" "$payload"
    done
    check "after: no beacon of the refused fleet on the air" bash -c "! grep -q '\"major\":8,' '$work/full-after.txt'"
    check "btmgmt still lists bluetoothd's instances 1 and 2" bluetoothd_instances_listed
    remove_bluetoothd_advertisements
}

# --snoop on hci0 writes a capture that btmon reads.
case_snoop() {
    expect_exit 0 "$work/snoop-run.txt" timeout 60 "$beaconctl" advertise --hci hci0 --uuid "$uuid" --major 9 \
        --minor 2 --duration 2 --snoop "$work/hci0.btsnoop"
    expect_exit 0 "$work/btmon.txt" btmon -r "$work/hci0.btsnoop"
    check "btmon decodes the advertising data command" grep -q 'LE Set Extended Advertising Data' "$work/btmon.txt"
}

# bluetoothd's lasting state, to compare before and after a run that went through the kernel:
# hci0's mgmt settings, the adapter as bluetoothd shows it (powered, discoverable, pairable,
# discovering), and the devices it knows, pairs with, bonds with and trusts.
bluetoothd_state() {
    local address kind
    btmgmt --index 0 info 2>&1 | grep -E 'current settings|addr ' | tr -s '\t ' ' '
    address="$(btmgmt --index 0 info | grep -Eo 'addr ([0-9A-F]{2}:){5}[0-9A-F]{2}' | head -n 1 | cut -d' ' -f2)"
    timeout 20 bluetoothctl show "$address" 2>&1 | grep -E 'Controller|Powered|Discoverable|Pairable|Discovering'

    for kind in "" Paired Bonded Trusted; do
        printf 'devices %s:\n' "${kind:-known}"
        timeout 20 bluetoothctl devices $kind 2>&1 | grep -v '^Agent' | sort
    done
}

# `provision --hardware --hci hci0` with bluetoothd running: discovery over the RAW channel,
# the connection through the kernel (an L2CAP socket on the ATT channel), to a KBeacon that
# Bumble plays on a fourth RootCanal controller (Tests/IntegrationTests/Peripherals/
# kbeacon_peripheral.py, written from KKM's SDK). The beacon is written, read back and heard
# on the air; bluetoothd keeps running, hci0's settings and its paired, bonded and trusted
# devices are what they were, and the beacon it saw connect is only a temporary entry that
# it drops again (TemporaryTimeout).
case_provision_hardware() {
    local repository python beacon_address=F0:4C:0A:00:00:41
    repository="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
    python="${rootcanal%%/lib/python3*}/bin/python3"
    cat >"$work/hardware.yaml" <<EOF
version: 1
fleet: kernel-lane-hardware
uuid: $uuid
defaults:
  interval_ms: 350
  tx_power: -4
venues:
  - id: field
    major: 12
    beacons:
      - {id: kitchen, minor: 3456, measured_power: -61, mac: "$beacon_address"}
EOF
    printf '0000000000000000\n' >"$work/factory.txt"
    bluetoothd_state >"$work/bluetoothd-before.txt"
    { echo "--- bluetoothd's state before"; cat "$work/bluetoothd-before.txt"; } >>"$case_log"
    check "bluetoothd answers for hci0 (powered)" grep -q 'Powered: yes' "$work/bluetoothd-before.txt"

    printf '$ %s kbeacon_peripheral.py %s %s --advertise-ibeacon &\n' "$python" "$outside" "$beacon_address" >>"$case_log"
    PYTHONUNBUFFERED=1 "$python" "$repository/Tests/IntegrationTests/Peripherals/kbeacon_peripheral.py" "$outside" \
        "$beacon_address" --advertise-ibeacon >"$work/kbeacon.out" 2>"$work/kbeacon.err" &
    local beacon_pid=$!
    background+=("$beacon_pid")
    if ! wait_for 60 "the Bumble KBeacon to advertise" grep -qx ready "$work/kbeacon.out"; then
        check "the Bumble KBeacon started" false
        cat "$work/kbeacon.err" >>"$case_log"
        return
    fi

    # Without privileges: the RAW channel's discovery is refused with the fix, before any connection.
    install -m 0644 "$work/hardware.yaml" /tmp/kernel-lane-hardware.yaml
    expect_exit 3 "$work/hardware-noprivs.txt" env BEACONCTL_BEACON_PASSWORD=0000000000000000 timeout 60 \
        setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all \
        "$beaconctl" provision /tmp/kernel-lane-hardware.yaml --hardware --hci hci0 --discovery-seconds 2
    check "unprivileged: the missing capability named, with the fix" grep -Fq \
        "beaconctl: error: hci0: the kernel filters LE events out for this process, which lacks the CAP_NET_RAW capability; grant them once with" \
        "$work/hardware-noprivs.txt"
    check "unprivileged: no connection was attempted" bash -c "! grep -qx connected '$work/kbeacon.out'"

    expect_exit 0 "$work/hardware.json" timeout 240 "$beaconctl" provision "$work/hardware.yaml" --hardware --hci hci0 \
        --password-file "$work/factory.txt" --discovery-seconds 4 --timeout 60 --format json
    check "kitchen provisioned through the kbeacon profile and verified on the air" python3 -c '
import json, sys
text = open(sys.argv[1]).read()
document = json.loads(text[text.index("\n{") + 1:])  # progress lines on standard error come first
kitchen = [b for b in document["beacons"] if b["id"] == "kitchen"][0]
print(kitchen)
sys.exit(0 if kitchen["status"] == "provisioned" and kitchen["profile"] == "kbeacon" and kitchen["verdict"] == "ok"
         and kitchen["written"] == ["uuid", "major", "minor", "measured-power", "tx-power", "advertising-interval"] else 1)' \
        "$work/hardware.json"
    check "the beacon saw a central connect, authenticate and configure it" \
        bash -c "grep -qx connected '$work/kbeacon.out' && grep -qx authenticated '$work/kbeacon.out' && grep -qx 'cfg advObj,meaPwr' '$work/kbeacon.out'"
    check "the link ended after the run" wait_for 30 "the beacon's disconnection" grep -q '^disconnected' "$work/kbeacon.out"
    { echo "--- the beacon's events"; cat "$work/kbeacon.out"; } >>"$case_log"

    { echo "--- bluetoothd's devices right after the run"; timeout 20 bluetoothctl devices 2>&1; } >>"$case_log"
    check "bluetoothd still running" kill -0 "$bluetoothd_pid"
    # bluetoothd notes the link the kernel made as a temporary device, dropped once the link
    # has been down for its TemporaryTimeout (30 s by default): the state is compared after.
    check "bluetoothd dropped its temporary entry for the beacon" wait_for 90 "bluetoothd to drop the beacon" \
        bash -c "! timeout 20 bluetoothctl devices 2>/dev/null | grep -qi '$beacon_address'"
    bluetoothd_state >"$work/bluetoothd-after.txt"
    { echo "--- bluetoothd's state after"; cat "$work/bluetoothd-after.txt"; } >>"$case_log"
    check "bluetoothd's settings and devices (known, paired, bonded, trusted) unchanged" \
        diff "$work/bluetoothd-before.txt" "$work/bluetoothd-after.txt"
    kill "$beacon_pid" 2>/dev/null
}

# --- Main ----------------------------------------------------------------------------------
all_cases=(controllers advertise_raw verify_raw provision provision_hardware user_channel privileges snoop coexist
    coexist_full faults)
if (($#)); then cases=("$@"); else cases=("${all_cases[@]}"); fi

fatal() {
    printf 'not ok 0 - setup: %s\n' "$*" >>"$tap"
    say "setup failed: $*"
    exit 1
}

say "kernel $(uname -r), $(bluetoothd --version 2>/dev/null || /usr/libexec/bluetooth/bluetoothd --version) (BlueZ)"
printf '# kernel %s\n# bluez %s\n' "$(uname -r)" "$(/usr/libexec/bluetooth/bluetoothd --version)" >>"$tap"
modprobe hci_vhci || fatal "modprobe hci_vhci failed"
[[ -c /dev/vhci ]] || fatal "no /dev/vhci after modprobe hci_vhci"
write_manifest
start_rootcanal || fatal "RootCanal did not start (see rootcanal.log)"
start_bridge 0 || fatal "hci0 did not come up through vhci-bridge (see bridge-0.log)"
start_bridge 1 || fatal "hci1 did not come up through vhci-bridge (see bridge-1.log)"
start_bluetoothd || fatal "bluetoothd did not power the controllers (see bluetoothd.log)"
printf '# controller %s\n' "$(btmgmt --index 0 info | grep -E 'version|manufacturer' | tr -s '\t ' ' ' | head -n 2 | paste -sd ';')" >>"$tap"

for name in "${cases[@]}"; do
    run_case "$name"
done
echo "# done" >>"$tap"
