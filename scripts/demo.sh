#!/usr/bin/env bash
# The main job from a fresh clone: build beaconctl, validate the example fleets, then for
# every host of the donut chain advertise its beacons and verify them from a second
# controller; on the virtual radio, also write battery beacons over Bluetooth and verify
# them. Without Bluetooth hardware (or without BEACONCTL_HCI set) every controller is on
# the built-in virtual radio; set BEACONCTL_HCI=hci0 and BEACONCTL_VERIFY_HCI=hci1
# (or tcp-client:HOST:PORT, serial:…) to run the same loop on real controllers.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/bootstrap.sh
swift build -c release --product beaconctl
beaconctl=$(swift build -c release --show-bin-path)/beaconctl

advertise_hci=${BEACONCTL_HCI:-virtual}
verify_hci=${BEACONCTL_VERIFY_HCI:-$advertise_hci}

echo
echo "demo: beaconctl fleet validate fleets/"
"$beaconctl" fleet validate fleets/

manifest=fleets/jays-donuts.yaml
hosts=$("$beaconctl" fleet export "$manifest" --format json | grep -o '"host": "[^"]*"' | cut -d'"' -f4 | sort -u)
for host in $hosts; do
    echo
    echo "demo: beaconctl provision $manifest --host $host --hci $advertise_hci --verify-hci $verify_hci --once"
    "$beaconctl" provision "$manifest" --host "$host" --hci "$advertise_hci" --verify-hci "$verify_hci" --once
done

# The virtual radio's beacons also send Eddystone-TLM (a battery draining 2 mV a day, from
# 3.0 V): listening for more receptions than a verdict needs lets their telemetry show
# under each beacon. Controllers driven by Linux hosts send none, so only on the virtual radio.
if [ "$advertise_hci" = virtual ] && [ "$verify_hci" = virtual ]; then
    host=$(printf '%s\n' $hosts | head -n 1)
    echo
    echo "demo: beaconctl provision $manifest --host $host --hci virtual --verify-hci virtual --once --required-sightings 30"
    "$beaconctl" provision "$manifest" --host "$host" --hci virtual --verify-hci virtual --once --required-sightings 30
fi

# Battery beacons (no host: in the manifest) are written over Bluetooth by provision
# --hardware. On the virtual radio, virtual:AIR,battery-beacons=N puts N factory-fresh
# KBeacons on the air: the demo writes three of the museum's gallery beacons into them
# (assigning each the nearest one and recording its mac: in a copy of the manifest), then
# hears them on the air with their new identities. The factory password goes through a file
# only this user can read, written by the shell itself (never on a command line).
if [ "$advertise_hci" = virtual ]; then
    scratch=$(mktemp -d)
    trap 'rm -rf "$scratch"' EXIT
    cp fleets/museum.yaml "$scratch/museum.yaml"
    (umask 077 && printf '%s\n' 0000000000000000 >"$scratch/password")
    echo
    echo "demo: beaconctl provision museum.yaml --hardware --hci virtual:default,battery-beacons=3 --beacon … --assign nearest --yes --password-file …"
    "$beaconctl" provision "$scratch/museum.yaml" --hardware --hci "virtual:default,battery-beacons=3" \
        --beacon maritime-ships-in-bottles --beacon maritime-chronometer --beacon maritime-steam-engine \
        --assign nearest --yes --password-file "$scratch/password" --discovery-seconds 2
fi
