#!/usr/bin/env bash
# Creates (or brings up to date) the Python virtual environment the integration tests use:
# RootCanal, Bumble, jsonschema and PyYAML at the versions pinned in requirements-test.txt.
#
# Usage: scripts/setup-venv.sh [DIR]     DIR defaults to .venv at the repository root.
# Environment: PYTHON   the interpreter to build the venv from (default: python3).
#
# Idempotent: when DIR already holds the pinned set (a stamp file records the hash of the
# requirements and the interpreter version), it checks that and exits within a second.
# The integration tests find DIR through BEACONCTL_VENV, else <repository root>/.venv.
set -euo pipefail

say() { printf 'setup-venv: %s\n' "$*"; }
fail() { printf 'setup-venv: error: %s\n' "$*" >&2; exit 1; }

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo_root="$(cd "$script_dir/.." && pwd)"
requirements="$script_dir/requirements-test.txt"
venv_dir="${1:-$repo_root/.venv}"
python="${PYTHON:-python3}"

# pip must never wait for an answer: this runs in CI with no standard input.
export PIP_NO_INPUT=1
exec </dev/null

[[ -f "$requirements" ]] || fail "missing $requirements (the pinned test requirements)"

command -v "$python" >/dev/null 2>&1 ||
  fail "no '$python' on PATH: install Python 3 (Debian: apt-get install python3 python3-venv) or set PYTHON"

# Debian splits venv support out of python3: without python3-venv, 'python3 -m venv' creates
# a venv with no pip in it and fails half way. Detect that before touching DIR.
if ! "$python" -c 'import venv, ensurepip' >/dev/null 2>&1; then
  fail "'$python' cannot create virtual environments (its venv/ensurepip modules are missing): on Debian or Ubuntu install the python3-venv package (apt-get install python3-venv), then run this script again"
fi

python_version="$("$python" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])')"
requirements_hash="$(sha256sum "$requirements" | cut -d' ' -f1)"
wanted_stamp="$requirements_hash python-$python_version"
stamp_file="$venv_dir/.requirements-test.stamp"
venv_python="$venv_dir/bin/python"

venv_python_version() {
  "$venv_python" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])' 2>/dev/null
}

# The RootCanal binary sits inside its wheel, one folder per platform.
rootcanal_binary() {
  local machine
  machine="$(uname -m)"
  compgen -G "$venv_dir/lib/python3.*/site-packages/rootcanal/bin/linux-$machine/rootcanal" | head -n 1
}

if [[ -f "$stamp_file" && -x "$venv_python" ]] &&
  [[ "$(cat "$stamp_file")" == "$wanted_stamp" ]] &&
  [[ "$(venv_python_version)" == "$python_version" ]] &&
  binary="$(rootcanal_binary)" && [[ -x "$binary" ]]; then
  say "$venv_dir is up to date (requirements ${requirements_hash:0:12}, Python $python_version)"
  say "RootCanal: $binary"
  exit 0
fi

if [[ -x "$venv_python" ]] && [[ "$(venv_python_version)" == "$python_version" ]]; then
  say "updating the virtual environment in $venv_dir"
else
  # A missing or broken venv (its interpreter moved or was removed), or one built by
  # another Python, is rebuilt from scratch. --clear empties DIR first: never do that to a
  # folder that is not a venv (a mistyped argument must not wipe someone's files).
  if [[ -d "$venv_dir" && ! -f "$venv_dir/pyvenv.cfg" ]] && [[ -n "$(ls -A "$venv_dir")" ]]; then
    fail "$venv_dir exists, is not empty and is not a virtual environment (no pyvenv.cfg): choose another DIR, or remove it yourself"
  fi
  say "creating a virtual environment in $venv_dir with $python (Python $python_version)"
  "$python" -m venv --clear "$venv_dir"
fi

rm -f "$stamp_file"
say "installing the pinned test requirements from $requirements"
"$venv_python" -m pip install --disable-pip-version-check --quiet --requirement "$requirements"

binary="$(rootcanal_binary)" ||
  fail "rootcanal installed but has no binary for linux-$(uname -m) under $venv_dir/lib/python3.*/site-packages/rootcanal/bin: this platform is not supported by the rootcanal wheel"
[[ -x "$binary" ]] || chmod +x "$binary"

# Prove the binary runs here (a too-old glibc shows up now, not in the middle of a test).
"$binary" -version >/dev/null 2>&1 ||
  fail "$binary does not run on this machine (try: '$binary -version'); rootcanal 1.10.0 needs glibc 2.34 or newer"

printf '%s\n' "$wanted_stamp" >"$stamp_file"
say "done: RootCanal at $binary"
if [[ "$venv_dir" != "$repo_root/.venv" ]]; then
  say "the integration tests look in $repo_root/.venv; for this one: export BEACONCTL_VENV=$venv_dir"
fi
