#!/usr/bin/env bash
# labels: e2e
# gen leaves each compiler's identity in CACHE/tools, where the compile
# steps look for it (the run's first steps then hash no compiler before
# starting it), and a compiler replaced since is identified again: its
# units get new keys, never the old entries.
. "$(dirname "$0")/lib.sh"

standin_example minimal p
cd "$T"
cp "$STANDIN" cc1
sed -i "s#compiler: $STANDIN#compiler: $T/cc1#" p/spec.yaml
gen() { "$KWARM" gen p/spec.yaml -o "$1" --cache "$T/cache" --out "$T/out"; }
gen one.mk
memo=$(find cache/tools -maxdepth 1 -type f -name '????????????????????????????????????????????????????????????????' 2>/dev/null || true)
[ -n "$memo" ] || fail "gen left no compiler identity memo in cache/tools"
holds "$memo" "$T/cc1" "the memo does not name the compiler"
pass "gen leaves the compiler's identity memo"

make -s -f one.mk warmup > make.out 2>&1 || { cat make.out; fail "the warm-up failed"; }
[ "$(find cache/tools -maxdepth 1 -type f | wc -l)" = 1 ] ||
	fail "the steps wrote another identity memo: $(ls cache/tools)"
pass "the steps use gen's memo"

# A new file under the same name (an update): other bytes, other keys.
cp "$STANDIN" cc1.new
printf '\n# updated\n' >> cc1.new
mv cc1.new cc1
gen two.mk
keys() { grep -o '^KW_CMD_[0-9a-f]\{64\}' "$1" | sort; }
[ -z "$(comm -12 <(keys one.mk) <(keys two.mk))" ] || fail "a replaced compiler kept its units' keys"
pass "a compiler replaced since gen's memo is identified again"
