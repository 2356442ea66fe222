#!/bin/sh
# install.sh - the rocm-resolve devcontainer Feature: installs rocm-resolve into its
# own venv (PREFIX, default /opt/rocm-resolve: never into /opt/venv, the venv it
# protects) and links the command into BINDIR (default /usr/local/bin) and the man
# pages into /usr/local/share/man. Runs as root at image build time; also runs on
# its own: WHEEL=dist/rocm_resolve-....whl sh install.sh
# Options (the Feature passes them upper-cased): VERSION (PyPI; default latest),
# WHEEL (URL, absolute path, or a file name next to this script; default: a
# rocm_resolve-*.whl next to this script, else PyPI), PREFIX.
set -eu
VERSION=${VERSION:-latest}
WHEEL=${WHEEL:-}
PREFIX=${PREFIX:-/opt/rocm-resolve}
BINDIR=${BINDIR:-/usr/local/bin}
MANDIR=${MANDIR:-/usr/local/share/man}
here=$(cd "$(dirname "$0")" && pwd)

if [ -z "$WHEEL" ]; then
	for w in "$here"/rocm_resolve-*.whl; do
		[ -e "$w" ] && WHEEL=$w
	done
fi
case $WHEEL in
"")
	spec=rocm-resolve
	[ "$VERSION" = latest ] || spec="rocm-resolve==$VERSION"
	;;
http://* | https://* | /*) spec=$WHEEL ;;
*) spec=$here/$WHEEL ;;
esac

# the image's python (rocm/pytorch: /opt/venv's interpreter; venv copies nothing of it)
py=$(command -v python3 || true)
if [ -z "$py" ] || ! "$py" -m venv --help >/dev/null 2>&1; then
	if command -v apt-get >/dev/null 2>&1; then
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
			apt-get install -y -qq --no-install-recommends python3 python3-venv >/dev/null
		py=$(command -v python3)
	else
		echo "rocm-resolve feature: error: needs python3 with the venv module" >&2
		exit 1
	fi
fi
rm -rf "$PREFIX"
"$py" -m venv "$PREFIX"
if ! "$PREFIX/bin/python" -m pip install -q --no-cache-dir "$spec"; then
	echo "rocm-resolve feature: error: cannot install $spec" >&2
	if [ "$spec" = rocm-resolve ] || [ "${spec#rocm-resolve==}" != "$spec" ]; then
		echo "rocm-resolve feature: hint: until rocm-resolve is on PyPI, build a wheel" \
			"(./bootstrap wheel) and put it next to install.sh or give the 'wheel' option" >&2
	fi
	exit 1
fi
mkdir -p "$BINDIR" "$MANDIR/man1" "$MANDIR/man5"
ln -sf "$PREFIX/bin/rocm-resolve" "$BINDIR/rocm-resolve"
ln -sf "$PREFIX/share/man/man1/rocm-resolve.1" "$MANDIR/man1/rocm-resolve.1"
ln -sf "$PREFIX/share/man/man5/rocm-resolve-scenario.5" "$MANDIR/man5/rocm-resolve-scenario.5"
"$BINDIR/rocm-resolve" --version
