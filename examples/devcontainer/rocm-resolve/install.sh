#!/bin/sh
# install.sh - the rocm-resolve devcontainer Feature: installs rocm-resolve into its
# own venv (PREFIX, default /opt/rocm-resolve: never into /opt/venv, the venv it
# protects) and links the commands (rocm-resolve, rr-testcase) into BINDIR (default
# /usr/local/bin) and the man pages into /usr/local/share/man. Runs as root at image
# build time; also runs on its own: WHEEL=dist/rocm_resolve-....whl sh install.sh
# Options (the Feature passes them upper-cased):
#   WHEEL     a wheel: URL, absolute path, or a file name next to this script; default:
#             a rocm_resolve-*.whl next to this script
#   VERSION, INDEX   with no wheel: install rocm-resolve==VERSION from the index at INDEX
#             (both needed: a bare name from an index, as root, runs whatever that index
#             serves under the name)
#   PREFIX    the tool's own venv; a directory there that the Feature did not create (no
#             .rocm-resolve-feature marker in it) is refused, never replaced
#   VENV      the venv the project installs into (default /opt/venv)
#   VENVGROUPWRITE   (default true) when the devcontainer's remoteUser (_REMOTE_USER) is
#             not root: VENV's directories go to the group 'rocm-venv' (made here, the user
#             added to it), group-writable, so `rocm-resolve install` can run as that user.
#             A group of its own survives the devcontainer CLI renumbering the user's own
#             group to the host's GID; directories only, so the image layer holds no copy
#             of the venv's files (pip and uv replace a file by unlink and create)
# Everything is checked before anything is changed: a refusal leaves the image as it was.
set -eu
VERSION=${VERSION:-}
WHEEL=${WHEEL:-}
INDEX=${INDEX:-}
PREFIX=${PREFIX:-/opt/rocm-resolve}
VENV=${VENV:-/opt/venv}
VENVGROUPWRITE=${VENVGROUPWRITE:-true}
REMOTE_USER=${_REMOTE_USER:-}
BINDIR=${BINDIR:-/usr/local/bin}
MANDIR=${MANDIR:-/usr/local/share/man}
GROUP=rocm-venv
MARKER=.rocm-resolve-feature
here=$(cd "$(dirname "$0")" && pwd)

say() { echo "rocm-resolve feature: $*"; }
die() {
	echo "rocm-resolve feature: error: $*" >&2
	exit 1
}
# a path with its symlinks resolved and no trailing slash (the path itself when
# realpath is missing)
canon() { realpath -m "$1" 2>/dev/null || printf '%s\n' "$1"; }

# ---------------------------------------------------------------- checks (no change yet)
case $PREFIX in
/*) ;;
*) die "prefix '$PREFIX' must be an absolute path. Nothing was changed" ;;
esac
prefix=$(canon "$PREFIX")
venv=$(canon "$VENV")
case $prefix/ in
"$venv"/*) die "prefix '$PREFIX' is the venv '$VENV' or inside it: the tool must live apart" \
	"from the venv it protects. Choose another prefix (the default is /opt/rocm-resolve)." \
	"Nothing was changed" ;;
esac
case $venv/ in
"$prefix"/*) die "venv '$VENV' is inside prefix '$PREFIX': the tool must live apart from" \
	"the venv it protects. Choose another prefix. Nothing was changed" ;;
esac
# a prefix that holds anything the Feature did not put there is not ours to replace
if [ -e "$PREFIX" ] && [ ! -e "$PREFIX/$MARKER" ] &&
	[ -n "$(ls -A "$PREFIX" 2>/dev/null || echo unreadable)" ]; then
	if [ -e "$PREFIX/bin/rocm-resolve" ]; then
		die "prefix '$PREFIX' already holds a rocm-resolve this Feature did not install" \
			"(a Dockerfile's, say): keep that one and drop the Feature, or give the Feature" \
			"another prefix. Nothing was changed"
	fi
	die "prefix '$PREFIX' already holds files this Feature did not create (the venv" \
		"rocm-resolve protects, say): choose a prefix that does not exist yet or is empty." \
		"Nothing was changed"
fi
# the commands on PATH: ours (links into PREFIX) are replaced, anything else is not
for c in rocm-resolve rr-testcase; do
	if [ -e "$BINDIR/$c" ] || [ -L "$BINDIR/$c" ]; then
		to=$(readlink "$BINDIR/$c" 2>/dev/null || true)
		if [ "$to" != "$PREFIX/bin/$c" ]; then
			die "'$BINDIR/$c' already exists${to:+ (a link to '$to')} and is not this" \
				"Feature's: remove it first (or drop the Feature if that rocm-resolve is the" \
				"one you want). Nothing was changed"
		fi
	fi
done

# where the tool comes from: a wheel, else an exact version from a named index
if [ -z "$WHEEL" ]; then
	for w in "$here"/rocm_resolve-*.whl; do
		[ -e "$w" ] && WHEEL=$w
	done
fi
pip_from="--no-index"
case $WHEEL in
"")
	[ "$VERSION" = latest ] && VERSION=
	if [ -z "$VERSION" ] || [ -z "$INDEX" ]; then
		die "no rocm-resolve wheel next to install.sh and no 'wheel' option; to install from" \
			"an index, give both 'version' (an exact version) and 'index' (the URL of the" \
			"index that serves it): a bare name, installed as root, runs whatever an index" \
			"serves under it. Build a wheel with ./bootstrap wheel (in rocm-resolve) and put" \
			"it next to install.sh. Nothing was changed"
	fi
	case $VERSION in
	[0-9]*) ;;
	*) die "version '$VERSION' is not a version (an exact one, such as 0.1.0). Nothing was changed" ;;
	esac
	case $VERSION in
	*[!0-9A-Za-z.+!_-]*) die "version '$VERSION' is not an exact version (such as 0.1.0)." \
		"Nothing was changed" ;;
	esac
	spec="rocm-resolve==$VERSION"
	pip_from="--index-url=$INDEX"
	;;
http://* | https://* | /*) spec=$WHEEL ;;
*) spec=$here/$WHEEL ;;
esac
case $spec in
/*) [ -f "$spec" ] || die "wheel '$spec' does not exist. Nothing was changed" ;;
esac

# the venv a non-root remoteUser's `rocm-resolve install` writes
group_venv=
if [ -n "$REMOTE_USER" ] && [ "$REMOTE_USER" != root ] && [ "$VENVGROUPWRITE" = true ]; then
	id "$REMOTE_USER" >/dev/null 2>&1 ||
		die "remoteUser '$REMOTE_USER' does not exist in the image yet: the Feature that" \
			"creates it (common-utils, say) must run first. Nothing was changed"
	if [ ! -e "$VENV" ]; then
		say "warning: venv '$VENV' does not exist in the image, so no group was given" \
			"write access to it; \`rocm-resolve install\` as $REMOTE_USER needs a venv it can" \
			"write: set the Feature's 'venv' option to the image's venv" >&2
	else
		case $venv in
		/ | /usr | /usr/* | /bin | /sbin | /lib | /lib32 | /lib64 | /libx32 | /etc | /etc/* | \
			/var | /boot | /dev | /proc | /sys | /run | /opt | /home | /root | /srv | /tmp)
			sys=yes ;;
		*) sys= ;;
		esac
		suid=$(find "$VENV" -xdev -type f -perm /6000 2>/dev/null | head -n 1)
		if [ -n "$sys" ] || [ -n "$suid" ] ||
			{ [ ! -e "$VENV/pyvenv.cfg" ] && [ ! -d "$VENV/conda-meta" ]; }; then
			die "venv '$VENV' is${sys:+ a system prefix,} not a virtual environment of its" \
				"own${suid:+ (it holds the setuid program '$suid')}: venvGroupWrite would let" \
				"remoteUser '$REMOTE_USER' replace what is in it. Set venvGroupWrite to false" \
				"and run \`rocm-resolve install\` at image build time, as root (a Dockerfile" \
				"RUN), or give 'venv' the image's virtual environment. Nothing was changed"
		fi
		group_venv=$VENV
	fi
fi

# ---------------------------------------------------------------- changes
apt_updated=
apt_install() {
	[ -n "$apt_updated" ] || apt-get update -qq
	apt_updated=yes
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}
# the image's python (rocm/pytorch: /opt/venv's interpreter; venv copies nothing of it)
py=$(command -v python3 || true)
if [ -z "$py" ] || ! "$py" -m venv --help >/dev/null 2>&1; then
	if command -v apt-get >/dev/null 2>&1; then
		apt_install python3 python3-venv
		py=$(command -v python3)
	else
		die "needs python3 with the venv module. Nothing was changed"
	fi
fi
# the shared libraries the index client loads (dlopen) when an index is asked
if ! ldconfig -p 2>/dev/null | grep -q 'libcurl\.so\.4 ' ||
	! ldconfig -p 2>/dev/null | grep -q 'libarchive\.so\.13 '; then
	if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
		# Ubuntu 24.04 names them ...t64; Debian 12 and Ubuntu 22.04 do not
		apt_install libcurl4t64 libarchive13t64 2>/dev/null ||
			apt_install libcurl4 libarchive13 ||
			die "cannot install libcurl and libarchive (apt-get)"
	else
		say "warning: libcurl.so.4 or libarchive.so.13 is missing; plan and check need" \
			"them to ask an index" >&2
	fi
fi
# the package lists apt-get update fetched are not left in the image layer
if [ -n "$apt_updated" ]; then
	rm -rf /var/lib/apt/lists/*
fi
[ -e "$PREFIX/$MARKER" ] && rm -rf "$PREFIX"
"$py" -m venv "$PREFIX"
: >"$PREFIX/$MARKER"
# shellcheck disable=SC2086 # pip_from is one word
if ! "$PREFIX/bin/python" -m pip install -q --no-cache-dir --disable-pip-version-check \
	$pip_from "$spec"; then
	rm -rf "$PREFIX"
	die "cannot install $spec${INDEX:+ from $INDEX}"
fi
mkdir -p "$BINDIR" "$MANDIR/man1" "$MANDIR/man5"
ln -sf "$PREFIX/bin/rocm-resolve" "$BINDIR/rocm-resolve"
# rr-testcase replays a --write-testcase bug report (a wheel without it links none)
if [ -x "$PREFIX/bin/rr-testcase" ]; then
	ln -sf "$PREFIX/bin/rr-testcase" "$BINDIR/rr-testcase"
fi
ln -sf "$PREFIX/share/man/man1/rocm-resolve.1" "$MANDIR/man1/rocm-resolve.1"
ln -sf "$PREFIX/share/man/man5/rocm-resolve-scenario.5" "$MANDIR/man5/rocm-resolve-scenario.5"
if [ -n "$group_venv" ]; then
	getent group "$GROUP" >/dev/null 2>&1 || groupadd -r "$GROUP"
	usermod -a -G "$GROUP" "$REMOTE_USER"
	# the directories only: their group may then add, replace and remove files; the
	# files keep their owner and mode, and the layer gets no copy of them
	find "$group_venv" -xdev -type d -exec chgrp "$GROUP" {} + -exec chmod g+rwxs {} +
	say "the directories of $group_venv now belong to group '$GROUP' (group-writable;" \
		"its files keep their owner and mode) and remoteUser $REMOTE_USER is in it, so" \
		"\`rocm-resolve install\` can run as that user"
fi
"$BINDIR/rocm-resolve" --version
