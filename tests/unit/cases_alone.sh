#!/usr/bin/env bash
# cases_alone.sh PROGRAM...: every case of each unit test program passes when
# it runs alone (check.h: "A case must pass when it runs alone"), so that a
# case that leans on what an earlier one left behind is found.
set -uo pipefail
bad=0 total=0 skipped=0
for prog in "$@"; do
	name=$(basename "$prog")
	names=$("$prog" --list) || { echo "$name: --list failed"; bad=$((bad + 1)); continue; }
	[ -n "$names" ] || { echo "$name: no cases registered"; bad=$((bad + 1)); continue; }
	while read -r case; do
		total=$((total + 1))
		out=$("$prog" "$case" 2>&1)
		status=$?
		# 77: the program skips, saying why (what it needs is missing here).
		if [ $status = 77 ]; then
			echo "$name $case: skipped: $out"
			skipped=$((skipped + 1))
		elif [ $status != 0 ] || ! grep -qx "ok 1 - $case" <<< "$out"; then
			echo "$name $case: fails alone:"
			sed 's/^/    /' <<< "$out"
			bad=$((bad + 1))
		fi
	done <<< "$names"
done
echo "$total cases run alone, $bad failed, $skipped skipped"
[ "$bad" = 0 ]
