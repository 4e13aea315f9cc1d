#!/usr/bin/env bash
# labels: e2e
# The Makefile of examples/minimal, byte for byte against tests/golden/minimal.mk
# (after replacing machine paths and keys by placeholders); generating twice
# gives byte-identical files. KWARM_UPDATE_GOLDEN=1 rewrites the golden file.
. "$(dirname "$0")/lib.sh"
need python3 python3
need g++ g++
# The variables that steer compilers are recorded in the Makefile: none here.
unset CPATH C_INCLUDE_PATH CPLUS_INCLUDE_PATH OBJC_INCLUDE_PATH GCC_EXEC_PREFIX \
	COMPILER_PATH LIBRARY_PATH SOURCE_DATE_EPOCH GCC_COMPARE_DEBUG

cp -r "$KWARM_TEST_SRC/examples/minimal" "$T/minimal"
rm -rf "$T/minimal/.kwarm"
cd "$T"
"$KWARM" gen minimal/spec.yaml -o a.mk --cache "$T/cache" --out "$T/out"
"$KWARM" gen "$T/minimal/spec.yaml" -o a2.mk --cache cache --out out
"$KWARM" gen minimal/spec.yaml -o b.mk --cache "$T/cache" --out "$T/out"
sed "s#$T/b.mk#$T/a.mk#" b.mk | cmp - a.mk || fail "two generations differ"
sed "s#$T/a2.mk#$T/a.mk#" a2.mk | cmp - a.mk || fail "relative and absolute spellings differ"
pass "deterministic: generating twice gives the same bytes"

kwarm_real=$(readlink -f "$KWARM")
# The Makefile (the plan a person reads) and its watch list (the inputs
# that remake it), each against its golden copy.
for f in mk mk.inputs; do
	python3 "$KWARM_TEST_SRC/tests/e2e/normalize_mk.py" "a.$f" "$kwarm_real" @KWARM@ "$T" @TMP@ > "normalized.$f"
	golden=$KWARM_TEST_SRC/tests/golden/minimal.$f
	if [ "${KWARM_UPDATE_GOLDEN:-}" = 1 ]; then cp "normalized.$f" "$golden"; fi
	diff -u "$golden" "normalized.$f" || fail "a.$f differs from $golden"
done
pass "golden Makefile and its watch list match"
