#!/usr/bin/env bash
# labels: e2e
# A source edited while its compile runs is not published under the old key:
# the unit fails saying so, and the next run compiles the new content.
. "$(dirname "$0")/lib.sh"

R=$T/root
mkdir -p "$R"
printf 'int orch;\n' > "$R/orch.c"
printf '// kwarm-standin: block %s\nint k;\n' "$T/started" > "$R/k.c"
standin_spec "$R" TestEdit=k.c
cd "$T"
"$KWARM" gen root/spec.yaml -o w.mk --cache "$T/cache" --out "$T/out"
old_key=$(unit_keys w.mk 'k[.]c')
make -f w.mk -j2 warmup > run.out 2> run.err &
pid=$!
# The stand-in creates the file when it reaches its block point.
wait_file "$T/started" "$pid"
echo '/* edited mid-build */' >> "$R/k.c"
touch "$T/started.go"
if wait "$pid"; then fail "the warm-up succeeded although its input changed mid-compile"; fi
holds run.err "incore 'k' (aiv): an input changed while it compiled; the result is not cached" \
	"no message about the mid-build edit"
[ ! -e "cache/units/${old_key:0:1}/$old_key.m" ] || fail "published under the stale key"
[ -z "$(find cache/units -name "$old_key*")" ] || fail "a file left under the stale key"
pass "edited mid-compile: not published under the old key, and said so"

make -f w.mk -j2 warmup > /dev/null 2>&1
[ -s out/TestEdit.callable ] || fail "the next run did not build"
new_key=$(unit_keys w.mk 'k[.]c')
[ "$new_key" != "$old_key" ] || fail "the key did not change"
pass "the next run compiles the new content under its new key"
