#!/usr/bin/env bash
# The kernel lane: beaconctl against the real Linux Bluetooth stack. Boots Debian's kernel in
# a QEMU VM (virtme-ng, over this machine's own root filesystem), where two RootCanal
# controllers become kernel controllers hci0 and hci1 through /dev/vhci (vhci-bridge), with
# bluetoothd running; scripts/kernel-lane/guest.sh runs the cases there and writes one result
# line per case, which this script prints. Exits 1 if any case failed, none ran, or the VM
# did not finish; prints the lane's duration.
#
# Usage: scripts/test-kernel.sh [CASE...]      (after scripts/prepare.sh; default: every case)
# Environment: KERNEL_LANE_TIMEOUT  seconds the whole VM may run (default 900)
#              KERNEL_LANE_RESULTS  keep the results (case logs, daemon logs) in this folder
#              KERNEL_LANE_KVM=1    use /dev/kvm instead of software emulation
set -euo pipefail
cd "$(dirname "$0")/.."
exec </dev/null

say() { printf 'test-kernel: %s\n' "$*"; }
fail() { printf 'test-kernel: error: %s\n' "$*" >&2; exit 1; }
started=$SECONDS

scripts/setup-kernel-lane.sh >/dev/null || fail "scripts/setup-kernel-lane.sh failed (run it alone to see why)"
scripts/setup-venv.sh .venv >/dev/null || fail "scripts/setup-venv.sh failed (run it alone to see why)"
export PATH="$PWD/.venv-kernel/bin:$PATH"

kernel="$(ls -1 /boot/vmlinuz-* 2>/dev/null | sort -V | tail -n 1)"
[[ -r "$kernel" ]] || fail "no readable kernel in /boot (linux-image-amd64)"
command -v qemu-system-x86_64 >/dev/null || fail "no qemu-system-x86_64 (qemu-system-x86)"
rootcanal="$(compgen -G "$PWD/.venv/lib/python3.*/site-packages/rootcanal/bin/linux-$(uname -m)/rootcanal" | head -n 1)"
[[ -x "$rootcanal" ]] || fail "no RootCanal binary in .venv (scripts/setup-venv.sh)"

# The binaries the guest runs are the host's debug build (the guest sees this filesystem).
bin="$(swift build --show-bin-path)"
if [[ ! -x "$bin/beaconctl" || ! -x "$bin/vhci-bridge" ]]; then
    say "building beaconctl and vhci-bridge (debug)"
    swift build --product vhci-bridge >/dev/null
    swift build --product beaconctl >/dev/null
fi
[[ -x "$bin/beaconctl" && -x "$bin/vhci-bridge" ]] || fail "no beaconctl or vhci-bridge in $bin after building"

results="${KERNEL_LANE_RESULTS:-$(mktemp -d /tmp/beaconctl-kernel-lane.XXXXXX)}"
mkdir -p "$results"
rm -f "$results"/*.log "$results/results.tap" "$results/vm.log"

kvm=(--disable-kvm)
[[ "${KERNEL_LANE_KVM:-0}" == 1 ]] && kvm=()
guest_command="$(printf '%q ' bash "$PWD/scripts/kernel-lane/guest.sh" "$results" "$bin/beaconctl" \
    "$bin/vhci-bridge" "$rootcanal" "$@")"

say "booting $(basename "$kernel") under QEMU ($([[ ${#kvm[@]} -eq 0 ]] && echo KVM || echo software emulation)); results in $results"
vm_started=$SECONDS
set +e
timeout --kill-after=15 "${KERNEL_LANE_TIMEOUT:-900}" \
    vng --run "$kernel" "${kvm[@]}" --cpus 1 --memory 2G --rwdir "$results" --exec "$guest_command" \
    >"$results/vm.log" 2>&1
vm_status=$?
set -e
vm_seconds=$((SECONDS - vm_started))

[[ -s "$results/results.tap" ]] || {
    tail -n 30 "$results/vm.log" >&2
    fail "the VM wrote no results (exit status $vm_status after ${vm_seconds} s; VM log above, all logs in $results)"
}
cat "$results/results.tap"
passed=$(grep -c '^ok ' "$results/results.tap" || true)
failed=$(grep -c '^not ok ' "$results/results.tap" || true)
say "$passed passed, $failed failed; VM ${vm_seconds} s, lane $((SECONDS - started)) s"
if ((vm_status == 124 || vm_status == 137)); then
    fail "the VM ran out of its ${KERNEL_LANE_TIMEOUT:-900} s; logs in $results"
fi
grep -q '^# done' "$results/results.tap" || fail "the guest did not finish every case (exit status $vm_status); logs in $results"
((failed == 0 && passed > 0)) || fail "kernel lane failed; case logs in $results"
say "kernel lane passed"
