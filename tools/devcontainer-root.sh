#!/usr/bin/env bash
# devcontainer-root.sh [ROOT] - the Debian 12 root the devcontainer Feature's end-to-end
# test (tests/package/devcontainer-test.py) runs the Feature in, as root: debootstrap
# --variant=minbase bookworm at ROOT (default /var/cache/rocm-resolve/bookworm-devcontainer)
# with python3, python3-venv (the image's Python), libcurl4 and libarchive13 (what the
# ROCm images have), then its .debs and package lists removed. Made once and only read
# afterwards (the test mounts it as the lowest overlayfs layer); about two minutes and
# 230 MB. Needs debootstrap and Debian's servers; ./bootstrap test runs it.
set -euo pipefail
root=${1:-/var/cache/rocm-resolve/bookworm-devcontainer}
pkgs=python3,python3-venv,libcurl4,libarchive13
if [ -x "$root/usr/bin/python3" ] && [ -e "$root/.rocm-resolve-root" ]; then
	exit 0
fi
command -v debootstrap >/dev/null || {
	echo "devcontainer-root.sh: needs debootstrap (apt-get install debootstrap)" >&2
	exit 1
}
rm -rf "$root.new"
mkdir -p "$(dirname "$root")"
debootstrap --variant=minbase --include="$pkgs" bookworm "$root.new" http://deb.debian.org/debian >/dev/null
rm -rf "$root.new"/var/cache/apt/archives/*.deb "$root.new"/var/lib/apt/lists/*
echo "$pkgs" >"$root.new/.rocm-resolve-root"
rm -rf "$root"
mv "$root.new" "$root"
