#!/usr/bin/env bash
# labels: e2e
# The environment gen saw, written into the Makefile so that make remakes
# the Makefile when it changes: any value (a newline, a CR, '#', '$', a
# backslash at the end, blanks at the start) reads back exactly, so it
# neither adds make text of its own nor makes the Makefile look stale.
. "$(dirname "$0")/lib.sh"
need g++ g++

cp -r "$KWARM_TEST_SRC/examples/minimal" "$T/minimal"
rm -rf "$T/minimal/.kwarm"
# A value the spec reads ($KWV in a folder that need not exist) is compared too.
sed -i 's/include_dirs: \[include\]/include_dirs: [include, $KWV]/' "$T/minimal/spec.yaml"
cd "$T"
unset CPATH C_INCLUDE_PATH CPLUS_INCLUDE_PATH LIBRARY_PATH
export KWV='v\'

# mk ENV...: make help with that environment; "remade" when make ran gen.
mk() {
	local before
	before=$(stat -c %y a.mk)
	must make.out "make failed ($*)" env "$@" make -f a.mk help
	! grep -q injected make.out || { cat make.out; fail "a value's text ran as make text ($*)"; }
	[ "$(stat -c %y a.mk)" != "$before" ] && echo remade || echo kept
}

hostile=$'a\nhelp: kw-inj\nkw-inj:;@echo injected'
for v in "$hostile" 'b\' $'c\r' $'\r\nd\r\n' ' #e$$(x)\#' $'\tf g  ' $'h\\\ni'; do
	CPATH=$v "$KWARM" gen minimal/spec.yaml -o a.mk --cache "$T/cache" --out "$T/out" 2> gen.err ||
		{ cat gen.err; fail "gen failed for CPATH '$v'"; }
	[ "$(mk CPATH="$v")" = kept ] || { cat make.out; fail "the same CPATH '$v' remakes the Makefile"; }
	[ "$(mk -u CPATH)" = remade ] || fail "unsetting CPATH '$v' does not remake the Makefile"
	[ "$(mk CPATH="$v")" = remade ] || fail "CPATH set back to '$v' does not remake the Makefile"
	[ "$(mk CPATH="$v")" = kept ] || fail "CPATH '$v' remade twice"
	[ "$(mk CPATH="$v"x)" = remade ] || fail "CPATH '$v'x does not remake the Makefile"
done
pass "CPATH with a newline, CR, '#', '\$', blanks or a backslash: kept when the same, remade when changed"

for v in "$hostile" 'w\' ' #w$$\#' $'w\x01\x7f\r'; do
	CPATH=$hostile KWV=$v "$KWARM" gen minimal/spec.yaml -o a.mk --cache "$T/cache" --out "$T/out" 2> gen.err ||
		{ cat gen.err; fail "gen failed for KWV '$v'"; }
	[ "$(mk CPATH="$hostile" KWV="$v")" = kept ] || { cat make.out; fail "the same KWV '$v' remakes the Makefile"; }
	[ "$(mk CPATH="$hostile" KWV="$v"x)" = remade ] || fail "KWV '$v'x does not remake the Makefile"
	[ "$(mk CPATH="$hostile" KWV="$v")" = remade ] || fail "KWV set back to '$v' does not remake the Makefile"
done
pass "a variable the spec reads, with '#', '\$', control bytes or a backslash at the end: compared exactly"
