#!/usr/bin/env bash
# Builds the Debian package of beaconctl from this checkout:
#   OUTPUT-DIR/beaconctl_VERSION-REVISION_ARCH.deb        (OUTPUT-DIR: .build-package)
# with a release binary that has the Swift runtime linked in (--static-swift-stdlib), so it
# depends only on Debian's libraries; one man page per subcommand, generated from the
# command definitions by swift-argument-parser's generate-manual plugin; bash, zsh and fish
# completions; the JSON Schema and the example fleets; and the template units
# beaconctl-advertise@.service and beaconctl-watch@.service, printed by the binary itself
# (--print-systemd-template).
#
# Usage: scripts/package.sh [--output-dir DIR]
# Environment: DEBFULLNAME and DEBEMAIL   the maintainer (default: the last commit's author)
#              SOURCE_DATE_EPOCH          every date in the package (default: the last commit's)
#
# The version is BeaconCtlVersion.current in Sources/BeaconCLI/Commands/BeaconCtl.swift, the one
# `beaconctl --version` prints. Builds for the architecture it runs on (dpkg
# --print-architecture); see docs/packaging.md for arm64.
set -euo pipefail
cd "$(dirname "$0")/.."
exec </dev/null

say() { printf 'package: %s\n' "$*"; }
fail() { printf 'package: error: %s\n' "$*" >&2; exit 1; }

output_dir=.build-package
while (($#)); do
    case $1 in
        --output-dir)
            [[ $# -ge 2 && -n $2 ]] || fail "--output-dir needs a folder"
            output_dir=$2
            shift 2
            ;;
        *) fail "unknown argument '$1'; usage: scripts/package.sh [--output-dir DIR]" ;;
    esac
done

scripts/bootstrap.sh dpkg-dev binutils

# The Debian revision of the packaging, not of beaconctl: raise it when only the packaging changes.
debian_revision=1
version_file=Sources/BeaconCLI/Commands/BeaconCtl.swift
version=$(sed -n 's/^ *public static let current = "\([^"]*\)"$/\1/p' "$version_file")
[[ $version =~ ^[0-9][A-Za-z0-9.+~]*$ ]] ||
    fail "cannot read one version from $version_file (BeaconCtlVersion.current = \"…\"); read: '${version}'"
package_version=$version-$debian_revision
arch=$(dpkg --print-architecture)

if [[ -z ${SOURCE_DATE_EPOCH:-} ]]; then
    SOURCE_DATE_EPOCH=$(git log -1 --format=%ct 2>/dev/null) ||
        fail "not a git checkout: set SOURCE_DATE_EPOCH (seconds since 1970) to date the package"
fi
export SOURCE_DATE_EPOCH
commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo "an unknown commit")
if [[ -n ${DEBFULLNAME:-} && -n ${DEBEMAIL:-} ]]; then
    maintainer="$DEBFULLNAME <$DEBEMAIL>"
else
    maintainer=$(git log -1 --format='%an <%ae>' 2>/dev/null) || maintainer=
fi
[[ $maintainer =~ ^[^\<\>]+\ \<[^\<\>@]+@[^\<\>@]+\>$ ]] ||
    fail "no maintainer: set DEBFULLNAME and DEBEMAIL (read '${maintainer}')"

say "beaconctl $package_version for $arch, from commit $commit"

# 1. The binary: release, Swift runtime linked statically, no $ORIGIN run path (Debian
# forbids custom library search paths), bind-now relocations (hardening).
scratch=.build-release-static
swift build -c release --product beaconctl --static-swift-stdlib --disable-local-rpath \
    -Xlinker -z -Xlinker now --scratch-path "$scratch"
binary=$(swift build -c release --scratch-path "$scratch" --show-bin-path)/beaconctl
[[ -x $binary ]] || fail "the build reported success but left no $binary"

needed=$(objdump -p "$binary" | awk '$1 == "NEEDED" { print $2 }')
swift_libraries=$(grep -E '^lib(swift|Foundation|dispatch|BlocksRuntime|_)' <<<"$needed" || true)
[[ -z $swift_libraries ]] ||
    fail "$binary still loads Swift's libraries ($(tr '\n' ' ' <<<"$swift_libraries")); was --static-swift-stdlib dropped?"
if objdump -p "$binary" | grep -qE '^ *(RPATH|RUNPATH) '; then
    fail "$binary has a run path; --disable-local-rpath should have left none"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/beaconctl-package.XXXXXX")
trap 'rm -rf "$work"' EXIT
umask 022
# debian/beaconctl: the layout dpkg-shlibdeps expects for the package's files.
root=$work/debian/beaconctl
install -d "$root/DEBIAN"

install -D -m 0755 "$binary" "$root/usr/bin/beaconctl"
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$root/usr/bin/beaconctl"
staged=$(realpath "$root/usr/bin/beaconctl")
printed_version=$(env -i "$staged" --version)
[[ $printed_version == "$version" ]] ||
    fail "the built binary says version '$printed_version', $version_file says '$version': a stale build?"

# 2. Completions, in the folders bash-completion, zsh and fish load from. The bash script is
# sourced, never run: no #! line (lintian: bash-completion-with-hashbang).
env -i "$staged" --generate-completion-script bash | sed '1{/^#!/d}' |
    install -D -m 0644 /dev/stdin "$root/usr/share/bash-completion/completions/beaconctl"
env -i "$staged" --generate-completion-script zsh |
    install -D -m 0644 /dev/stdin "$root/usr/share/zsh/vendor-completions/_beaconctl"
env -i "$staged" --generate-completion-script fish |
    install -D -m 0644 /dev/stdin "$root/usr/share/fish/vendor_completions.d/beaconctl.fish"

# 3. The template units, printed by the binary: advertise's from the same code as
# --print-systemd-unit, and the watch's (verify --watch). The binary names itself by absolute
# path: the staged path becomes the installed one, and nothing else may differ.
install_unit() { # FILE-NAME SUBCOMMAND ARGUMENT...
    local name=$1 subcommand=$2 unit exec_start
    shift 2
    unit=$(cd / && env -i "$staged" "$subcommand" "$@" --print-systemd-template)
    exec_start="ExecStart=$staged $subcommand "
    [[ $(grep -F -- "$staged" <<<"$unit") == "$exec_start"* ]] ||
        fail "$subcommand $* --print-systemd-template did not name $staged once, in ExecStart; it printed:"$'\n'"$unit"
    unit=${unit/"$exec_start"/"ExecStart=/usr/bin/beaconctl $subcommand "}
    printf '%s\n' "$unit" | install -D -m 0644 /dev/stdin "$root/lib/systemd/system/$name"
}
install_unit beaconctl-advertise@.service advertise --hci hci0 --restart
install_unit beaconctl-watch@.service verify --watch
# The instances' manifests live here (/etc/beaconctl/NAME.yaml), and the watch's settings (NAME.env).
install -d -m 0755 "$root/etc/beaconctl"

# 4. Man pages: swift-argument-parser's generate-manual plugin, one page per subcommand. It
# names them beaconctl.fleet.validate.1; Debian's convention (git-commit(1)) is
# beaconctl-fleet-validate, so file names, titles (.Dt) and cross references (.Xr) use it.
# Two more mechanical rewrites make the pages what man-db reads cleanly: the NAME section
# names the page by that one word (whatis/apropos cannot index "beaconctl fleet validate"),
# while the SYNOPSIS keeps the words one types; a blank line in a help text, which groff
# warns about, becomes the paragraph break it means (.Pp).
say "man pages: swift package plugin generate-manual"
manual_output=.build/plugins/GenerateManual/outputs/beaconctl
rm -rf "$manual_output"
swift package plugin generate-manual --multi-page --date "$(date -u -d "@$SOURCE_DATE_EPOCH" +%F)"
compgen -G "$manual_output/beaconctl.*.1" >/dev/null || fail "the generate-manual plugin wrote no subcommand pages to $manual_output"
install -d "$root/usr/share/man/man1"
for page in "$manual_output"/*.1; do
    name=$(basename "$page" .1)
    words=${name//./ }
    sed -e ':title' -e 's/^\(\.Dt [A-Z0-9-]*\)\./\1-/' -e 't title' \
        -e ':reference' -e 's/^\(\.Xr [a-z0-9-]*\)\./\1-/' -e 't reference' \
        -e "s/^\\.Nm \"$words\"\$/.Nm ${name//./-}/" \
        -e "s/^\\.Nm\$/.Nm \"$words\"/" \
        -e 's/^$/.Pp/' "$page" |
        gzip -9n >"$root/usr/share/man/man1/${name//./-}.1.gz"
done
for reference in $(zcat "$root"/usr/share/man/man1/*.gz | sed -n 's/^\.Xr \([^ ]*\) 1.*/\1/p' | sort -u); do
    [[ -f $root/usr/share/man/man1/$reference.1.gz ]] || fail "a man page refers to $reference(1), which was not generated"
done

# 5. Data: the manifest schema (for editors) and the example fleets.
install -D -m 0644 -t "$root/usr/share/beaconctl/schema" schema/*.json
install -D -m 0644 -t "$root/usr/share/beaconctl/fleets" fleets/*.yaml

# 6. Debian's own files: copyright, changelog, maintainer scripts, control, md5sums.
docs=$root/usr/share/doc/beaconctl
install -D -m 0644 packaging/debian/copyright "$docs/copyright"
install -D -m 0644 packaging/debian/lintian-overrides "$root/usr/share/lintian/overrides/beaconctl"
{
    printf 'beaconctl (%s) unstable; urgency=medium\n\n' "$package_version"
    printf '  * beaconctl %s, built from commit %s.\n\n' "$version" "$commit"
    printf ' -- %s  %s\n' "$maintainer" "$(date -u -R -d "@$SOURCE_DATE_EPOCH")"
} | gzip -9n >"$docs/changelog.Debian.gz"
chmod 0644 "$docs/changelog.Debian.gz"
install -m 0755 packaging/debian/postinst packaging/debian/postrm "$root/DEBIAN/"

# dpkg-shlibdeps maps every library the binary loads to the Debian package and version providing it.
printf 'Source: beaconctl\n\nPackage: beaconctl\nArchitecture: any\n' >"$work/debian/control"
depends=$(cd "$work" && dpkg-shlibdeps -O debian/beaconctl/usr/bin/beaconctl | sed -n 's/^shlibs:Depends=//p')
[[ -n $depends ]] || fail "dpkg-shlibdeps found no dependencies for usr/bin/beaconctl"

installed_size=$(du -s -k --apparent-size --exclude=DEBIAN "$root" | cut -f1)
cat >"$root/DEBIAN/control" <<EOF
Package: beaconctl
Version: $package_version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $installed_size
Depends: $depends
Section: net
Priority: optional
Description: turn Linux boxes into iBeacons and audit fleets of them
 beaconctl makes a Raspberry Pi, a kiosk PC or a gateway one or many iBeacons
 by driving its Bluetooth controller over HCI, checking every answer the
 controller gives. It keeps a venue deployment in a YAML fleet manifest,
 validated for unique identities and sane values, and scans the air to confirm
 every beacon of the manifest is there with the right identity and power.
 .
 The package holds the beaconctl command, its man pages and shell completions,
 the manifest JSON Schema and example fleets in /usr/share/beaconctl, and the
 systemd templates beaconctl-advertise@.service (instance NAME advertises this
 host's beacons of /etc/beaconctl/NAME.yaml) and beaconctl-watch@.service
 (instance NAME audits the beacons of /etc/beaconctl/NAME.yaml continuously,
 from what every receiver publishes to an MQTT broker).
EOF
(cd "$root" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | LC_ALL=C sort -z | xargs -0 md5sum) >"$root/DEBIAN/md5sums"
chmod 0644 "$root/DEBIAN/control" "$root/DEBIAN/md5sums"

mkdir -p "$output_dir"
rm -f "$output_dir"/beaconctl_*.deb
deb=$output_dir/beaconctl_${package_version}_${arch}.deb
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
say "built $deb ($(du -h "$deb" | cut -f1)); Depends: $depends"
