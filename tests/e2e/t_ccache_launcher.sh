#!/usr/bin/env bash
# labels: e2e
# ccache as launcher on the two-step form (-c, then link: g++ -shared): a
# second warm-up on a fresh kwarm cache but the same CCACHE_DIR is all ccache
# hits, and every callable is byte-identical to a build without launcher. The
# one-step sim form is uncacheable (ccache counts each as "called for link").
# With CCACHE_PREFIX=distcc, ccache's misses compile on a real distccd and its
# hits reach no daemon.
. "$(dirname "$0")/lib.sh"
need g++ g++
need python3 python3

need ccache ccache
while read -r v; do unset "$v"; done < <(env | grep -o '^CCACHE_[A-Z_]*' || true)
export CCACHE_DIR=$T/ccache CCACHE_CONFIGPATH=$T/ccache.conf
mkdir -p "$T"
: > "$CCACHE_CONFIGPATH"

# One figure of ccache's statistics.
stat() { ccache --print-stats | awk -v k="$1" '$1 == k { print $2 }'; }
hits() { echo $(($(stat direct_cache_hit) + $(stat preprocessed_cache_hit))); }

mkdir -p "$T/farm"
cp -r "$KWARM_TEST_SRC/examples/distcc/." "$T/farm/"
rm -rf "$T/farm/.kwarm"
cd "$T"

# warm NAME SPEC [gen options...]: a warm-up on a fresh kwarm cache.
warm() {
	local name=$1 spec=$2
	shift 2
	"$KWARM" gen "$spec" -o "$name.mk" --cache "$T/cache-$name" --out "$T/out-$name" "$@"
	must "$name.log" "warm-up $name failed" make -f "$name.mk" -j2 warmup
}

# like_local NAME WHAT: warm-up NAME's callables are the local build's, byte for byte.
like_local() {
	for c in TestFarm TestFarmAgain; do
		cmp "out-$1/$c.callable" "out-local/$c.callable" || fail "$c: $2 differs from local"
	done
}

warm local farm/spec.yaml
warm first farm/spec.yaml --launcher ccache
[ "$(stat cache_miss)" = 4 ] || fail "first warm-up: $(stat cache_miss) ccache misses, want 4"
[ "$(hits)" = 0 ] || fail "first warm-up: $(hits) ccache hits on an empty ccache"
ccache -z > /dev/null
warm second farm/spec.yaml --launcher ccache
[ "$(hits)" = 4 ] || fail "second warm-up: $(hits) ccache hits, want 4"
[ "$(stat cache_miss)" = 0 ] || fail "second warm-up: $(stat cache_miss) ccache misses"
like_local first "ccache miss"
like_local second "ccache hit"
python3 "$KWARM_TEST_SRC/tests/tools/callable_call.py" out-second/TestFarm.callable 11 > calls.txt
printf '%s\n' "orchestration 2" "child 0 0 40" "child 1 1 128" "child 2 2 138" | diff - calls.txt ||
	fail "objects from ccache hits compute wrong results"
pass "ccache launcher: 4 misses, then 4 hits on a fresh kwarm cache; identical callables"

# The sim form compiles and links in one command: ccache cannot cache it.
mkdir -p "$T/sim"
cp -r "$T/farm/." "$T/sim/"
sed -i 's/, -c\]/, -shared]/; /link: \[g++, -shared\]/d' sim/spec.yaml
ccache -z > /dev/null
warm sim1 sim/spec.yaml --launcher ccache
warm sim2 sim/spec.yaml --launcher ccache
[ "$(stat called_for_link)" = 8 ] || fail "sim form: $(stat called_for_link) uncacheable link calls, want 8"
[ "$(hits)" = 0 ] && [ "$(stat cache_miss)" = 0 ] || fail "sim form: ccache cached something"
pass "the one-step sim form is uncacheable: 8 of 8 calls 'called for link'"

# ccache in front of distcc: misses go to the daemon, hits go nowhere. Without
# distcc the test stops here as skipped (the checks above still had to pass).
. "$KWARM_TEST_SRC/tests/tools/distccd.sh"
distccd_start
export CCACHE_DIR=$T/ccache-distcc CCACHE_PREFIX=distcc
warm prefix1 farm/spec.yaml --launcher ccache
[ "$(stat cache_miss)" = 4 ] || fail "CCACHE_PREFIX=distcc: $(stat cache_miss) misses, want 4"
[ "$(distccd_compiles)" = 4 ] || fail "CCACHE_PREFIX=distcc: distccd ran $(distccd_compiles) compiles, want 4"
warm prefix2 farm/spec.yaml --launcher ccache
[ "$(hits)" = 4 ] || fail "CCACHE_PREFIX=distcc: second warm-up had $(hits) hits, want 4"
[ "$(distccd_compiles)" = 4 ] || fail "ccache hits reached distccd"
like_local prefix1 "ccache+distcc"
like_local prefix2 "ccache hit"
pass "CCACHE_PREFIX=distcc: 4 misses compiled on distccd, then 4 hits and no daemon compile"
