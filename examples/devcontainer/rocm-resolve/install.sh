#!/bin/sh
# install.sh - the rocm-resolve devcontainer Feature: installs rocm-resolve into its
# own venv (PREFIX, default /opt/rocm-resolve: never into /opt/venv, the venv it
# protects) and links the commands (rocm-resolve, rr-testcase) into BINDIR (default
# /usr/local/bin) and the man pages into /usr/local/share/man. Runs as root at image
# build time; also runs on its own: WHEEL=dist/rocm_resolve-....whl sh install.sh
# Options (the Feature passes them upper-cased): VERSION (PyPI; default latest),
# WHEEL (URL, absolute path, or a file name next to this script; default: a
# rocm_resolve-*.whl next to this script, else PyPI), PREFIX, VENV (the venv the
# project installs into, default /opt/venv), VENVGROUPWRITE (default true: when the
# devcontainer's remoteUser, _REMOTE_USER, is not root, VENV is given to that user's
# group, group-writable, so `rocm-resolve install` can run as that user).
# PREFIX is the Feature's own: a directory there that the Feature did not create (no
# .rocm-resolve-feature marker in it) is never removed, so prefix=/opt/venv fails
# instead of deleting the stack.
set -eu
VERSION=${VERSION:-latest}
WHEEL=${WHEEL:-}
PREFIX=${PREFIX:-/opt/rocm-resolve}
VENV=${VENV:-/opt/venv}
VENVGROUPWRITE=${VENVGROUPWRITE:-true}
REMOTE_USER=${_REMOTE_USER:-}
BINDIR=${BINDIR:-/usr/local/bin}
MANDIR=${MANDIR:-/usr/local/share/man}
MARKER=.rocm-resolve-feature
here=$(cd "$(dirname "$0")" && pwd)

die() {
	echo "rocm-resolve feature: error: $*" >&2
	exit 1
}

case $PREFIX in
/*) ;;
*) die "prefix '$PREFIX' must be an absolute path" ;;
esac
# a prefix that holds anything the Feature did not put there is not ours to replace
if [ -e "$PREFIX" ] && [ ! -e "$PREFIX/$MARKER" ] &&
	[ -n "$(ls -A "$PREFIX" 2>/dev/null || echo unreadable)" ]; then
	die "prefix '$PREFIX' already holds files this Feature did not create (the venv" \
		"rocm-resolve protects, say); choose an empty or new directory, e.g. the default" \
		"/opt/rocm-resolve. Nothing was changed"
fi

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
# the shared libraries the index client loads (dlopen) when an index is asked
if ! ldconfig -p 2>/dev/null | grep -q 'libcurl\.so\.4 ' ||
	! ldconfig -p 2>/dev/null | grep -q 'libarchive\.so\.13 '; then
	if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
		apt-get update -qq
		# Ubuntu 24.04 names them ...t64; Debian 12 and Ubuntu 22.04 do not
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
			libcurl4t64 libarchive13t64 >/dev/null 2>&1 ||
			DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
				--no-install-recommends libcurl4 libarchive13 >/dev/null ||
			die "cannot install libcurl and libarchive (apt-get)"
	else
		echo "rocm-resolve feature: warning: libcurl.so.4 or libarchive.so.13 is" \
			"missing; plan and check need them to ask an index" >&2
	fi
fi
[ -e "$PREFIX/$MARKER" ] && rm -rf "$PREFIX"
"$py" -m venv "$PREFIX"
: >"$PREFIX/$MARKER"
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
# rr-testcase replays a --write-testcase bug report (a wheel without it links none)
if [ -x "$PREFIX/bin/rr-testcase" ]; then
	ln -sf "$PREFIX/bin/rr-testcase" "$BINDIR/rr-testcase"
fi
ln -sf "$PREFIX/share/man/man1/rocm-resolve.1" "$MANDIR/man1/rocm-resolve.1"
ln -sf "$PREFIX/share/man/man5/rocm-resolve-scenario.5" "$MANDIR/man5/rocm-resolve-scenario.5"
# a non-root remoteUser must be able to write the venv `rocm-resolve install` changes
if [ -n "$REMOTE_USER" ] && [ "$REMOTE_USER" != root ] && [ "$VENVGROUPWRITE" = true ] &&
	[ -d "$VENV" ]; then
	group=$(id -gn "$REMOTE_USER" 2>/dev/null) ||
		die "remoteUser '$REMOTE_USER' does not exist in the image"
	chgrp -R "$group" "$VENV"
	chmod -R g+rwX "$VENV"
	find "$VENV" -type d -exec chmod g+s {} +
	echo "rocm-resolve feature: $VENV is now writable by group '$group' (remoteUser" \
		"$REMOTE_USER), so rocm-resolve install can run as that user"
fi
"$BINDIR/rocm-resolve" --version
