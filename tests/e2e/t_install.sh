#!/usr/bin/env bash
# labels: e2e
# cmake --install puts the program, the man page, the make fragment and the
# CMake package under the prefix, and the installed program works on its own.
. "$(dirname "$0")/lib.sh"

build=$(dirname "$KWARM")
P=$T/prefix
must "$T/install.log" "cmake --install failed" cmake --install "$build" --prefix "$P"
for f in bin/kwarm share/man/man1/kwarm.1 share/kwarm/kwarm.mk lib/cmake/kwarm/kwarmConfig.cmake \
	lib/cmake/kwarm/kwarmConfigVersion.cmake lib/cmake/kwarm/kwarmTargets.cmake \
	lib/cmake/kwarm/kwarmFunctions.cmake; do
	[ -s "$P/$f" ] || fail "not installed: $f"
done
[ -x "$P/bin/kwarm" ] || fail "bin/kwarm is not executable"
"$P/bin/kwarm" --version | grep -q '^kwarm [0-9]' || fail "the installed kwarm has no version"
cmp "$P/share/man/man1/kwarm.1" "$KWARM_TEST_SRC/doc/kwarm.1" || fail "the man page differs"
pass "installed: bin/kwarm, the man page (t_man_page formats it), kwarm.mk, the CMake package"

standin_example minimal m
cd "$T"
"$P/bin/kwarm" gen m/spec.yaml -o m.mk --cache "$T/cache" --out "$T/out"
grep -q "^KW_KWARM := $P/bin/kwarm\$" m.mk || fail "the Makefile does not run the installed kwarm"
must run.out "warm-up with the installed kwarm failed" make -f m.mk -j2 warmup
[ -s out/TestMinimal.callable ] || fail "no callable"
pass "the installed kwarm warms up a spec"

# The remote tier's helper is installed beside kwarm and found there: a
# remote that refuses connections is a transfer fault (libcurl's reason), not
# a missing helper.
if [ -x "$build/kwarm-remote" ]; then
	[ -x "$P/bin/kwarm-remote" ] || fail "bin/kwarm-remote is not installed"
	"$P/bin/kwarm" gen m/spec.yaml -o r.mk --cache "$T/rcache" --out "$T/rout" \
		--remote http://127.0.0.1:1/x 2> r.err || { cat r.err; fail "gen with a dead remote failed"; }
	holds r.err "warning: remote cache 'http://127.0.0.1:1/x': GET failed: " \
		"the installed kwarm did not reach the remote through its helper"
	pass "the installed kwarm runs the installed kwarm-remote"
else
	echo "note: built without the remote tier (-DKWARM_REMOTE=OFF): no helper to install"
fi
