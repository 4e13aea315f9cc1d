#!/usr/bin/env bash
# labels: e2e;slow
# SIGINT (Ctrl-C) to make's process group mid-run: make stops, every kwarm
# process removes its temps (publish temps "*.tmp.*", compile scratch folders in
# the cache's tmp/ and OUT/.kwarm/private/tmp/), nothing torn is visible under a
# final name, and a re-run succeeds with the right callables. Once at a known
# point (a compiler blocked mid-compile), then at 10 seeded random points.
. "$(dirname "$0")/lib.sh"

# The tree checker: verify.py CACHE OUT REFS [--no-temps]. REFS/<version>/<path
# under OUT> are the accepted callables; --no-temps also refuses publish temps
# ("*.tmp.*") and scratch folders left in the cache and OUT.
cat > "$T/verify.py" <<'PY'
import hashlib, os, sys

cache, out, refs = sys.argv[1:4]
no_temps = "--no-temps" in sys.argv
bad, entries = [], 0
sha = lambda p: hashlib.sha256(open(p, "rb").read()).hexdigest()
for dp, dns, fs in os.walk(os.path.join(cache, "units")):
    for f in fs:
        if not f.endswith(".m"):
            continue
        m = os.path.join(dp, f)
        key = f[:-2]
        lines = open(m, "rb").read().decode("utf-8", "replace").split("\n")
        fields = dict(l.split(" ", 1) for l in lines[1:] if " " in l)
        art = os.path.join(dp, key)
        if lines[0] != "kwarm-manifest 1" or fields.get("key") != key:
            bad.append("manifest %s: bad head or key" % m)
        elif not os.path.isfile(art):
            bad.append("manifest %s: no artifact" % m)
        elif str(os.path.getsize(art)) != fields.get("size") or sha(art) != fields.get("sha256"):
            bad.append("entry %s: artifact does not match its manifest" % art)
        entries += 1
for dp, dns, fs in os.walk(os.path.join(cache, "packs")):
    for f in fs:
        if f.endswith(".pack") and sha(os.path.join(dp, f)) != f[:-5]:
            bad.append("pack description %s does not hash to its name" % f)
versions = sorted(os.listdir(refs)) if os.path.isdir(refs) else []
callables = 0
for dp, dns, fs in os.walk(out):
    if ".kwarm" in dns:
        dns.remove(".kwarm")
    for f in fs:
        if not f.endswith(".callable"):
            continue
        p = os.path.join(dp, f)
        rel = os.path.relpath(p, out)
        data = open(p, "rb").read()
        if not any(os.path.isfile(os.path.join(refs, v, rel)) and
                   open(os.path.join(refs, v, rel), "rb").read() == data for v in versions):
            bad.append("callable %s equals no version of its sources (%d bytes)" % (rel, len(data)))
        callables += 1
if no_temps:
    for top in (cache, out):
        for dp, dns, fs in os.walk(top):
            for f in fs + dns:
                if ".tmp." in f:
                    bad.append("temp left: %s" % os.path.join(dp, f))
    for tmp in (os.path.join(cache, "tmp"), os.path.join(out, ".kwarm", "private", "tmp")):
        if os.path.isdir(tmp) and os.listdir(tmp):
            bad.append("scratch left in %s: %s" % (tmp, os.listdir(tmp)))
if bad:
    sys.exit("FAIL: torn or stray files:\n  " + "\n  ".join(bad))
print("%d entries, %d callables verified" % (entries, callables))
PY

R=$T/root
mkdir -p "$R/src" "$T/refs"
cat > "$R/spec.yaml" <<YAML
version: 1
platform: a5sim
toolchains:
  orchestration: {compiler: $STANDIN}
  incore: {aiv: {compiler: $STANDIN}}
classes:
  - name: TestA
    callable:
      orchestration: {source: src/orch.c, function_name: e, signature: [IN]}
      incores:
        - {func_id: 0, source: src/k0.c, core_type: aiv}
        - {func_id: 1, source: src/k1.c, core_type: aiv}
        - {func_id: 2, source: src/k2.c, core_type: aiv}
        - {func_id: 3, source: src/k3.c, core_type: aiv}
  - name: TestB
    callables:
      - name: b
        orchestration: {source: src/orch.c, function_name: e}
        incores:
          - {func_id: 0, source: src/k4.c, core_type: aiv}
          - {func_id: 1, source: src/k5.c, core_type: aiv}
          - {func_id: 2, source: src/k6.c, core_type: aiv}
YAML
units="orch k0 k1 k2 k3 k4 k5 k6"

# Sources of version v (each unit costs 0.2 s: 8 units at -j2 take ~0.8 s), and
# the callables they must give, from the stand-in run directly.
version() {
	local v=$1 u
	for u in $units; do
		printf '// kwarm-cost: 0.2\nint %s_v%d;\n' "$u" "$v" > "$R/src/$u.c"
	done
	mkdir -p "$T/bins/$v" "$T/refs/$v/TestB"
	for u in $units; do
		(cd "$R" && STANDIN_LOG= STANDIN_SCALE=0 "$STANDIN" -o "$T/bins/$v/$u" "src/$u.c")
	done
	cat > "$T/bins/$v/a.json" <<JSON
{"sig": [1], "func": "e", "orch": "$T/bins/$v/orch", "children": [
 {"id": 0, "sig": [], "bin": "$T/bins/$v/k0"}, {"id": 1, "sig": [], "bin": "$T/bins/$v/k1"},
 {"id": 2, "sig": [], "bin": "$T/bins/$v/k2"}, {"id": 3, "sig": [], "bin": "$T/bins/$v/k3"}]}
JSON
	cat > "$T/bins/$v/b.json" <<JSON
{"sig": [], "func": "e", "orch": "$T/bins/$v/orch", "children": [
 {"id": 0, "sig": [], "bin": "$T/bins/$v/k4"}, {"id": 1, "sig": [], "bin": "$T/bins/$v/k5"},
 {"id": 2, "sig": [], "bin": "$T/bins/$v/k6"}]}
JSON
	expected_callable "$T/bins/$v/a.json" > "$T/refs/$v/TestA.callable"
	expected_callable "$T/bins/$v/b.json" > "$T/refs/$v/TestB/b.callable"
}
check_current() {
	cmp -s "$T/refs/$1/TestA.callable" "$T/out/TestA.callable" &&
		cmp -s "$T/refs/$1/TestB/b.callable" "$T/out/TestB/b.callable"
}

# Wait until the group's processes are gone (zombies aside: their files are
# closed, and this machine's init may be slow to reap them).
settle() {
	local i=0
	while ps -o stat= -g "$1" | grep -qv '^Z'; do
		i=$((i + 1)); [ "$i" -lt 1000 ] || fail "processes of group $1 remain"
		sleep 0.01
	done
}

cd "$T"
export STANDIN_SCALE=1

# 1. A known point: k0's compiler blocks until told to go; the others are done
# or in flight. SIGINT then reaches make, kwarm compile and the compiler.
version 0
printf '// kwarm-standin: block %s/blocked\n' "$T" >> "$R/src/k0.c"
(cd "$R" && : > "$T/blocked.go" && STANDIN_LOG= STANDIN_SCALE=0 "$STANDIN" -o "$T/bins/0/k0" src/k0.c)
rm "$T/blocked" "$T/blocked.go"
expected_callable "$T/bins/0/a.json" > "$T/refs/0/TestA.callable"
"$KWARM" gen root/spec.yaml -o warmup.mk --cache "$T/cache" --out "$T/out"
setsid make -f warmup.mk -j2 warmup > int0.txt 2>&1 &
pid=$!
wait_file "$T/blocked" "$pid"
# ... and let two other units finish, so that there are entries to verify.
i=0
until [ "$(find cache/units -name '*.m' | wc -l)" -ge 2 ]; do
	i=$((i + 1)); [ "$i" -lt 6000 ] || fail "no unit finished while k0 was blocked"
	kill -0 "$pid" || fail "make ended while k0 was blocked"
	sleep 0.01
done
[ -n "$(ls out/.kwarm/private/tmp 2>/dev/null)$(ls cache/tmp 2>/dev/null)" ] ||
	fail "no scratch folder while k0 compiles: the check below would prove nothing"
kill -INT -- -"$pid"
rc=0
wait "$pid" || rc=$?
[ "$rc" != 0 ] || fail "make exited 0 after SIGINT"
settle "$pid"
python3 verify.py cache out refs --no-temps || fail "SIGINT while compiling left temps or torn files"
[ "$(find cache/units -name '*.m' | wc -l)" -ge 2 ] || fail "entries finished before SIGINT were lost"
[ ! -e out/TestA.callable ] || fail "TestA was packed though k0 never compiled"
: > "$T/blocked.go"
make -f warmup.mk -j2 warmup > rerun0.txt 2>&1 || { cat rerun0.txt; fail "the re-run after SIGINT failed"; }
check_current 0 || fail "the re-run's callables are wrong"
python3 verify.py cache out refs --no-temps || fail "after the re-run"
pass "SIGINT mid-compile: make stopped (exit $rc), no temps, no torn files, the re-run is right"

# 2. Random points, each run after an edit of every source.
delays=$(python3 -c 'import random; r = random.Random(4321); print(" ".join("%.3f" % (0.6 * r.random()) for _ in range(10)))')
interrupted=0 v=0
for d in $delays; do
	v=$((v + 1))
	version "$v"
	setsid make -f warmup.mk -j2 warmup > "int$v.txt" 2>&1 &
	pid=$!
	sleep "$d"	# the random point of the interrupt: intended, not a wait
	if kill -INT -- -"$pid" 2>/dev/null; then
		interrupted=$((interrupted + 1))
	fi
	wait "$pid" || true
	settle "$pid"
	python3 verify.py cache out refs --no-temps > /dev/null || fail "run $v (SIGINT after $d s): temps or torn files"
	[ -e warmup.mk ] || fail "run $v (SIGINT after $d s): the Makefile is gone"
	make -f warmup.mk -j2 warmup > "rerun$v.txt" 2>&1 || { cat "rerun$v.txt"; fail "run $v: the re-run failed"; }
	check_current "$v" || fail "run $v (SIGINT after $d s): the re-run's callables are not version $v's"
done
[ "$interrupted" -ge 6 ] || fail "only $interrupted of 10 runs were interrupted"
pass "SIGINT at random points: $interrupted of 10 runs interrupted, no temps left, every re-run right"
