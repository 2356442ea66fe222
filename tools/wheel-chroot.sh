#!/usr/bin/env bash
# wheel-chroot.sh [ROOT] - build the wheel on an older glibc, as root: a Debian 11
# (bullseye, glibc 2.31, gcc 10) chroot made with debootstrap at ROOT (default
# /var/cache/rocm-resolve/bullseye), the tree bind-mounted at /src, the wheel built
# there with tools/build-wheel.sh (auditwheel tags it $plat, below, or fails when
# the binary needs a newer glibc: installs on Ubuntu 20.04, 22.04 and 24.04), then
# installed into a clean venv inside the same chroot and run by
# tests/package/wheel-test.sh. The wheel lands in dist/.
# The binaries link libstdc++ in (meson.build: static_cxx_runtime), so gcc 10's C++
# runtime asks nothing of the target system and glibc alone sets the tag: the
# Python tools are pinned (tools/wheel-tools.txt), Debian 11's packages are its own.
# Needs: debootstrap, and Debian's and PyPI's servers (apt and pip, as set up here).
# bullseye has no toml++ package: its headers are taken from the host's
# libtomlplusplus-dev and built header-only (TOML_HEADER_ONLY=1).
set -euo pipefail
# the release wheel's platform tag: README.md names it (tools/check-packaging-docs.py,
# the docs-packaging test, keeps them the same)
plat=manylinux_2_28_x86_64
cd "$(dirname "$0")/.."
root=${1:-/var/cache/rocm-resolve/bullseye}
src=$PWD
pkgs=gcc,g++,pkg-config,libc6-dev,libjansson-dev,libpcre2-dev,libcurl4-openssl-dev,libarchive-dev,libelf-dev
pkgs+=,python3,python3-venv,ca-certificates

if [ ! -x "$root/usr/bin/python3" ]; then
	mkdir -p "$root"
	debootstrap --variant=minbase --include="$pkgs" bullseye "$root" http://deb.debian.org/debian
fi
mkdir -p "$root/usr/local/include" "$root/usr/local/lib/pkgconfig" "$root/src"
rm -rf "$root/usr/local/include/toml++"
cp -r /usr/include/toml++ "$root/usr/local/include/"
cat >"$root/usr/local/lib/pkgconfig/tomlplusplus.pc" <<'PC'
prefix=/usr/local
includedir=${prefix}/include
Name: tomlplusplus
Description: TOML config file parser and serializer for C++ (header-only)
Version: 3.3.0
Cflags: -I${includedir} -DTOML_HEADER_ONLY=1
PC
cp /etc/resolv.conf "$root/etc/resolv.conf"
# the host's CA bundle (it may hold the mirror's CA) and pip settings for PyPI
cp /etc/ssl/certs/ca-certificates.crt "$root/etc/host-ca.crt"

mounted=()
cleanup() {
	for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount "${mounted[i]}" || true; done
}
trap cleanup EXIT
for m in proc dev src; do
	if ! mountpoint -q "$root/$m"; then
		case $m in
		proc) mount -t proc proc "$root/proc" ;;
		dev) mount --bind /dev "$root/dev" ;;
		src) mount --bind "$src" "$root/src" ;;
		esac
		mounted+=("$root/$m")
	fi
done

in_root() {
	chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 \
		PATH=/opt/wheel-tools/bin:/usr/local/bin:/usr/bin:/bin \
		PIP_CERT=/etc/host-ca.crt PIP_DISABLE_PIP_VERSION_CHECK=1 \
		PKG_CONFIG_PATH=/usr/local/lib/pkgconfig "$@"
}
# the build tools, pinned by version and hash (tools/wheel-tools.txt; uv too, so that the
# test also runs uv tool install and uvx on glibc 2.31); made again when the pins change
if ! cmp -s tools/wheel-tools.txt "$root/opt/wheel-tools/pinned.txt"; then
	rm -rf "$root/opt/wheel-tools"
	in_root python3 -m venv /opt/wheel-tools
	in_root pip install -q --no-deps --require-hashes -r /src/tools/wheel-tools.txt
	cp tools/wheel-tools.txt "$root/opt/wheel-tools/pinned.txt"
fi
# a chroot made before a package was added to pkgs gets it now
[ -f "$root/usr/include/libelf.h" ] ||
	in_root bash -c 'apt-get update -qq && apt-get install -y -qq --no-install-recommends libelf-dev'
in_root bash -c 'ldd --version | head -1; gcc --version | head -1; python3 --version
	pip freeze --all | tr "\n" " "; echo'
rm -rf build-wheel-bullseye/dist
in_root env RR_WHEEL_PLAT=$plat /src/tools/build-wheel.sh /src/build-wheel-bullseye/dist /src/build-wheel-bullseye/build
whl=$(ls build-wheel-bullseye/dist/rocm_resolve-*.whl)
in_root auditwheel show "/src/$whl"
# the wheel in a clean venv on glibc 2.31 (no meson, no compiler involved)
in_root /src/tests/package/wheel-test.sh /tmp/wheel-test "/src/$whl"
mkdir -p dist
cp "$whl" dist/
echo "dist/$(basename "$whl")"
