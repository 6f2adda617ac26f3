#!/usr/bin/env bash
# Installs the Debian packages named on the command line that are missing: as root directly, else
# through sudo when it works without a password; otherwise prints the exact command and fails.
set -euo pipefail
missing=()
for package in "$@"; do
    status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
    [[ "$status" == "install ok installed" ]] || missing+=("$package")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0
echo "apt-ensure: installing ${missing[*]}" >&2
if [[ $(id -u) -eq 0 ]]; then
    run=()
elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    run=(sudo)
else
    echo "apt-ensure: missing packages; run:" >&2
    echo "  sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
# Another apt may be running (unattended upgrades, a parallel build): wait for its lock.
"${run[@]}" apt-get -o DPkg::Lock::Timeout=600 update -qq >&2
"${run[@]}" apt-get -o DPkg::Lock::Timeout=600 install -y -qq "${missing[@]}" >&2
