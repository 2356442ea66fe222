#!/usr/bin/env bash
# hook-test.sh WORKDIR [WHEEL] - the pre-commit hook through the real pre-commit
# framework, offline: a throwaway hook repository (packaging/pre-commit-mirror,
# whose `pip install .` pulls the rocm-resolve wheel), a local wheelhouse (the wheel
# and setuptools; PIP_NO_INDEX) and a throwaway project repository whose config
# points the hook at the fixture venv (--venv fixtures/venvs/rocm72) and the fixture
# index (tests/index/serve.py on 127.0.0.1; the hook's entry has no --no-index).
# A safe requirements change commits; torch==2.4.0, a transitive torchvision pin
# (vllm==0.10.1 in requirements/base.txt) and a constraints.txt pin are blocked with
# the file, line and reason; under pre-commit the hook's own virtualenv is not
# taken for the venv to check. Without WHEEL, builds one (tools/build-wheel.sh).
# RR_WHEEL_BUILD: the meson-python build dir to reuse.
# Needs pre-commit on PATH and setuptools in $RR_WHEELHOUSE (./bootstrap: .venv-package).
set -uo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
work=$1
whl=${2:-}
[ -z "$whl" ] || whl=$(realpath "$whl")
fails=0
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
bad() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; }
check() {
	local d=$1
	shift
	if "$@"; then ok "$d"; else bad "$d"; fi
}
finish() {
	echo "1..$n"
	echo "$((n - fails)) passed, $fails failed"
	[ $fails = 0 ]
	exit
}
for tool in pre-commit git; do
	command -v $tool >/dev/null || { echo "# $tool not on PATH: ./bootstrap test sets it up"; exit 77; }
done
wheelhouse_src=${RR_WHEELHOUSE:-$src/.venv-package/wheelhouse}
if ! ls "$wheelhouse_src"/setuptools-*.whl >/dev/null 2>&1; then
	echo "# no setuptools wheel in $wheelhouse_src: ./bootstrap test puts one there"
	exit 77
fi

rm -rf "$work"
mkdir -p "$work"
work=$(cd "$work" && pwd)
if [ -z "$whl" ]; then
	"$src/tools/build-wheel.sh" "$work/dist" "${RR_WHEEL_BUILD:-$work/build}" >"$work/build.log" 2>&1 ||
		{ cat "$work/build.log"; bad "wheel builds"; finish; }
	whl=$(ls "$work"/dist/rocm_resolve-*.whl)
fi
version=$(basename "$whl")
version=${version#rocm_resolve-}
version=${version%%-*}

# the mirror is the hook at the top of the repository, on the wheel of this version
mirror=$src/packaging/pre-commit-mirror
check "the mirror's .pre-commit-hooks.yaml is the repository's" \
	cmp -s "$src/.pre-commit-hooks.yaml" "$mirror/.pre-commit-hooks.yaml"
check "the mirror depends on rocm-resolve==$version and has that version" \
	bash -c 'grep -qx "version = '"'$version'"'" "$0" && grep -qF "'"'rocm-resolve==$version'"'" "$0"' \
	"$mirror/pyproject.toml"

# offline from here on: pip sees only the wheelhouse, pre-commit and the tool
# keep their state under WORKDIR
mkdir -p "$work/wheelhouse" "$work/home"
cp "$whl" "$wheelhouse_src"/setuptools-*.whl "$work/wheelhouse/"
export HOME=$work/home PRE_COMMIT_HOME=$work/pre-commit-home XDG_CACHE_HOME=$work/cache
export PIP_NO_INDEX=1 PIP_FIND_LINKS=$work/wheelhouse PIP_DISABLE_PIP_VERSION_CHECK=1
export VIRTUALENV_NO_PERIODIC_UPDATE=1 RR_SYSROOT=$src/fixtures/venvs/sysroot-rocm72
export GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.invalid
export GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.invalid
unset VIRTUAL_ENV PIP_REQUIRE_VIRTUALENV
git config --global init.defaultBranch main

hookrepo=$work/hookrepo
cp -r "$mirror" "$hookrepo"
git -C "$hookrepo" init -q && git -C "$hookrepo" add -A && git -C "$hookrepo" commit -qm hook
rev=$(git -C "$hookrepo" rev-parse HEAD)

# the fixture index, on loopback
python3 "$src/tests/index/serve.py" --world "$src/fixtures/index/world.txt" >"$work/index.url" \
	2>"$work/index.log" &
index_pid=$!
trap 'kill $index_pid 2>/dev/null' EXIT
for _ in $(seq 50); do
	[ -s "$work/index.url" ] && break
	sleep 0.1
done
url=$(head -1 "$work/index.url")
[[ $url == http://127.0.0.1:* ]] || { cat "$work/index.log"; bad "fixture index starts"; finish; }

# .pre-commit-config.yaml for the hook repository: [ARGS (a YAML list) [one more hook key]]
hook_config() {
	{
		printf 'repos:\n  - repo: %s\n    rev: %s\n    hooks:\n' "$hookrepo" "$rev"
		printf '      - id: rocm-resolve-check\n'
		[ -z "${1:-}" ] || printf '        args: %s\n' "$1"
		[ -z "${2:-}" ] || printf '        %s\n' "$2"
	} >.pre-commit-config.yaml
}

proj=$work/project
mkdir -p "$proj"
cd "$proj"
git init -q
hook_config "[--venv, $src/fixtures/venvs/rocm72, --index-url, $url/simple]"
git add .pre-commit-config.yaml && git commit -qm config
if ! pre-commit install >"$work/install.log" 2>&1 ||
	! pre-commit install-hooks >>"$work/install.log" 2>&1; then
	cat "$work/install.log"
	bad "pre-commit installs the hook (pip install . of the mirror from the wheelhouse)"
	finish
fi
ok "pre-commit installs the hook from the wheelhouse, offline"
hookbin=$(ls -d "$PRE_COMMIT_HOME"/repo*/py_env-*/bin | head -1)
check "the hook's venv has the console script" test -x "$hookbin/rocm-resolve"

commit() { # commit MSG -> rc; transcript in $work/last.txt
	git commit -m "$1" >"$work/last.txt" 2>&1
}
printf 'requests>=2\nnumpy<2.3\n' >requirements.txt
git add requirements.txt
commit "safe"
rc=$?
check "a safe requirements.txt commits (rc=$rc)" test $rc = 0
check "... and the hook ran and passed" grep -q '^rocm-resolve check\.*Passed$' "$work/last.txt"
cp "$work/last.txt" "$work/transcript-safe.txt"

head=$(git rev-parse HEAD)
printf 'requests>=2\nnumpy<2.3\ntorch==2.4.0\n' >requirements.txt
git add requirements.txt
commit "unsafe"
rc=$?
cp "$work/last.txt" "$work/transcript-unsafe.txt"
check "torch==2.4.0 is blocked (rc=$rc)" test $rc != 0
check "... no commit was made" test "$(git rev-parse HEAD)" = "$head"
check "... the hook failed" grep -q '^rocm-resolve check\.*Failed$' "$work/last.txt"
check "... naming the file, line and requirement" grep -q '^requirements.txt:3: torch==2.4.0: ' "$work/last.txt"
check "... and the protected build it would replace" \
	grep -q 'would replace the protected build' "$work/last.txt"
git reset -q requirements.txt
git checkout -q requirements.txt

# the index is used: vllm==0.10.1 pins another torchvision only in its metadata;
# requirements/base.txt is matched by files:
mkdir -p requirements
printf 'vllm==0.10.1\n' >requirements/base.txt
git add requirements/base.txt
commit "transitive"
rc=$?
cp "$work/last.txt" "$work/transcript-transitive.txt"
check "vllm==0.10.1 in requirements/base.txt is blocked (rc=$rc)" test $rc != 0
check "... because it depends on another torchvision" \
	grep -q 'vllm 0.10.1 depends on torchvision==0.23.0' "$work/last.txt"
git rm -q --cached requirements/base.txt
rm -r requirements

printf 'torch==2.4.0\n' >constraints.txt
git add constraints.txt
commit "constraint"
rc=$?
check "torch==2.4.0 in constraints.txt is blocked (rc=$rc)" test $rc != 0
git rm -q --cached constraints.txt
rm constraints.txt

# build templates are no requirements files: the hook does not run on them (before,
# files: matched every *.in and config.h.in failed with a parse error, exit 2)
mkdir -p src
printf '#define VERSION "@VERSION@"\n' >config.h.in
printf 'version = "@VERSION@"\n' >src/version.py.in
printf 'prefix=@prefix@\nLibs: -lfoo\n' >foo.pc.in
printf 'torch==2.4.0\n' >MANIFEST.in
git add config.h.in src/version.py.in foo.pc.in MANIFEST.in
commit "templates"
rc=$?
cp "$work/last.txt" "$work/transcript-templates.txt"
check "config.h.in, version.py.in, foo.pc.in, MANIFEST.in commit (rc=$rc)" test $rc = 0
check "... the hook did not look at them" grep -q '^rocm-resolve check\.*(no files to check)Skipped$' \
	"$work/last.txt"
# pip-tools' inputs are: *requirements*.in anywhere, any .in under requirements/
for f in requirements-dev.in dev-requirements.txt requirements/extra/gpu.in; do
	mkdir -p "$(dirname "$f")"
	printf 'torch==2.4.0\n' >"$f"
	git add "$f"
	commit "$f"
	rc=$?
	check "torch==2.4.0 in $f is blocked (rc=$rc)" test $rc != 0
	git rm -q --cached "$f"
	rm "$f"
done

# no --venv: pre-commit activates the hook's own virtualenv (VIRTUAL_ENV); the
# console script must not check that one ("0 protected" would pass anything)
out=$(PRE_COMMIT=1 VIRTUAL_ENV=${hookbin%/bin} "$hookbin/rocm-resolve" check --no-index \
	"$proj/requirements.txt" 2>&1)
rc=$?
if [ -d /opt/venv ]; then
	echo "# /opt/venv exists here: the fallback is checked against it"
	check "under pre-commit the hook venv is not the one checked" bash -c '! grep -q "$1" <<<"$0"' \
		"$out" "${hookbin%/bin}"
else
	check "under pre-commit the hook venv is dropped for /opt/venv (rc=$rc: $out)" \
		bash -c '[ $1 = 3 ] && grep -q "/opt/venv" <<<"$0"' "$out" $rc
fi
out=$(VIRTUAL_ENV=$src/fixtures/venvs/rocm72 PRE_COMMIT=1 "$hookbin/rocm-resolve" check --no-index \
	"$proj/requirements.txt" 2>&1)
check "any other VIRTUAL_ENV is kept (5 protected)" grep -q "(5 protected" <<<"$out"

# a host (laptop, CI) with no venv, only the stack file written in the container
# and committed: the same verdicts through the same hook
"$hookbin/rocm-resolve" inspect --format json --venv "$src/fixtures/venvs/rocm72" >"$work/rocm-stack.json"
hostproj=$work/host-project
mkdir -p "$hostproj"
cd "$hostproj"
git init -q
cp "$work/rocm-stack.json" rocm-stack.json
hook_config "[--stack, rocm-stack.json, --index-url, $url/simple]"
git add .pre-commit-config.yaml rocm-stack.json && git commit -qm config
pre-commit install >>"$work/install.log" 2>&1 || bad "pre-commit install on the host project"
(unset RR_SYSROOT
printf 'requests>=2\nnumpy<2.3\n' >requirements.txt
git add requirements.txt
commit "safe on the host"
echo "rc=$?" >"$work/host-safe.rc"
cp "$work/last.txt" "$work/host-safe.txt"
printf 'requests>=2\nvllm==0.10.1\n' >requirements.txt
git add requirements.txt
commit "unsafe on the host"
echo "rc=$?" >"$work/host-unsafe.rc"
cp "$work/last.txt" "$work/transcript-host-unsafe.txt")
check "host with only the stack file: a safe change commits ($(cat "$work/host-safe.rc"))" \
	grep -qx "rc=0" "$work/host-safe.rc"
check "... and the hook ran and passed" grep -q '^rocm-resolve check\.*Passed$' "$work/host-safe.txt"
check "host with only the stack file: vllm==0.10.1 is blocked ($(cat "$work/host-unsafe.rc"))" \
	grep -qx "rc=1" "$work/host-unsafe.rc"
check "... naming the file, line and the protected torchvision" \
	grep -q '^requirements.txt:2: vllm==0.10.1: .*torchvision' "$work/transcript-host-unsafe.txt"
# through pre-commit, with no venv to check (pre-commit replaced VIRTUAL_ENV with the
# hook's own): the message says how to name one in .pre-commit-config.yaml
novenv=$work/novenv-project
mkdir -p "$novenv"
cd "$novenv"
git init -q
hook_config
printf 'requests>=2\n' >requirements.txt
git add -A && git commit -qm config --no-verify
out=$(env -u VIRTUAL_ENV -u CONDA_PREFIX RR_SYSROOT=$work/empty-root pre-commit run --files \
	requirements.txt 2>&1)
rc=$?
echo "$out" >"$work/transcript-no-venv.txt"
check "under pre-commit, no venv: the hook fails (rc=$rc)" test $rc != 0
check "... saying how to name the venv in .pre-commit-config.yaml" \
	grep -q 'name the environment in .pre-commit-config.yaml: `args: \[--venv' <<<"$out"
check "... not that VIRTUAL_ENV is unset" bash -c '! grep -q "VIRTUAL_ENV" <<<"$0"' "$out"

# --offline in args with an empty cache: what the cache lacks is judged by the lines
# alone, with a warning, as with no network at all (before: exit 3 on every fresh clone)
hook_config "[--venv, $src/fixtures/venvs/rocm72, --offline]" "verbose: true"
git add -A && git commit -qm offline --no-verify
out=$(XDG_CACHE_HOME=$work/empty-cache pre-commit run --files requirements.txt 2>&1)
rc=$?
echo "$out" >"$work/transcript-offline.txt"
check "--offline, empty cache: a safe file passes (rc=$rc)" test $rc = 0
check "... with the warning that dependencies were not checked" \
	grep -q 'offline: --offline or $UV_OFFLINE, and the cache does not hold everything.*NOT checked' <<<"$out"
printf 'torch==2.4.0\n' >requirements.txt
out=$(XDG_CACHE_HOME=$work/empty-cache pre-commit run --files requirements.txt 2>&1)
rc=$?
check "--offline, empty cache: torch==2.4.0 is still blocked (rc=$rc)" test $rc != 0
cd "$hostproj"

# no venv and no stack file: exit 3 with the hint, never a silent pass
out=$(cd "$hostproj" && env -u VIRTUAL_ENV -u CONDA_PREFIX RR_SYSROOT=$work/empty-root \
	"$hookbin/rocm-resolve" check --no-index requirements.txt 2>&1)
rc=$?
check "no venv and no stack file: exit 3 with a hint naming --stack (rc=$rc)" \
	bash -c '[ $1 = 3 ] && grep -q -- "--stack" <<<"$0"' "$out" $rc
finish
