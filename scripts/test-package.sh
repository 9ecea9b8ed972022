#!/usr/bin/env bash
# The Debian package end to end (part of scripts/test.sh): build it with scripts/package.sh,
# check it with lintian (errors fail; warnings are printed), install it with apt into a clean
# Debian 12 root made by debootstrap (no Swift toolchain there), and run in that root:
#   beaconctl --version; man -w beaconctl-advertise; the bash completion of `beaconctl adv<TAB>`;
#   beaconctl fleet validate /usr/share/beaconctl/fleets; beaconctl provision --once on the
#   virtual radio; --print-systemd-unit naming /usr/bin/beaconctl; the packaged template units
#   (advertise, watch) equal to what the installed binary prints; systemd-analyze verify of an
#   instance of each;
#   dpkg --verify (md5sums); and a purge that leaves nothing behind.
#
# The root (debootstrap --variant=minbase bookworm, plus man-db, bash-completion and systemd,
# from the Debian mirror this machine's apt uses) is built once into .build-debroot/ and
# reused: each run installs into a fresh copy of it. Needs root (debootstrap, chroot, mount)
# and that mirror (apt fetches the package's dependencies). Prints how long each part took.
set -euo pipefail
cd "$(dirname "$0")/.."
exec </dev/null

say() { printf 'test-package: %s\n' "$*"; }
fail() { printf 'test-package: FAILED: %s\n' "$*" >&2; exit 1; }

if [[ $(id -u) -ne 0 ]]; then
    # Outside CI a developer without root gets a loud skip; CI must run it.
    [[ ${CI:-} == true ]] && fail "needs root (debootstrap, chroot and mount); CI runs as root"
    say "SKIPPED: needs root (debootstrap, chroot and mount); run: sudo scripts/test-package.sh"
    exit 0
fi

started=$SECONDS
scripts/bootstrap.sh debootstrap lintian dpkg-dev binutils

# 1. Build the package.
phase=$SECONDS
scripts/package.sh --output-dir .build-package
debs=(.build-package/beaconctl_*.deb)
[[ ${#debs[@]} -eq 1 && -f ${debs[0]} ]] || fail "expected one .build-package/beaconctl_*.deb, found: ${debs[*]}"
deb=${debs[0]}
package_version=$(dpkg-deb -f "$deb" Version)
version=${package_version%-*}
package_seconds=$((SECONDS - phase))

# 2. lintian: no errors. Its warnings are shown (docs/packaging.md says which tags remain and why).
phase=$SECONDS
say "lintian $deb"
lintian_status=0
lintian_output=$(lintian --fail-on error "$deb" 2>&1) || lintian_status=$?
grep -v '^running with root privileges' <<<"$lintian_output" || true
[[ $lintian_status -eq 0 ]] || fail "lintian reports errors in $deb (above; exit status $lintian_status)"
say "lintian: no errors"
lintian_seconds=$((SECONDS - phase))

# 3. The clean Debian 12 root, built once.
phase=$SECONDS
arch=$(dpkg --print-architecture)

# The mirror this machine's apt uses for bookworm, from one-line (.list) or deb822 (.sources) files.
debian_mirror() {
    local file
    for file in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [[ -f $file ]] || continue
        awk '$1 == "deb" {
                 i = 2
                 if ($i ~ /^\[/) { while (i < NF && $i !~ /\]$/) i++; i++ }
                 if ($(i + 1) == "bookworm") { print $i; exit }
             }' "$file"
    done
    for file in /etc/apt/sources.list.d/*.sources; do
        [[ -f $file ]] || continue
        awk 'BEGIN { RS = ""; FS = "\n" }
             {
                 types = ""; uris = ""; suites = ""; enabled = "yes"
                 for (i = 1; i <= NF; i++) {
                     if ($i ~ /^Types:/) types = substr($i, 7)
                     else if ($i ~ /^URIs:/) uris = substr($i, 6)
                     else if ($i ~ /^Suites:/) suites = substr($i, 8)
                     else if ($i ~ /^Enabled:/) enabled = substr($i, 9)
                 }
                 if ((" " types " ") ~ / deb / && (" " suites " ") ~ / bookworm / && enabled !~ /no/) {
                     split(uris, list, " "); print list[1]; exit
                 }
             }' "$file"
    done
}
mirror=$(debian_mirror)
mirror=${mirror%%$'\n'*}
[[ $mirror =~ ^(https?|file):/ ]] ||
    fail "no Debian 12 (bookworm) mirror in /etc/apt/sources.list or /etc/apt/sources.list.d/; debootstrap needs one"

# Unmounts everything mounted below a folder, deepest first (a run that was interrupted may
# have left /proc mounted in its root).
unmount_under() {
    [[ -e $1 ]] || return 0
    local dir mount
    dir=$(realpath "$1")
    awk -v dir="$dir/" 'index($2, dir) == 1 { print $2 }' /proc/self/mounts | sort -r |
        while read -r mount; do umount "$mount" || umount -l "$mount"; done
}

root_packages=(man-db bash-completion systemd)
cache=.build-debroot
base=$cache/bookworm-$arch
debootstrap_options=(--variant=minbase "--include=$(IFS=,; echo "${root_packages[*]}")")
# What the cached root was made with: another mirror or package list builds it again.
recipe="debootstrap ${debootstrap_options[*]} bookworm ROOT $mirror"
if [[ -d $base && -f $base.recipe && $(<"$base.recipe") == "$recipe" ]]; then
    say "reusing the Debian 12 root in $base"
    root_built=no
else
    say "building the Debian 12 root: $recipe"
    mkdir -p "$cache"
    unmount_under "$cache"
    rm -rf "$base" "$base.partial" "$base.recipe"
    debootstrap "${debootstrap_options[@]}" bookworm "$base.partial" "$mirror" >"$cache/debootstrap.log" 2>&1 ||
        fail "debootstrap failed (log: $cache/debootstrap.log): $(tail -n 3 "$cache/debootstrap.log")"
    # The package lists apt needs to fetch the package's dependencies; each run refreshes them.
    chroot "$base.partial" apt-get update -qq || fail "apt-get update in the new root failed (mirror $mirror)"
    mv "$base.partial" "$base"
    printf '%s\n' "$recipe" >"$base.recipe"
    root_built=yes
fi
if chroot "$base" sh -c 'command -v swift || command -v swiftc' >/dev/null ||
    [[ -n $(find "$base" -xdev -name 'libswiftCore.so*' -print -quit) ]]; then
    fail "$base holds a Swift toolchain or runtime; the test needs a root without one (rm -rf $cache)"
fi
root_seconds=$((SECONDS - phase))

# 4. Install into a fresh copy of the root and run the installed beaconctl there.
phase=$SECONDS
run=$cache/run
unmount_under "$run"
rm -rf "$run"
cp -a "$base" "$run"
trap 'unmount_under "$run"' EXIT
mount -t proc proc "$run/proc"

in_root() {
    chroot "$run" env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
        LC_ALL=C.UTF-8 TERM=dumb DEBIAN_FRONTEND=noninteractive "$@"
}
check() { say "ok: $*"; }

cp "$deb" "$run/tmp/"
in_root apt-get update -qq || fail "apt-get update in the root failed (mirror $mirror)"
in_root apt-get install -y -qq --no-install-recommends "/tmp/$(basename "$deb")" >"$cache/install.log" 2>&1 ||
    fail "apt-get install of the package in the root failed: $(tail -n 5 "$cache/install.log")"
[[ $(in_root dpkg-query -W -f='${Status}' beaconctl) == "install ok installed" ]] || fail "beaconctl is not installed in the root"
check "apt-get installed $(basename "$deb") and its dependencies ($(dpkg-deb -f "$deb" Depends))"
[[ -z $(find "$run" -xdev \( -name 'libswiftCore.so*' -o -name 'libFoundation*.so*' \) -print -quit) ]] ||
    fail "the root has Swift's libraries after the install: the package must not need them"

output=$(in_root beaconctl --version) || fail "beaconctl --version failed in the root: $output"
[[ $output == "$version" ]] || fail "beaconctl --version printed '$output', the package is $package_version"
check "beaconctl --version: $output"

output=$(in_root man -w beaconctl-advertise) || fail "man -w beaconctl-advertise found no page"
[[ $output == /usr/share/man/man1/beaconctl-advertise.1.gz ]] || fail "man -w beaconctl-advertise: $output"
output=$(in_root man -w beaconctl-fleet-validate beaconctl) || fail "man -w found no page for beaconctl-fleet-validate or beaconctl"
check "man -w beaconctl-advertise: /usr/share/man/man1/beaconctl-advertise.1.gz"
# Rendering the page must not warn (the check lintian makes, here with the root's man-db).
output=$(in_root man --warnings -E UTF-8 -l /usr/share/man/man1/beaconctl-advertise.1.gz 2>&1 >/dev/null)
[[ -z $output ]] || fail "man warns about beaconctl-advertise(1): $output"
check "man renders beaconctl-advertise(1) without warnings"

# bash-completion loads the script on demand from its folder, as at a prompt; then the
# completion function is asked for `beaconctl adv<TAB>`.
output=$(in_root bash -c '
    source /usr/share/bash-completion/bash_completion
    __load_completion beaconctl || { echo "bash-completion found no completion for beaconctl" >&2; exit 1; }
    spec=$(complete -p beaconctl) || exit 1
    function=${spec##*-F }
    function=${function%% *}
    COMP_WORDS=(beaconctl adv)
    COMP_CWORD=1
    COMP_LINE="beaconctl adv"
    COMP_POINT=${#COMP_LINE}
    COMPREPLY=()
    "$function" beaconctl adv beaconctl
    printf "%s\n" "${COMPREPLY[@]}"') || fail "the bash completion failed: $output"
[[ $output == advertise ]] || fail "the bash completion of 'beaconctl adv' offered '${output//$'\n'/ }', not 'advertise'"
check "bash completion of 'beaconctl adv<TAB>' offers: $output"

output=$(in_root beaconctl fleet validate /usr/share/beaconctl/fleets 2>&1) ||
    fail "beaconctl fleet validate /usr/share/beaconctl/fleets: $output"
check "beaconctl fleet validate /usr/share/beaconctl/fleets: $output"

manifest=/usr/share/beaconctl/fleets/jays-donuts.yaml
exported=$(in_root beaconctl fleet export "$manifest" --format json) || fail "beaconctl fleet export $manifest failed"
host=$(sed -n 's/.*"host": "\([^"]*\)".*/\1/p' <<<"$exported")
host=${host%%$'\n'*}
[[ -n $host ]] || fail "no host in $manifest to provision"
output=$(in_root beaconctl provision "$manifest" --host "$host" --hci virtual --verify-hci virtual --once 2>&1) ||
    fail "beaconctl provision $manifest --host $host --hci virtual --verify-hci virtual --once:"$'\n'"$output"
check "beaconctl provision $manifest --host $host --hci virtual --verify-hci virtual --once:"
printf '%s\n' "$output" | sed 's/^/    /'

uuid=89D6E936-F61F-4227-BCD2-6E94C5A6B2E3
output=$(in_root beaconctl advertise --uuid "$uuid" --major 1 --minor 2 --print-systemd-unit) ||
    fail "beaconctl advertise --print-systemd-unit failed: $output"
grep -qx "ExecStart=/usr/bin/beaconctl advertise --hci hci0 --uuid $uuid --major 1 --minor 2" <<<"$output" ||
    fail "--print-systemd-unit does not run /usr/bin/beaconctl:"$'\n'"$output"
check "--print-systemd-unit runs /usr/bin/beaconctl"

unit=/lib/systemd/system/beaconctl-advertise@.service
in_root sh -c "beaconctl advertise --hci hci0 --restart --print-systemd-template | cmp - $unit" ||
    fail "$unit differs from what the installed beaconctl prints (--print-systemd-template)"
check "$unit is what the installed beaconctl prints"
in_root cp /usr/share/beaconctl/fleets/jays-donuts.yaml /etc/beaconctl/
# verify loads the instance as systemd would and checks its binary, its settings and the man
# page it names; any message is a failure.
analyze_verify() { # INSTANCE-UNIT
    local output
    output=$(in_root systemd-analyze verify "$1" 2>&1) || fail "systemd-analyze verify $1:"$'\n'"$output"
    [[ -z $output ]] || fail "systemd-analyze verify $1 warns:"$'\n'"$output"
    check "systemd-analyze verify $1"
}
analyze_verify beaconctl-advertise@jays-donuts.service

unit=/lib/systemd/system/beaconctl-watch@.service
in_root sh -c "beaconctl verify --watch --print-systemd-template | cmp - $unit" ||
    fail "$unit differs from what the installed beaconctl prints (verify --watch --print-systemd-template)"
check "$unit is what the installed beaconctl prints"
# The watch's settings, as an operator writes them (systemd reads the file as root).
in_root sh -c 'umask 077 && printf "%s\n" BEACONCTL_WATCH_INPUT=mqtt://broker.example/beaconctl \
    "BEACONCTL_WATCH_OPTIONS=--mqtt mqtt://broker.example/beaconctl --silence 60" >/etc/beaconctl/jays-donuts.env'
analyze_verify beaconctl-watch@jays-donuts.service

output=$(in_root dpkg --verify beaconctl 2>&1) && [[ -z $output ]] || fail "dpkg --verify beaconctl: $output"
check "dpkg --verify beaconctl (md5sums)"
rm "$run/etc/beaconctl/jays-donuts.yaml" "$run/etc/beaconctl/jays-donuts.env"
in_root dpkg --purge beaconctl >/dev/null || fail "dpkg --purge beaconctl failed"
left=$(cd "$run" && ls -d usr/bin/beaconctl usr/share/beaconctl etc/beaconctl lib/systemd/system/beaconctl-advertise@.service \
    lib/systemd/system/beaconctl-watch@.service 2>/dev/null || true)
[[ -z $left ]] || fail "dpkg --purge beaconctl left: $left"
check "dpkg --purge beaconctl removes it"
test_seconds=$((SECONDS - phase))

trap - EXIT
unmount_under "$run"
rm -rf "$run"
say "passed in $((SECONDS - started)) s: package ${package_seconds} s, lintian ${lintian_seconds} s," \
    "Debian 12 root ${root_seconds} s" \
    "($([[ $root_built == yes ]] && echo built || echo reused)), install and checks ${test_seconds} s"
