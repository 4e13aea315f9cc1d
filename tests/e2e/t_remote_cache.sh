#!/usr/bin/env bash
# labels: e2e
# timeout: 300
# The remote cache tier against a real nginx (Debian nginx-light: its DAV
# module takes PUT). Two checkouts at different paths with their own local
# caches share one store: the second compiles nothing and packs byte-exact
# callables; without gen's prefetch each step fetches its unit, and the step
# of a callable's last unit packs it. Read-only mode uploads nothing. A stopped server, one answering
# 500 and one that accepts and never answers: the warm-up builds locally,
# prints one warning, and asks no more after the first failure (a stalled
# server costs one timeout, not one per unit). Objects with a flipped byte,
# cut short or stored under another key are never packed. The token is in no
# Makefile, log, report or cache file.
. "$(dirname "$0")/lib.sh"
need nginx nginx-light
need python3 python3

NG=$T/nginx
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

# A free port on 127.0.0.1 (the kernel's pick, released for the server).
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# start_nginx: nginx in the foreground on a free port ($PORT), its store in
# $NG/store; returns once it listens (it writes its pid file after binding).
start_nginx() {
	local try
	mkdir -p "$NG/store"
	chmod -R a+rwx "$NG"	# workers run as nobody when the test runs as root
	for try in 1 2 3; do
		PORT=$(free_port)
		sed "s#@DIR@#$NG#g; s#@PORT@#$PORT#g" "$TOOLS/nginx.conf" > "$NG/nginx.conf"
		rm -f "$NG/nginx.pid"
		nginx -c "$NG/nginx.conf" -p "$NG" -e "$NG/error.log" 2> "$NG/start.log" &
		NGINX_PID=$!
		pids+=("$NGINX_PID")
		while [ ! -e "$NG/nginx.pid" ] && kill -0 "$NGINX_PID" 2>/dev/null; do sleep 0.01; done
		[ -e "$NG/nginx.pid" ] && return 0
		wait "$NGINX_PID" || true	# the port was taken meanwhile: another
	done
	cat "$NG/start.log" "$NG/error.log" >&2 || true
	fail "nginx does not start"
}

export KWARM_REMOTE_TOKEN=secret123
unset KWARM_REMOTE KWARM_REMOTE_MODE
export STANDIN_SCALE=0.02
cd "$T"
start_nginx
URL=http://127.0.0.1:$PORT/share

# --- two checkouts, one store ---
for c in one two; do standin_example qwen3_decode "$c"; done
"$KWARM" gen one/spec.yaml -o one.mk --cache "$T/cache-one" --out "$T/out-one" --remote "$URL"
must one.log "the first checkout failed" make -f one.mk -j3 warmup
[ "$(compiles)" = 39 ] || fail "the first checkout ran $(compiles) compiles, want 39"
n=$(find "$NG/store/share/kwarm-entry-2" -type f | wc -l)
[ "$n" = 39 ] || fail "the store holds $n objects after the first checkout, want 39"
: > "$STANDIN_LOG"
# The second takes its URL from the spec (flag over environment over spec).
printf 'remote: %s\n' "$URL" >> two/spec.yaml
"$KWARM" gen two/spec.yaml -o two.mk --cache "$T/cache-two" --out "$T/out-two"
must two.log "the second checkout failed" make -f two.mk -j3 warmup
[ "$(compiles)" = 0 ] || fail "the second checkout compiled $(compiles) units, want 0"
for c in TestQwen3Decode TestQwen3DecodeGraph; do
	cmp "out-one/$c.callable" "out-two/$c.callable" || fail "$c differs between the checkouts"
done
"$KWARM" cache --cache "$T/cache-two" stats --json > two.stats
# gen fetched them (a run of its own); make's run found them: hits.
grep -q '"all_runs":{[^}]*"remote_hits":39,[^}]*"uploads":0,' two.stats ||
	fail "stats do not count 39 remote hits and no upload: $(cat two.stats)"
"$KWARM" cache --cache "$T/cache-one" stats --json > one.stats
grep -q '"last_run":{[^}]*"remote_misses":39,[^}]*"uploads":39,' one.stats ||
	fail "stats do not count 39 remote misses and 39 uploads: $(cat one.stats)"
# gen fetched them all in one pass; without that, each unit's step fetches it.
gets=$(grep -c '"GET /share/' "$NG/access.log")
[ "$gets" -ge 39 ] || fail "gen fetched $gets objects, want 39"
standin_example qwen3_decode three
: > "$STANDIN_LOG"
KWARM_REMOTE_PREFETCH=0 "$KWARM" gen three/spec.yaml -o three.mk --cache "$T/cache-three" \
	--out "$T/out-three" --remote "$URL"
[ -z "$(find "$T/cache-three/units" -name '*.m')" ] || fail "KWARM_REMOTE_PREFETCH=0: gen fetched"
must three.log "the third checkout failed" make -f three.mk -j3 warmup
[ "$(compiles)" = 0 ] || fail "the third checkout (no prefetch) compiled $(compiles) units, want 0"
cmp out-one/TestQwen3Decode.callable out-three/TestQwen3Decode.callable
# Each step checked what it fetched against this run's files (made.h): the
# step of each callable's last unit packs it, not make's pack recipe later.
# At -j1: with steps side by side, one that has fetched its unit but not yet
# checked it may leave the pack to make (correct, only later).
standin_example qwen3_decode four
KWARM_REMOTE_PREFETCH=0 "$KWARM" gen four/spec.yaml -o four.mk --cache "$T/cache-four" \
	--out "$T/out-four" --remote "$URL"
must four.log "the fourth checkout failed" make -f four.mk -j1 warmup
[ "$(compiles)" = 0 ] || fail "the fourth checkout (no prefetch) compiled $(compiles) units, want 0"
python3 - out-four/.kwarm/trace.json <<'PY' || fail "a callable of the fourth checkout was not packed by its last unit's step"
import json, sys
packs = [e for e in json.load(open(sys.argv[1])) if e.get("ph") == "X" and e["cat"] == "pack"]
assert sorted(c for p in packs for c in p["args"]["classes"]) == ["TestQwen3Decode", "TestQwen3DecodeGraph"], packs
assert all(p["args"].get("by") == "compile" for p in packs), [p["args"] for p in packs]
PY
# summary.json counts what the run's steps asked of the remote.
remote_counts() { python3 -c 'import json, sys; r = json.load(open(sys.argv[1]))["remote"]; print(r["hits"], r["misses"], r["uploads"], r["bytes_fetched"] > 0, r["bytes_uploaded"] > 0)' "$1"; }
[ "$(remote_counts out-one/.kwarm/summary.json)" = "0 39 39 False True" ] ||
	fail "summary.json of the first checkout: $(remote_counts out-one/.kwarm/summary.json)"
[ "$(remote_counts out-three/.kwarm/summary.json)" = "39 0 0 True False" ] ||
	fail "summary.json of the third checkout: $(remote_counts out-three/.kwarm/summary.json)"
pass "two checkouts sharing one nginx store: the second compiles 0, byte-exact (gen's one pass, and per unit); summary.json counts hits, misses, uploads, bytes"

# Flag over environment: an empty --remote turns the spec's remote off.
KWARM_REMOTE=http://127.0.0.1:1/never "$KWARM" gen two/spec.yaml -o off.mk --cache "$T/cache-off" \
	--out "$T/out-off" --remote ''
! grep -q -- '--remote http' off.mk || fail "an empty --remote left a remote in the Makefile"
"$KWARM" gen two/spec.yaml -o env.mk --cache "$T/cache-off" --out "$T/out-off" > /dev/null
KWARM_REMOTE=http://127.0.0.1:1/env "$KWARM" gen two/spec.yaml -o env.mk --cache "$T/cache-off" \
	--out "$T/out-off"
grep -q -- '--remote http://127.0.0.1:1/env' env.mk || fail "KWARM_REMOTE does not override the spec"
! "$KWARM" gen two/spec.yaml -o bad.mk --remote "http://user:hunter2@127.0.0.1:$PORT/x" 2> bad.err ||
	fail "a URL with a password was taken"
! grep -q hunter2 bad.err || fail "the refused URL's password was printed"
pass "flag over environment over spec; empty turns it off; no URL with a password"

# --- read-only ---
standin_example minimal ro
: > "$STANDIN_LOG"
"$KWARM" gen ro/spec.yaml -o ro.mk --cache "$T/cache-ro" --out "$T/out-ro" --remote "http://127.0.0.1:$PORT/ro"
KWARM_REMOTE_MODE=read-only make -f ro.mk -j2 warmup > ro.log 2>&1 || { cat ro.log; fail "read-only failed"; }
units=$(compiles)
[ "$units" -ge 3 ] || fail "the minimal example has $units units, fewer than 3"
[ ! -e "$NG/store/ro" ] || fail "read-only mode uploaded: $(find "$NG/store/ro" -type f | wc -l) objects"
! grep -q '"PUT /ro/' "$NG/access.log" || fail "read-only mode sent a PUT"
cp out-ro/TestMinimal.callable good.callable
pass "read-only mode uploads nothing"

# A fresh checkout of the minimal example against URL BASE, with its own cache;
# sets $log and $secs (wall time).
run_fresh() {
	local name=$1 base=$2 t0
	rm -rf "${T:?}/$name" "$T/cache-$name" "$T/out-$name"
	standin_example minimal "$name"
	: > "$STANDIN_LOG"
	"$KWARM" gen "$name/spec.yaml" -o "$name.mk" --cache "$T/cache-$name" --out "$T/out-$name" \
		--remote "$base"
	t0=$(date +%s.%N)
	must "$name.log" "$name failed" make -f "$name.mk" -j2 warmup
	secs=$(python3 -c "import sys; print('%.2f' % ($(date +%s.%N) - $t0))")
	log=$name.log
	cmp "out-$name/TestMinimal.callable" good.callable || fail "$name: the callable differs"
}
# one_warning LOG: exactly one remote warning, no error line.
one_warning() {
	local n
	n=$(grep -c 'warning: remote cache' "$1" || true)
	[ "$n" = 1 ] || { cat "$1"; fail "$1: $n remote warnings, want 1"; }
	! grep -q 'error' "$1" || { cat "$1"; fail "$1: an error line"; }
}

# --- corrupt objects: flipped byte, cut short, another key's ---
run_fresh fill "http://127.0.0.1:$PORT/bad"
mapfile -t keys < <(unit_keys fill.mk)
obj() { echo "$NG/store/bad/kwarm-entry-2/$1"; }
# The third holds the first's valid entry (another key's); then the first's
# artifact gets a flipped byte and the second is cut in half.
cp "$(obj "${keys[0]}")" "$(obj "${keys[2]}")"
python3 - "$(obj "${keys[0]}")" "$(obj "${keys[1]}")" <<'PY'
import sys
a, b = sys.argv[1:]
d = bytearray(open(a, "rb").read()); d[0] ^= 1; open(a, "wb").write(d)
d = open(b, "rb").read(); open(b, "wb").write(d[: len(d) // 2])
PY
run_fresh bad "http://127.0.0.1:$PORT/bad"
[ "$(compiles)" = 3 ] || { cat "$log"; fail "3 bad objects, $(compiles) compiles (want 3)"; }
one_warning "$log"
pass "objects with a flipped byte, cut short or of another key are compiled here instead"

# --- a server answering 500 ---
run_fresh e500 "http://127.0.0.1:$PORT/broken"
[ "$(compiles)" = "$units" ] || fail "500: $(compiles) compiles, want $units"
one_warning "$log"
pass "a server answering 500: built locally, one warning"

# --- a stopped server (connection refused) ---
kill "$NGINX_PID"
wait "$NGINX_PID" 2> /dev/null || true
run_fresh down "$URL"
[ "$(compiles)" = "$units" ] || fail "server down: $(compiles) compiles, want $units"
one_warning "$log"
pass "a stopped server: built locally, one warning ($secs s)"

# --- a stalled server: accepts, never answers ---
# Each connection it accepts is a line of stall.accepts: how often it was asked.
python3 - "$T/stall.port" "$T/stall.accepts" <<'PY' &
import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(64)
log = open(sys.argv[2], "a", buffering=1)
open(sys.argv[1] + ".tmp", "w").write(str(s.getsockname()[1]))
import os; os.rename(sys.argv[1] + ".tmp", sys.argv[1])
held = []
while True:
    c, _ = s.accept(); held.append(c); log.write("accepted\n")
PY
pids+=($!)
wait_file "$T/stall.port" "${pids[-1]}"
standin_example qwen3_decode stall
: > "$STANDIN_LOG"
export KWARM_REMOTE_TIMEOUT=1
t0=$(date +%s.%N)
"$KWARM" gen stall/spec.yaml -o stall.mk --cache "$T/cache-stall" --out "$T/out-stall" \
	--remote "http://127.0.0.1:$(cat "$T/stall.port")" 2> stall-gen.log
one_warning stall-gen.log
must stall.log "stall failed" make -f stall.mk -j3 warmup
secs=$(python3 -c "print('%.2f' % ($(date +%s.%N) - $t0))")
[ "$(compiles)" = 39 ] || fail "stalled server: $(compiles) compiles, want 39"
one_warning stall.log
# gen's pass and make's run each wait one timeout: the server is asked by
# gen once and by at most the 3 steps -j3 runs before the first gives up,
# not by each of the 39 units (counted, not timed: a loaded machine is slow).
asked=$(wc -l < "$T/stall.accepts")
[ "$asked" -ge 2 ] && [ "$asked" -le 4 ] ||
	fail "a stalled server was asked $asked times, want gen's once and at most -j3's 3 steps"
cmp out-one/TestQwen3Decode.callable out-stall/TestQwen3Decode.callable
pass "a stalled server: asked $asked times by gen + make (timeout 1 s, $secs s), one warning each"

# When make remakes the Makefile itself, its gen and its steps are one run:
# the server found stalled by gen's pass is not asked again by the steps.
printf '// edited\n' >> stall/kernels/aiv/argmax.cpp
: > "$STANDIN_LOG"
: > "$T/stall.accepts"
must stall2.log "stall, remade: failed" make -f stall.mk -j3 warmup
[ "$(compiles)" = 1 ] || fail "stall, remade: $(compiles) compiles, want 1"
[ "$(wc -l < "$T/stall.accepts")" = 1 ] ||
	fail "stall, remade: the server was asked $(wc -l < "$T/stall.accepts") times, want once (gen's pass)"
one_warning stall2.log
pass "a Makefile remade inside make: its gen and its steps share the run's one warning and timeout"

# --- no credential anywhere ---
if grep -rl secret123 "$T" 2> /dev/null; then
	fail "the token appears in the files above"
fi
pass "the token is in no Makefile, log, report or cache file"
