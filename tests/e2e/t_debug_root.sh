#!/usr/bin/env bash
# labels: e2e
# Two checkouts at different places share one cache. Without debug
# information a unit's bytes do not depend on where the checkout is, and the
# second checkout compiles nothing of it; with -g they hold the folder the
# compile ran in, so the second compiles its own. The callable equals the one
# an empty cache builds in the second checkout. Real g++.
. "$(dirname "$0")/lib.sh"
need g++ g++
need python3 python3

mkdir -p "$T/a/k" "$T/a/include"
cd "$T/a"
for u in plain g; do
	printf 'extern "C" int f_%s(void) { return 1; }\n' "$u" > "k/$u.cpp"
done
gxx_spec g++ TestDebug=k/plain.cpp,k/g.cpp
gxx_roles g=-g
cp -r "$T/a" "$T/b"
builds() { grep -c '\] built ' "$T/run.out" || true; }
gxx_run "checkout a"
cd "$T/b"
gxx_run "checkout b"
[ "$(builds)" = 1 ] && grep -q "built incore 'g'" "$T/run.out" ||
	{ cat "$T/run.out"; fail "checkout b compiled $(builds) units, not the -g one alone"; }
gxx_same_as_fresh TestDebug "checkout b"
pass "with -g a second checkout compiles its own unit; without, it shares the first's"
