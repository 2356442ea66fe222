#!/bin/sh
# every long option in the getopt table is in --help and in the man page
set -eu
exe="$RR_BUILDDIR/src/cli/rocm-resolve"
opts=$(sed -n 's/^\t{"\([a-z-]*\)", [a-z_]*_argument.*/\1/p' "$RR_SRCDIR/src/cli/args.c")
[ -n "$opts" ] || { echo "no options found in args.c"; exit 1; }
help=$("$exe" --help)
man=$(sed 's/\\-/-/g' "$RR_SRCDIR/man/rocm-resolve.1")
fail=0
n=0
for o in $opts; do
	n=$((n + 1))
	printf '%s\n' "$help" | grep -q -- "--$o" || { echo "--$o missing from --help"; fail=1; }
	printf '%s\n' "$man" | grep -q -- "--$o" || { echo "--$o missing from man/rocm-resolve.1"; fail=1; }
done
echo "$n options checked"
exit $fail
