#!/usr/bin/env bash
# Installs what the kernel lane (scripts/test-kernel.sh) needs: QEMU, Debian's kernel (with
# the hci_vhci module), busybox for virtme-ng's guest, BlueZ (bluetoothd, btmgmt, btmon),
# D-Bus, and virtme-ng pinned in requirements-kernel.txt in a venv of its own (.venv-kernel).
# Safe to run repeatedly, with no standard input (CI), as root or through sudo.
#
# Usage: scripts/setup-kernel-lane.sh [VENV-DIR]   VENV-DIR defaults to .venv-kernel.
set -euo pipefail
exec </dev/null

say() { printf 'setup-kernel-lane: %s\n' "$*"; }
fail() { printf 'setup-kernel-lane: error: %s\n' "$*" >&2; exit 1; }

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo_root="$(cd "$script_dir/.." && pwd)"
venv_dir="${1:-$repo_root/.venv-kernel}"
requirements="$script_dir/requirements-kernel.txt"

# qemu-system-x86: the VM; linux-image-amd64: a kernel with CONFIG_BT_HCIVHCI=m;
# busybox-static: virtme-ng's guest init tools; bluez: bluetoothd, btmgmt, btmon, hciconfig
# (Debian keeps it in bluez); dbus: bluetoothd's bus; iproute2, kmod, procps: what the
# guest script runs; libcap2-bin: setcap for the privileges case; python3-venv: the venv.
"$script_dir/bootstrap.sh" qemu-system-x86 linux-image-amd64 busybox-static bluez dbus \
    iproute2 kmod procps libcap2-bin python3-venv

kernel="$(ls -1 /boot/vmlinuz-* 2>/dev/null | sort -V | tail -n 1)"
[[ -n "$kernel" && -r "$kernel" ]] || fail "no readable /boot/vmlinuz-*: linux-image-amd64 did not install a kernel"
release="${kernel#/boot/vmlinuz-}"
modinfo -k "$release" hci_vhci >/dev/null 2>&1 ||
    fail "kernel $release has no hci_vhci module (modinfo -k $release hci_vhci failed)"

export PIP_NO_INPUT=1
stamp_file="$venv_dir/.requirements-kernel.stamp"
wanted_stamp="$(sha256sum "$requirements" | cut -d' ' -f1)"
if [[ -f "$stamp_file" && "$(cat "$stamp_file")" == "$wanted_stamp" && -x "$venv_dir/bin/vng" ]]; then
    say "$venv_dir is up to date"
else
    [[ -x "$venv_dir/bin/python" ]] || python3 -m venv --clear "$venv_dir"
    say "installing $requirements into $venv_dir"
    "$venv_dir/bin/python" -m pip install --disable-pip-version-check --quiet --requirement "$requirements"
    printf '%s\n' "$wanted_stamp" >"$stamp_file"
fi
"$venv_dir/bin/vng" --version >/dev/null || fail "$venv_dir/bin/vng does not run"
say "ready: kernel $release, $("$venv_dir/bin/vng" --version 2>&1 | head -n 1)"
