#!/usr/bin/env bash
# labels: e2e
# kwarm cache stats|verify|prune on a real warm-up's cache: figures, every kind
# of bad entry named and repaired (and rebuilt by the next make), pruning by age
# and by size (least recently used first, never within the grace hour, never
# an entry whose lock a compile holds) and orphaned temps.
. "$(dirname "$0")/lib.sh"
need python3 python3

standin_example minimal m
cd "$T"
"$KWARM" gen m/spec.yaml -o m.mk --cache "$T/cache" --out "$T/out" > /dev/null
make -f m.mk -j2 warmup > /dev/null
cp out/TestMinimal.callable good.callable
C=$T/cache
mapfile -t keys < <(unit_keys m.mk)
[ "${#keys[@]}" = 4 ] || fail "expected 4 units, got ${#keys[@]}"
# An entry is one file: the artifact, then its manifest.
man() { echo "$C/units/${1:0:1}/$1.m"; }
[ -z "$(find "$C/units" -type f ! -name '*.m')" ] || fail "files besides the entries in units/"
# Descriptions live beside the Makefile now, not in the cache.
[ -s m.mk.plan ] || fail "no m.mk.plan beside the Makefile"
[ ! -e "$C/packs" ] || fail "the warm-up made packs/ in the cache"

# ---- usage
set +e
"$KWARM" cache > o 2> e; [ $? = 2 ] || fail "no subcommand: not exit 2"
"$KWARM" cache stats > o 2> e; [ $? = 2 ] || fail "no cache named: not exit 2"
grep -q "which cache" e || fail "no cache named: no message"
"$KWARM" cache --cache "$C" frob > o 2> e; [ $? = 2 ] || fail "bad subcommand: not exit 2"
"$KWARM" cache --cache "$C" prune --max-size 12Q > o 2> e; [ $? = 2 ] || fail "bad size: not exit 2"
"$KWARM" cache --cache "$T/nowhere" stats > o 2> e; [ $? = 1 ] || fail "missing cache: not exit 1"
set -e
"$KWARM" cache -h > usage.txt
for w in stats verify prune --cache --spec --json --repair --max-age --max-size; do
	grep -q -- "$w" usage.txt || fail "usage does not mention $w"
done
# Resolution: --spec names the spec's cache; KWARM_CACHE wins over it.
mkdir -p m/.kwarm/cache
"$KWARM" cache --spec m/spec.yaml stats | grep -q "^cache  *$T/m/.kwarm/cache\$" || fail "--spec: wrong cache"
KWARM_CACHE=$C "$KWARM" cache --spec m/spec.yaml stats | grep -q "^cache  *$C\$" || fail "KWARM_CACHE not first"
pass "usage, exit statuses and cache resolution"

# ---- stats
"$KWARM" cache --cache "$C" stats > stats.txt
holds stats.txt '^units  *4 (' "stats: not 4 units"
grep -q '^pack' stats.txt && { cat stats.txt; fail "stats: still reports packs"; }
bytes=0
for k in "${keys[@]}"; do bytes=$((bytes + $(stat -c %s "$(man "$k")"))); done
holds stats.txt "^units  *4 ($bytes bytes" "stats: wrong bytes (want $bytes)"
holds stats.txt "^total bytes  *$bytes\$" "stats: wrong total (want $bytes)"
"$KWARM" cache --cache "$C" stats --json > stats.json
python3 - stats.json "$bytes" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["units"] == 4 and d["unit_bytes"] == int(sys.argv[2]), d
assert "packs" not in d and "pack_bytes" not in d, d
PY
holds stats.txt '^last run  *hits 0, wait-hits 0, misses 4,' "stats: the warm-up's 4 misses are not counted"
# Figures from a known log (appended: runs are make runs, by their tag).
k0=${keys[0]} k1=${keys[1]}
cp "$C/events.log" events.saved 2> /dev/null || : > events.saved
{
	echo "1000 miss $k0 2.000 11@1000.00"
	echo "1001 miss $k1 1.500 11@1000.00"
	echo "2000 wait-hit $k0 0.500 12@2000.00"
	echo "2001 hit $k0 12@2000.00"
	echo "2002 hit $k1 12@2000.00"
	echo "2003 corrupt $k1 12@2000.00"
} > "$C/events.log"
"$KWARM" cache --cache "$C" stats > stats.txt
holds stats.txt '^last run  *hits 1, wait-hits 1, misses 0, corrupt 1, compiling 0.0 s, hit rate 100.0%' \
	"stats: wrong last run"
holds stats.txt '^all runs (2)  *hits 1, wait-hits 1, misses 2, corrupt 1, compiling 3.5 s, hit rate 50.0%' \
	"stats: wrong totals"
cp events.saved "$C/events.log"
pass "stats: entries, bytes, runs from the event log"

# ---- verify
"$KWARM" cache --cache "$C" verify > v.out 2> v.err || { cat v.err; fail "verify failed on a good cache"; }
holds v.out '^4 entries checked, 0 bad$' "verify: wrong summary"
[ ! -s v.err ] || { cat v.err; fail "verify: messages on a good cache"; }
# The first three ways of ENTRY_DAMAGE (flipped byte, cut byte, truncated),
# one entry each: verify names each entry with its reason.
for i in 0 1 2; do damage_entry "${ENTRY_DAMAGE[i]%%|*}" "$(man "${keys[i]}")"; done
if "$KWARM" cache --cache "$C" verify > v.out 2> v.err; then fail "verify passed a corrupt cache"; fi
for i in 0 1 2; do
	grep -qF "cache entry '$(man "${keys[i]}")' is corrupt: ${ENTRY_DAMAGE[i]#*|}" v.err ||
		{ cat v.err; fail "${ENTRY_DAMAGE[i]%%|*}: the entry is not named with its reason"; }
done
[ "$(wc -l < v.err)" = 3 ] || { cat v.err; fail "verify: not exactly 3 messages"; }
grep -q "${keys[3]}" v.err && fail "verify named a good entry"
holds v.out '^4 entries checked, 3 bad$' "verify: wrong summary"
"$KWARM" cache --cache "$C" verify --repair > v.out 2> v.err || { cat v.err; fail "verify --repair failed"; }
holds v.out '^4 entries checked, 3 bad (3 removed)$' "verify --repair: wrong summary"
for i in 0 1 2; do [ ! -e "$(man "${keys[$i]}")" ] || fail "bad entry $i not removed"; done
[ -e "$(man "${keys[3]}")" ] || fail "repair removed a good entry"
"$KWARM" cache --cache "$C" verify > v.out 2> v.err || { cat v.err; fail "not clean after repair"; }
holds v.out '^1 entries checked, 0 bad$' "after repair: wrong summary"
rm -rf out
: > "$STANDIN_LOG"
make -f m.mk -j2 warmup > /dev/null 2> make.err || { cat make.err; fail "make after repair failed"; }
[ "$(compiles)" = 3 ] || fail "make after repair compiled $(compiles) units, want 3"
cmp out/TestMinimal.callable good.callable || fail "rebuilt callable differs"
"$KWARM" cache --cache "$C" stats > stats.txt
holds stats.txt '^last run  *hits 1, wait-hits 0, misses 3,' \
	"stats: the rebuild's 3 misses and 1 hit are not counted"
pass "verify names each bad entry; --repair removes them; make rebuilds them"

# ---- prune by age: two manifests last used 20 days ago.
touch -d '20 days ago' "$(man "${keys[0]}")" "$(man "${keys[1]}")"
"$KWARM" cache --cache "$C" prune > p.out || fail "prune failed"
holds p.out '^removed 2 entries (' "prune by age: $(cat p.out)"
for i in 0 1; do [ ! -e "$(man "${keys[$i]}")" ] || fail "old entry $i not pruned"; done
for i in 2 3; do [ -e "$(man "${keys[$i]}")" ] || fail "recent entry $i pruned"; done
# --max-age 0 keeps what was used within the grace hour.
"$KWARM" cache --cache "$C" prune --max-age 0 > p.out
holds p.out '^removed 0 entries' "--max-age 0 removed recent entries"
# A use (atime) refreshes: an old mtime with a fresh atime stays.
touch -m -d '20 days ago' "$(man "${keys[2]}")"
"$KWARM" cache --cache "$C" prune > p.out
[ -e "$(man "${keys[2]}")" ] || fail "an entry used now was pruned for its old mtime"
rm -rf out
: > "$STANDIN_LOG"
make -f m.mk -j2 warmup > /dev/null
[ "$(compiles)" = 2 ] || fail "make after prune compiled $(compiles), want 2"
cmp out/TestMinimal.callable good.callable
pass "prune by age (default 14 days), grace hour, atime as last use; make rebuilds"

# ---- prune by size: least recently used first, never within the grace hour.
touch -d '5 hours ago' "$(man "${keys[0]}")"
touch -d '4 hours ago' "$(man "${keys[1]}")"
touch -d '3 hours ago' "$(man "${keys[2]}")"
touch "$(man "${keys[3]}")"
size() { stat -c %s "$(man "$1")"; }
total=0
for k in "${keys[@]}"; do total=$((total + $(size "$k"))); done
limit=$((total - $(size "${keys[0]}") - 1))	# forces out the oldest two
"$KWARM" cache --cache "$C" prune --max-size "$limit" > p.out
holds p.out '^removed 2 entries' "prune by size: $(cat p.out)"
[ ! -e "$(man "${keys[0]}")" ] && [ ! -e "$(man "${keys[1]}")" ] || fail "not the least recently used"
[ -e "$(man "${keys[2]}")" ] && [ -e "$(man "${keys[3]}")" ] || fail "pruned more than needed"
"$KWARM" cache --cache "$C" prune --max-size 1 > p.out
[ ! -e "$(man "${keys[2]}")" ] || fail "--max-size 1 kept an entry 3 hours old"
[ -e "$(man "${keys[3]}")" ] || fail "--max-size pruned an entry used within the hour"
pass "prune by size: LRU first, grace hour kept"

# ---- prune never takes an entry whose lock is held (a compile in progress).
rm -rf out
make -f m.mk -j2 warmup > /dev/null
k=${keys[0]}
touch -d '20 days ago' "$(man "$k")"
mkfifo release
# The entry's lock: a write lock on its byte of entries.lock (a POSIX record
# lock conflicts with kwarm's OFD lock there).
python3 - "$C/entries.lock" "$k" <<'PY' &
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT)
fcntl.lockf(fd, fcntl.LOCK_EX, 1, int(sys.argv[2][:15], 16))
open("locked", "w").close()
open("release").read()
PY
holder=$!
wait_file locked "$holder"
"$KWARM" cache --cache "$C" prune > p.out
holds p.out '1 being compiled (kept)' "prune did not report the busy entry"
[ -e "$(man "$k")" ] || fail "prune removed a locked entry"
"$KWARM" cache --cache "$C" verify > v.out || fail "verify failed with a busy entry"
holds v.out 'being compiled (skipped)' "verify did not skip the busy entry"
echo > release
wait "$holder"
"$KWARM" cache --cache "$C" prune > p.out
[ ! -e "$(man "$k")" ] || fail "entry not pruned once its lock was free"
pass "prune and verify skip an entry whose lock is held"

# ---- orphaned temps: a dead process's, or over a day old.
true & dead=$!
wait "$dead"
kill -0 "$dead" 2> /dev/null && fail "pid $dead still alive"
live=$$
k=${keys[3]}
d=$C/units/${k:0:1}
: > "$d/$k.m.tmp.$dead.deadbeef"
: > "$d/$k.m.tmp.$live.0badf00d"
: > "$d/$k.m.tmp.$live.0000da1d"
touch -d '2 days ago' "$d/$k.m.tmp.$live.0000da1d"	# live pid, but a day old
: > "$C/tmp/probe.$dead"
: > "$C/tmp/probe.$live"
if "$KWARM" cache --cache "$C" verify > v.out 2> v.err; then fail "verify passed orphaned temps"; fi
holds v.err "orphaned temp '$d/$k.m.tmp.$dead.deadbeef'" "dead temp not named"
holds v.err "orphaned temp '$d/$k.m.tmp.$live.0000da1d'" "day-old temp not named"
holds v.err "orphaned temp '$C/tmp/probe.$dead'" "dead probe not named"
grep -q -e "probe\.$live'" -e "\.$live\.0badf00d'" v.err && { cat v.err; fail "verify named a live temp"; }
"$KWARM" cache --cache "$C" prune > p.out
holds p.out ', 3 orphaned temps' "prune: wrong counts"
for f in "$d/$k.m.tmp.$dead.deadbeef" "$d/$k.m.tmp.$live.0000da1d" "$C/tmp/probe.$dead"; do
	[ ! -e "$f" ] || fail "not cleaned: $f"
done
for f in "$d/$k.m.tmp.$live.0badf00d" "$C/tmp/probe.$live" "$(man "$k")"; do
	[ -e "$f" ] || fail "removed a live one: $f"
done
pass "dead-pid or day-old temps removed, live ones kept"
