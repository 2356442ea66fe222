#!/bin/sh
# check-commits.sh - commit subjects since the convention began are at most 72
# characters, with the why in the body (HACKING.md). Skips (77) outside a git
# checkout or in a clone too shallow to hold the starting commit.
# Usage: tools/check-commits.sh [SRCROOT]
root=${1:-$(dirname "$0")/..}
since=55d8443 # the last commit before subjects were held to 72 characters
cd "$root" || exit 2
git rev-parse --git-dir >/dev/null 2>&1 || { echo "not a git checkout: skipped"; exit 77; }
git cat-file -e "$since^{commit}" 2>/dev/null || { echo "$since not in this clone: skipped"; exit 77; }
bad=$(git log --format='%h %s' "$since..HEAD" | awk '{ s = substr($0, index($0, " ") + 1); if (length(s) > 72) print }')
if [ -n "$bad" ]; then
	echo "commit subjects over 72 characters (put the why in the body):"
	echo "$bad"
	exit 1
fi
echo "commit subjects ok"
